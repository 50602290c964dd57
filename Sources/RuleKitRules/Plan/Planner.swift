internal import RuleKitCore

/// Compiles a `RuleSet` into a `CompiledRuleSet`, deciding once what every condition means.
///
/// Launch semantics decide what survives: a matcher with a non-string key or an unknown code, a value
/// that cannot be compared (null, array, object) or a broken historical condition "converts to
/// nothing" and is removed from its group; a group left empty disappears; a rule whose root condition
/// disappears is dropped. Each such drop is a warning here (the reference is silent).
public struct Planner: Sendable {
    /// What the planner builds.
    public struct Options: Sendable {
        /// Build historical conditions (the reference drops them when parsing without a runtime).
        public var historicalConditions: Bool
        /// Build the type/source index.
        public var index: Bool

        /// Options; both on by default.
        ///
        /// - Parameters:
        ///   - historicalConditions: build historical conditions (off: dropped, as the reference parses without a
        ///     runtime).
        ///   - index: build the type/source index.
        public init(historicalConditions: Bool = true, index: Bool = true) {
            self.historicalConditions = historicalConditions
            self.index = index
        }
    }

    /// What this planner builds.
    public var options: Options

    /// A planner with `options`.
    ///
    /// - Parameter options: what is planned.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Plans `set`.
    ///
    /// - Complexity: linear in the size of the rule set.
    ///
    /// - Parameter set: the rules.
    /// - Returns: the plan.
    public func plan(_ set: RuleSet) -> CompiledRuleSet {
        var state = PlanState(set: set, options: options)
        var planned: [PlannedRule] = []
        planned.reserveCapacity(set.rules.count)
        for i in set.rules.indices {
            let rule = set.rules[i]
            guard rule.enabled else { continue }
            state.ruleID = rule.id
            state.ruleIndex = i
            let firstMatcher = state.matchers.count
            state.historicals.removeAll(keepingCapacity: true)
            guard let condition = state.condition(rule.condition) else {
                state.warn(
                    .rulesDroppedRule,
                    "rule \(state.ruleLabel) is dropped: its condition has nothing valid left", rule.location)
                continue
            }
            let consequences = rule.consequences.map { state.consequence($0) }
            planned.append(
                PlannedRule(
                    index: planned.count, rule: rule, condition: condition,
                    consequences: consequences, reEvaluate: rule.reEvaluate, sourceIndex: i,
                    matcherRange: firstMatcher..<state.matchers.count,
                    historicalSources: state.historicals.isEmpty ? [] : Array(state.historicals)))
        }
        return CompiledRuleSet(
            rules: planned, matchers: state.matchers, slotCount: state.slots.count, diagnostics: state.diagnostics.sorted,
            indexed: options.index)
    }
}

struct PlanState {
    let options: Planner.Options
    let elements: [String: DataElement]
    var diagnostics = Diagnostics(cap: 1000)
    /// The rule being planned, named in messages (the label is made only for a message).
    var ruleID: String?
    var ruleIndex = 0
    var ruleLabel: String { ruleID ?? "#\(ruleIndex)" }
    var slots: [KeyRef: Int] = [:]
    /// Parsed keys by text: rule sets repeat the same few keys thousands of times.
    var keyRefs: [String: KeyRef] = [:]
    /// Token strings already parsed, with the data element names they did not find: consequences of
    /// many rules repeat the same strings (`{%~state.…/global.privacy%}`), parsed once.
    var templates: [String: (Template, unknown: [String])] = [:]
    /// Matcher keys by text, with their slots (one lookup per matcher instead of two).
    var slotKeys: [String: SlotKey] = [:]
    /// What is read of the matchers, for the Check phase: every rule's in one table that becomes the plan's
    /// (one allocation for the plan, not a growing one per rule: planning is in every start's path), each
    /// rule's historical conditions in a buffer copied into its plan. A dropped rule's stay in the table,
    /// unreferenced.
    var matchers: [PlannedMatcher] = []
    var historicals: [PlannedHistoricalSource] = []
    /// How deep in groups each of `matchers` is, to tell an `and`'s own matchers from its groups'.
    var matcherDepths: [Int32] = []
    var depth: Int32 = 0

    mutating func keyRef(_ text: String) -> KeyRef {
        if let k = keyRefs[text] { return k }
        let k = KeyRef.parse(text)
        keyRefs[text] = k
        return k
    }

    mutating func slot(_ ref: KeyRef) -> SlotKey {
        if let s = slots[ref] { return SlotKey(ref: ref, slot: s) }
        slots[ref] = slots.count
        return SlotKey(ref: ref, slot: slots.count - 1)
    }

    init(set: RuleSet, options: Planner.Options) {
        self.options = options
        // Room for a few matchers a rule, made once, so the table is seldom copied as it grows. Pages not
        // written are not touched.
        matchers.reserveCapacity(set.rules.count * 4)
        matcherDepths.reserveCapacity(set.rules.count * 4)
        var e: [String: DataElement] = [:]
        for d in set.dataElements { e[d.name] = d }
        elements = e
    }

    mutating func warn(_ code: DiagnosticCode, _ message: String, _ at: SourceLocation?) {
        diagnostics.append(.warning(code, message, at: at).about(rule: ruleLabel))
    }

    /// A key, with `%name%` data elements replaced by their path.
    mutating func key(_ text: String, at: SourceLocation?) -> (KeyRef, DataElement?) {
        // The byte test first: most keys are plain paths, and `count` walks graphemes.
        if text.utf8.first == 0x25, text.count >= 3, text.hasPrefix("%"), text.hasSuffix("%") {
            let name = String(text.dropFirst().dropLast())
            if let d = elements[name] { return (keyRef(d.path), d) }
            if !elements.isEmpty || !name.contains(".") {
                warn(.rulesUnknownDataElement, "rule \(ruleLabel): no data element named '\(name)'", at)
            }
        }
        return (keyRef(text), nil)
    }

    mutating func condition(_ c: Condition) -> PlannedCondition? {
        switch c.kind {
        case .group: return group(c)
        case .matcher: return matcher(c)
        case .historical: return historical(c)
        }
    }

    mutating func group(_ c: Condition) -> PlannedCondition? {
        let d = c.definition
        guard let logic = d.logic, let conditions = d.conditions else {
            warn(
                .rulesDroppedCondition, "rule \(ruleLabel): a group needs 'logic' and 'conditions'; it is dropped",
                c.location)
            return nil
        }
        var children: [PlannedCondition] = []
        children.reserveCapacity(conditions.count)
        let groupLogic = GroupLogic(rawValue: logic)
        let first = matchers.count
        depth += 1
        for i in conditions.indices {
            if let x = condition(conditions[i]) { children.append(x) }
        }
        depth -= 1
        if groupLogic == .and { guardKeys(from: first) }
        guard !children.isEmpty else {
            warn(
                .rulesDroppedCondition, "rule \(ruleLabel): a '\(logic)' group with no valid condition is dropped",
                c.location)
            return nil
        }
        switch groupLogic {
        case .and: return .and(children)
        case .or: return .or(children)
        case nil:
            let hint = closest(logic, in: GroupLogic.allCases.map(\.rawValue)).map { " (did you mean '\($0)'?)" } ?? ""
            warn(
                .rulesUnknownLogic,
                "rule \(ruleLabel): group logic '\(logic)' is neither 'and' nor 'or': the group is always false\(hint)",
                c.location)
            return .unknownLogic(logic, children)
        }
    }

    /// The `and` group whose matchers were read from `matchers[first...]` requires the keys of its own `ex`
    /// matchers to exist, for every matcher in it, its groups' included (`PlannedMatcher.guarded`). Found
    /// after its conditions are planned, from what they recorded: no second reading of the group.
    mutating func guardKeys(from first: Int) {
        var keys: Set<String> = []
        for i in first..<matchers.count where matcherDepths[i] == depth + 1 && matchers[i].operation == .exists {
            keys.insert(matchers[i].key)
        }
        guard !keys.isEmpty else { return }
        for i in first..<matchers.count { matchers[i].guarded.formUnion(keys) }
    }

    mutating func matcher(_ c: Condition) -> PlannedCondition? {
        let d = c.definition
        guard let keyText = d.key, let code = d.matcher else {
            warn(
                .rulesDroppedCondition, "rule \(ruleLabel): a matcher needs a string 'key' and 'matcher'; it is dropped",
                c.location)
            return nil
        }
        guard let op = Operation(code: code) else {
            let hint = Operation.suggestion(for: code).map { " (did you mean '\($0)'?)" } ?? ""
            warn(
                .rulesUnknownMatcher, "rule \(ruleLabel): unknown matcher '\(code)'\(hint); the matcher is dropped",
                c.location)
            return nil
        }
        let key: SlotKey
        var element: DataElement?
        if let known = slotKeys[keyText] {
            key = known
        } else {
            let (ref, e) = self.key(keyText, at: c.location)
            key = slot(ref)
            element = e
            // Data-element keys are looked up each time, so an unknown name is reported at each use.
            if e == nil && keyText.utf8.first != 0x25 { slotKeys[keyText] = key }
        }
        let values = d.values ?? []
        matchers.append(
            PlannedMatcher(
                key: keyText, elementPath: element?.path, declaredType: element?.type, operation: op, values: values,
                location: c.location, guarded: []))
        matcherDepths.append(depth)
        // The common matcher has one value: its comparison needs no list.
        if values.count == 1 && op != .exists && op != .notExist, let operand = Self.operand(values[0]) {
            return .comparison(key: key, operation: op, operand: operand)
        }
        var comparisons: [PlannedCondition] = []
        if values.isEmpty {
            // No values: one comparison against "" (the reference's default).
            comparisons.append(
                op == .exists || op == .notExist
                    ? .existence(key: key, negated: op == .notExist)
                    : .comparison(key: key, operation: op, operand: .string("", lowered: "")))
        }
        for v in values {
            if op == .exists || op == .notExist {
                if v.isNull { continue }
                comparisons.append(.existence(key: key, negated: op == .notExist))
                continue
            }
            guard let operand = Self.operand(v) else {
                warn(
                    .rulesBadValue,
                    "rule \(ruleLabel): matcher value \(JSONWriter.string(v)) (\(v.kind)) cannot be compared; it is skipped",
                    c.location)
                continue
            }
            comparisons.append(.comparison(key: key, operation: op, operand: operand))
        }
        guard !comparisons.isEmpty else {
            warn(
                .rulesDroppedCondition, "rule \(ruleLabel): matcher '\(code)' on '\(keyText)' has no usable value; it is dropped",
                c.location)
            return nil
        }
        if comparisons.count == 1 { return comparisons[0] }
        return op.combinesWithAnd ? .and(comparisons) : .or(comparisons)
    }

    static func operand(_ v: Value) -> Operand? {
        switch v {
        case .string(let s): .string(s, lowered: Self.lowered(s))
        case .int(let i): .int(i)
        case .double(let x): .double(x)
        case .bool(let b): .bool(b)
        default: nil
        }
    }

    mutating func historical(_ c: Condition) -> PlannedCondition? {
        guard options.historicalConditions else {
            warn(.rulesDroppedCondition, "rule \(ruleLabel): historical conditions are disabled; it is dropped", c.location)
            return nil
        }
        let d = c.definition
        guard let events = d.events, let code = d.matcher, let op = Operation(code: code),
            let v = d.value, let value = LoaderContext.integer(v)
        else {
            warn(
                .rulesDroppedCondition,
                "rule \(ruleLabel): a historical condition needs 'events', a known 'matcher' and an integer 'value'; it is dropped",
                c.location)
            return nil
        }
        let search = d.searchType.flatMap(SearchType.init(rawValue:)) ?? .any
        historicals.append(PlannedHistoricalSource(masks: events, location: c.location))
        return .historical(.init(masks: events, operation: op, value: value, from: d.from, to: d.to, searchType: search))
    }

    mutating func consequence(_ q: Consequence) -> PlannedConsequence {
        let kind: PlannedConsequence.Kind
        switch q.type {
        case "add": kind = .add
        case "mod": kind = .mod
        case "dispatch": kind = .dispatch
        case "schema": kind = .schema
        default: kind = .other
        }
        let detail = templateValue(.object(q.detail), at: q.location)
        return PlannedConsequence(id: q.id, type: q.type, kind: kind, detail: detail, source: q)
    }

    /// `s.lowercased()`, keeping `s` itself when it has nothing to lower (most matcher values), so the
    /// plan holds one copy of the text.
    static func lowered(_ s: String) -> String {
        let l = s.lowercased()
        return l == s ? s : l
    }

    /// Whether `s` has a '{'.
    static func hasBrace(_ s: String) -> Bool { s.utf8.contains(0x7B) }

    /// Whether some string inside `v` has a '{' (a token, or the '{{' that draws a warning): subtrees
    /// without one are kept as they are, with no per-member rebuilding.
    static func mayHoldTemplates(_ v: Value) -> Bool {
        switch v {
        case .string(let s): hasBrace(s)
        case .array(let a): a.contains(where: mayHoldTemplates)
        case .object(let o): o.members.contains { mayHoldTemplates($0.value) }
        default: false
        }
    }

    mutating func templateValue(_ v: Value, at: SourceLocation?) -> TemplateValue {
        switch v {
        case .string(let s):
            // Most strings have no '{' at all: only those are searched for the delimiter.
            let hasBrace = Self.hasBrace(s)
            guard hasBrace, Template.containsOpen(s) else {
                if hasBrace, s.contains("{{") && s.contains("}}") {
                    warn(
                        .rulesBadToken,
                        "rule \(ruleLabel): '{{ }}' is not a token in consequences (write '{% %}'): \"\(s)\"", at)
                }
                return .literal(v)
            }
            let t: Template
            let unknown: [String]
            if let known = templates[s] {
                (t, unknown) = known
            } else {
                (t, unknown) = parseTemplate(s)
                templates[s] = (t, unknown)
            }
            if t.unclosed {
                warn(.rulesBadToken, "rule \(ruleLabel): unclosed '{%' token: the whole string renders as \"\": \"\(s)\"", at)
            }
            for name in unknown where !elements.isEmpty {
                warn(.rulesUnknownDataElement, "rule \(ruleLabel): no data element named '\(name)'", at)
            }
            return t.hasTokens ? .template(t) : .literal(v)
        case .array(let a):
            if !Self.mayHoldTemplates(v) { return .literal(v) }
            let items = a.map { templateValue($0, at: at) }
            if items.allSatisfy({ if case .literal = $0 { true } else { false } }) { return .literal(v) }
            return .array(items)
        case .object(let o):
            if !Self.mayHoldTemplates(v) { return .literal(v) }
            let members = o.map { ($0.key, templateValue($0.value, at: at)) }
            if members.allSatisfy({ if case .literal = $0.1 { true } else { false } }) { return .literal(v) }
            return .object(members)
        default:
            return .literal(v)
        }
    }

    /// Parses a string holding '{%', resolving its token keys (and data element names).
    mutating func parseTemplate(_ s: String) -> (Template, unknown: [String]) {
        let elements = self.elements
        var unknown: [String] = []
        let t = Template.parse(s) { text in
            if text.utf8.first == 0x25, text.count >= 3, text.hasPrefix("%"), text.hasSuffix("%") {
                let name = String(text.dropFirst().dropLast())
                if let d = elements[name] {
                    let implied: Template.Function? =
                        switch d.type {
                        case .int: .int
                        case .double: .double
                        case .string: .string
                        case .bool: .bool
                        case .any: nil
                        }
                    return (self.keyRef(d.path), implied)
                }
                unknown.append(name)
            }
            return (self.keyRef(text), nil)
        }
        return (t, unknown)
    }
}
