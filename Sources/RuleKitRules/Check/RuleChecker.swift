// The Check phase: every rule of a loaded and planned rule set judged as its author would, with the
// rules-only checks of `RuleCheck` and, when a context is plugged in, the schemas' (XDM keys and types,
// attached XDM). One walk for every consumer: lint, the editor, the report, and the hosts that refuse a
// rule set with errors before running it (`RuleSnapshot.findings`).
public import RuleKitCore

/// Walks loaded and planned rule sets with the checks; the findings carry the severity `CheckSeverity`
/// gives their code.
public struct RuleChecker: Sendable {
    /// The schema checks, when any.
    public var context: (any CheckContext)?
    /// The engines the rules are meant for: `.web` and `.both` add the conditions the web engine answers
    /// otherwise than the mobile one (`RuleCheck.targetDifferences`).
    public var target: RuleTarget

    /// A checker with `context`'s schema checks (nil: the rules-only checks) for `target`.
    ///
    /// - Parameters:
    ///   - context: the schema and example checks (nil: rules-only).
    ///   - target: the engines whose answers are compared (`mobile`, `web`, `both`).
    public init(context: (any CheckContext)? = nil, target: RuleTarget = .mobile) {
        self.context = context
        self.target = target
    }

    /// The findings of the rule sets `sets` (by file, in load order) planned as `plans` (one per set,
    /// in the same order), with `CheckSeverity`'s severities.
    ///
    /// - Parameters:
    ///   - sets: each file's path and its rule set as loaded.
    ///   - plans: each set as planned, in the order of `sets`.
    /// - Returns: the findings of the Check phase only (the loaders' and the planner's are the caller's).
    public func check(_ sets: [(path: String, set: RuleSet)], plans: [CompiledRuleSet]) -> [Diagnostic] {
        var out: [Diagnostic] = []
        var ids = RuleCheck.IDs()
        for ((path, set), plan) in zip(sets, plans) {
            let elements = Dictionary(set.dataElements.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            // Each rule's plan, found by where the rule is and its id (the first of equals, as a search from
            // the start would find it): one pass, where a search per rule was quadratic (10,000 rules: 1 s).
            var plannedAt: [PlanKey: Int] = [:]
            var probe = RuleCheck.ConsequenceProbe(plan)
            for (i, p) in plan.rules.enumerated() where plannedAt[PlanKey(p.rule)] == nil { plannedAt[PlanKey(p.rule)] = i }
            for (i, rule) in set.rules.enumerated() {
                let label = rule.id ?? "#\(i)"
                // Every finding made below is about this rule.
                let first = out.count
                defer { for k in first..<out.count where out[k].rule == nil { out[k].rule = label } }
                if let d = ids.note(rule, in: path) { out.append(d) }
                condition(rule.condition, rule: label, elements: elements, guarded: [], into: &out)
                if let p = plannedAt[PlanKey(rule)] {
                    RuleCheck.planFindings(plan.rules[p], in: plan, label: label, at: rule.location, probe: &probe, into: &out)
                }
                for c in rule.consequences where c.type == "add" || c.type == "mod" {
                    attachedXDM(c, rule: label, into: &out)
                }
            }
        }
        return out.map(CheckSeverity.apply)
    }

    /// What identifies a rule's plan: where the rule is, and its id.
    struct PlanKey: Hashable {
        let location: SourceLocation?
        let id: String?
        init(_ r: Rule) {
            location = r.location
            id = r.id
        }
    }

    /// One condition and those under it. `guarded`: keys an enclosing `and` requires to exist (so the
    /// missing-key trap cannot spring).
    func condition(
        _ c: Condition, rule: String, elements: [String: DataElement], guarded: Set<String>, into out: inout [Diagnostic]
    ) {
        let logic = c.kind == .group ? c.definition.groupLogic : nil
        var inner = guarded
        if logic == .and {
            for sub in c.definition.conditions ?? [] where sub.kind == .matcher {
                if sub.definition.matcher.flatMap(Operation.init(code:)) == .exists, let k = sub.definition.key { inner.insert(k) }
            }
        }
        for sub in c.definition.conditions ?? [] {
            condition(sub, rule: rule, elements: elements, guarded: logic == .and ? inner : guarded, into: &out)
        }
        if c.kind == .historical, target != .mobile { RuleCheck.targetHistoryDifferences(c, rule: rule, into: &out) }
        guard c.kind == .matcher, let key = c.definition.key, let code = c.definition.matcher, let op = Operation(code: code)
        else { return }
        var path = key
        var declaredType: DataElement.ValueType?
        if key.hasPrefix("%"), key.hasSuffix("%"), let e = elements[String(key.dropFirst().dropLast())] {
            path = e.path
            declaredType = e.type
        }
        RuleCheck.matcherTraps(c, key: key, path: path, op: op, rule: rule, guarded: guarded, into: &out)
        if target != .mobile { RuleCheck.targetDifferences(c, key: key, path: path, op: op, rule: rule, guarded: guarded, into: &out) }
        guard !path.hasPrefix("~"), let context else { return }
        let leafType = context.xdmType(ofKey: path)
        if leafType == nil, declaredType == nil, context.checksKeys, !context.isExampleKey(path) {
            out.append(
                .warning(
                    .lintUnknownKey,
                    "rule \(rule): key '\(key)' is neither an XDM path of Schemas/, a data element, a ~ token, nor a key seen in the example events",
                    at: c.location))
        }
        guard let leafType, op != .exists, op != .notExist else { return }
        let numeric = leafType.contains("number") || leafType.contains("integer")
        for v in c.definition.values ?? [] {
            if numeric, case .string(let s) = v, op == .equals || op == .notEquals {
                out.append(
                    .warning(
                        .lintTypeMismatch,
                        "rule \(rule): '\(key)' is a \(leafType) in XDM but the value \"\(s)\" is a string, so it is compared as text",
                        at: c.location))
            }
            if leafType == "string", v.numberValue != nil, op != .equals, op != .notEquals {
                out.append(
                    .warning(
                        .lintTypeMismatch, "rule \(rule): '\(key)' is a string in XDM but '\(code)' compares it as a number",
                        at: c.location))
            }
        }
    }

    /// The XDM an `add` or `mod` consequence attaches, against the schemas.
    func attachedXDM(_ c: Consequence, rule: String, into out: inout [Diagnostic]) {
        guard let context, case .object(let data)? = c.detail["eventdata"], case .object(let xdm)? = data["xdm"] else { return }
        // In `mod` a null deletes a field rather than setting it.
        for p in context.xdmProblems(Self.withoutNulls(.object(xdm))).prefix(5) {
            out.append(
                .warning(
                    .lintInvalidXDM,
                    "rule \(rule): consequence \(c.id) attaches XDM that does not fit Schemas/ at xdm\(p.pointer): \(p.message)",
                    at: c.location))
        }
    }

    static func withoutNulls(_ v: Value) -> Value {
        switch v {
        case .object(let o): return .object(ValueObject(o.compactMap { k, x in x.isNull ? nil : (k, withoutNulls(x)) }))
        case .array(let a): return .array(a.map(withoutNulls))
        default: return v
        }
    }
}
