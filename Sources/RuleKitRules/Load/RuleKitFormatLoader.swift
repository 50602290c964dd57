public import RuleKitCore

/// Reads RuleKit's rules format (`docs/rules-format.md`): `when`/`then` rules, `all`/`any` groups,
/// `{key: K, eq: V}` matchers, `add`/`mod`/`dispatch`/`history` consequences and data elements.
///
/// Everything it accepts maps onto the Launch model one to one, so a rule set converts to Launch JSON
/// and back without loss. Like `LaunchRulesLoader`, it is written over `RulesNode`: a document's cursor
/// and a tape's node (JSON, or YAML a tape holds) give the same rules and findings. Unlike the Launch structure, problems here are errors (a rule author wrote
/// this file): an unknown matcher, a wrong value type or an unknown key stops the load, located.
public enum RuleKitFormatLoader {
    static let rootKeys: Set<String> = ["version", "rules", "dataElements", "format"]
    static let ruleKeys: Set<String> = ["id", "name", "description", "enabled", "meta", "when", "then"]
    static let elementKeys: Set<String> = ["path", "type", "description"]

    /// Loads a RuleKit YAML-format document; the rule set is nil when any error was found.
    ///
    /// - Parameter document: the document read.
    /// - Returns: the rules and the findings.
    public static func load(_ document: Document) -> RulesLoadResult { load(root: document.root) }

    /// Loads the rules under `root`: a document's cursor or a tape's node (the same rules and findings).
    static func load(root: some RulesNode) -> RulesLoadResult {
        var ctx = LoaderContext()
        let set = load(root: root, ctx: &ctx)
        return RulesLoadResult(ruleSet: ctx.diagnostics.hasErrors ? nil : set, diagnostics: ctx.diagnostics.sorted, partial: set)
    }

    static func load<N: RulesNode>(root: N, ctx: inout LoaderContext) -> RuleSet? {
        guard root.kind == .object else {
            ctx.error(.rulesStructure, "a rules file must be a mapping with 'rules'", root)
            return nil
        }
        unknownKeysAreErrors(root, known: rootKeys, what: "the rules file", ctx: &ctx)
        var set = RuleSet()
        if let v = root.member("version") {
            if let i = LoaderContext.integer(v.value) {
                set.version = i
            } else {
                ctx.error(.rulesStructure, "'version' must be an integer", v)
            }
        }
        if let des = root.member("dataElements") {
            if des.kind == .object {
                for (name, d) in des.memberNodes { if let e = dataElement(name, d, ctx: &ctx) { set.dataElements.append(e) } }
            } else {
                ctx.error(.rulesStructure, "'dataElements' must be a mapping of name → {path, type}", des)
            }
        }
        guard let rules = root.member("rules") else {
            ctx.error(.rulesStructure, "missing 'rules' (a list)", root)
            return set
        }
        guard rules.kind == .array else {
            ctx.error(.rulesStructure, "'rules' must be a list", rules)
            return set
        }
        var ids: [String: SourceLocation?] = [:]
        for (i, r) in rules.elementNodes.enumerated() {
            guard let rule = self.rule(r, index: i, ctx: &ctx) else { continue }
            if let id = rule.id {
                if let first = ids[id] {
                    ctx.error(
                        .rulesDuplicateID,
                        "duplicate rule id '\(id)'" + (first.map { " (first at \($0.line):\($0.column))" } ?? ""),
                        r.member("id") ?? r)
                } else {
                    ids[id] = rule.location
                }
            }
            set.rules.append(rule)
        }
        return set
    }

    static func unknownKeysAreErrors(_ c: some RulesNode, known: Set<String>, what: String, ctx: inout LoaderContext) {
        for (k, v) in c.memberNodes where !known.contains(k) {
            let suggestion = closest(k, in: known)
            let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
            ctx.diagnostics.append(
                .error(
                    .rulesUnknownKey, "unknown key '\(k)' in \(what)\(hint)",
                    at: v.keyLocation, pointer: v.pointer
                ).suggesting(suggestion))
        }
    }

    static func dataElement(_ name: String, _ d: some RulesNode, ctx: inout LoaderContext) -> DataElement? {
        if let path = d.string { return DataElement(name: name, path: path, location: d.keyLocation) }
        guard d.kind == .object else {
            ctx.error(.rulesStructure, "data element '\(name)' must be a path or {path, type}", d)
            return nil
        }
        unknownKeysAreErrors(d, known: elementKeys, what: "data element '\(name)'", ctx: &ctx)
        guard let path = d.member("path")?.string else {
            ctx.error(.rulesStructure, "data element '\(name)' needs a string 'path'", d)
            return nil
        }
        var type = DataElement.ValueType.any
        if let t = d.member("type") {
            if let s = t.string, let vt = DataElement.ValueType(rawValue: s) {
                type = vt
            } else {
                ctx.error(.rulesStructure, "data element type must be one of string, int, double, bool, any", t)
            }
        }
        return DataElement(
            name: name, path: path, type: type, description: d.member("description")?.string,
            location: d.keyLocation)
    }

    static func rule<N: RulesNode>(_ r: N, index: Int, ctx: inout LoaderContext) -> Rule? {
        guard r.kind == .object else {
            ctx.error(.rulesStructure, "rule #\(index) must be a mapping", r)
            return nil
        }
        unknownKeysAreErrors(r, known: ruleKeys, what: "a rule", ctx: &ctx)
        func string(_ k: String, _ ctx: inout LoaderContext) -> String? {
            guard let c = r.member(k) else { return nil }
            if let s = c.string { return s }
            if k == "id", c.kind == .int, case .int(let i) = c.value { return String(i) }
            ctx.error(.rulesStructure, "'\(k)' must be a string", c)
            return nil
        }
        let id = string("id", &ctx)
        let label = id ?? "rule-\(index + 1)"
        var enabled = true
        if let e = r.member("enabled") {
            if case .bool(let b) = e.value { enabled = b } else { ctx.error(.rulesStructure, "'enabled' must be true or false", e) }
        }
        var meta: ValueObject?
        if let m = r.member("meta") {
            if case .object(let o) = m.value { meta = o } else { ctx.error(.rulesStructure, "'meta' must be a mapping", m) }
        }
        guard let when = r.member("when") else {
            ctx.error(.rulesStructure, "rule \(label) has no 'when' (its condition)", r)
            return nil
        }
        let condition = self.condition(when, ctx: &ctx)
        var consequences: [Consequence] = []
        if let then = r.member("then") {
            if then.kind == .array {
                for (j, c) in then.elementNodes.enumerated() {
                    if let q = consequence(c, defaultID: "\(label)-\(j + 1)", ctx: &ctx) { consequences.append(q) }
                }
            } else {
                ctx.error(.rulesStructure, "'then' must be a list of consequences", then)
            }
        } else {
            ctx.error(.rulesStructure, "rule \(label) has no 'then' (its consequences)", r)
        }
        guard let condition else { return nil }
        return Rule(
            id: id, name: string("name", &ctx), description: string("description", &ctx), enabled: enabled,
            meta: meta, condition: condition, consequences: consequences, location: r.location)
    }

    // MARK: conditions

    static let matcherExtras: Set<String> = ["key", "matcher", "values"]

    static func condition<N: RulesNode>(_ c: N, ctx: inout LoaderContext) -> Condition? {
        if c.kind == .array {
            // A list is an implicit `all`.
            let elements = c.elementNodes
            let children = elements.compactMap { condition($0, ctx: &ctx) }
            return children.count == elements.count ? .group("and", children, at: c.location) : nil
        }
        guard c.kind == .object else {
            ctx.error(.rulesStructure, "a condition must be a mapping (all, any, a matcher or history)", c)
            return nil
        }
        if c.member("type") != nil && c.member("definition") != nil {
            // The Launch form, for anything the short forms cannot say.
            return LaunchRulesLoader.loadCondition(c, ctx: &ctx)
        }
        if let all = c.member("all") ?? c.member("any") {
            let logic = c.member("all") != nil ? "and" : "or"
            unknownKeysAreErrors(
                c, known: [logic == "and" ? "all" : "any"], what: "an '\(logic == "and" ? "all" : "any")' group", ctx: &ctx)
            guard all.kind == .array else {
                ctx.error(.rulesStructure, "'\(logic == "and" ? "all" : "any")' takes a list of conditions", all)
                return nil
            }
            let elements = all.elementNodes
            let children = elements.compactMap { condition($0, ctx: &ctx) }
            guard children.count == elements.count else { return nil }
            return .group(logic, children, at: c.location)
        }
        if let g = c.member("group") {
            guard let logic = g.member("logic")?.string, let cs = g.member("conditions"), cs.kind == .array else {
                ctx.error(.rulesStructure, "'group' needs 'logic' (a string) and 'conditions' (a list)", g)
                return nil
            }
            let elements = cs.elementNodes
            let children = elements.compactMap { condition($0, ctx: &ctx) }
            guard children.count == elements.count else { return nil }
            if logic != "and" && logic != "or" {
                ctx.warning(.rulesUnknownLogic, "group logic '\(logic)' is neither 'and' nor 'or': the group is always false", g)
            }
            return .group(logic, children, at: c.location)
        }
        if let h = c.member("history") { return history(h, at: c, ctx: &ctx) }
        if let key = c.member("key") { return matcher(c, key: key, ctx: &ctx) }
        let hint = closest(c.keys.first ?? "", in: ["all", "any", "key", "history", "group"]).map { " (did you mean '\($0)'?)" } ?? ""
        ctx.error(
            .rulesStructure,
            "a condition needs 'all', 'any', 'key' (a matcher), 'history' or 'group'\(hint)", c)
        return nil
    }

    static func matcher<N: RulesNode>(_ c: N, key: N, ctx: inout LoaderContext) -> Condition? {
        guard let keyText = key.string else {
            ctx.error(.rulesBadValue, "a matcher 'key' must be a string", key)
            return nil
        }
        if let m = c.member("matcher") {
            // The explicit form: {key, matcher, values}.
            unknownKeysAreErrors(c, known: matcherExtras, what: "a matcher", ctx: &ctx)
            guard let code = m.string else {
                ctx.error(.rulesBadValue, "'matcher' must be a string", m)
                return nil
            }
            if Operation(code: code) == nil { unknownMatcher(code, m, ctx: &ctx) }
            var values: [Value]?
            if let vs = c.member("values") {
                guard vs.kind == .array, case .array(let a) = vs.value else {
                    ctx.error(.rulesBadValue, "'values' must be a list", vs)
                    return nil
                }
                values = a
            }
            return Condition(kind: .matcher, definition: .init(key: keyText, matcher: code, values: values), location: c.location)
        }
        let ops = c.memberNodes.filter { $0.key != "key" }
        guard ops.count == 1, let (code, v) = ops.first else {
            if ops.isEmpty {
                ctx.error(.rulesStructure, "matcher on '\(keyText)' has no operator (eq, ne, gt, ge, lt, le, co, nc, sw, ew, ex, nx)", c)
            } else {
                ctx.error(.rulesStructure, "a matcher takes one operator; found \(ops.map(\.key).joined(separator: ", "))", c)
            }
            return nil
        }
        guard let op = Operation(code: code) else {
            unknownMatcher(code, v, ctx: &ctx)
            return nil
        }
        let value = v.value
        var values: [Value]
        switch value {
        case .array(let a): values = a
        default: values = [value]
        }
        if op == .exists || op == .notExist {
            // `ex: true` is the readable spelling of "no values".
            if value == .bool(true) { values = [] }
        } else {
            for e in (v.kind == .array ? v.elementNodes : [v]) {
                switch e.value {
                case .string, .int, .double, .bool: break
                default:
                    ctx.error(.rulesBadValue, "a value of '\(code)' must be a string, number or boolean, not \(e.value.kind)", e)
                }
            }
        }
        return Condition(kind: .matcher, definition: .init(key: keyText, matcher: code, values: values), location: c.location)
    }

    static func unknownMatcher(_ code: String, _ at: some RulesNode, ctx: inout LoaderContext) {
        let suggestion = Operation.suggestion(for: code)
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        ctx.diagnostics.append(
            .error(
                .rulesUnknownMatcher, "unknown matcher '\(code)'\(hint)",
                at: at.keyLocation, pointer: at.pointer
            ).suggesting(suggestion))
    }

    static func history<N: RulesNode>(_ h: N, at c: N, ctx: inout LoaderContext) -> Condition? {
        guard h.kind == .object else {
            ctx.error(.rulesStructure, "'history' takes {events, matcher, value, from?, to?, searchType?}", h)
            return nil
        }
        unknownKeysAreErrors(
            h, known: ["events", "matcher", "value", "from", "to", "searchType"], what: "a history condition",
            ctx: &ctx)
        guard let def = LaunchRulesLoader.loadDefinition(h, ctx: &ctx) else { return nil }
        if def.events == nil { ctx.error(.rulesStructure, "a history condition needs 'events' (a list of masks)", h) }
        if let code = def.matcher, Operation(code: code) == nil { unknownMatcher(code, h.member("matcher") ?? h, ctx: &ctx) }
        if def.matcher == nil { ctx.error(.rulesStructure, "a history condition needs a 'matcher'", h) }
        if def.value.flatMap(LoaderContext.integer) == nil { ctx.error(.rulesStructure, "a history condition needs an integer 'value'", h) }
        if let s = def.searchType, SearchType(rawValue: s) == nil {
            ctx.error(.rulesBadValue, "searchType must be any, ordered or mostRecent", h.member("searchType") ?? h)
        }
        return Condition(kind: .historical, definition: def, location: c.location)
    }

    // MARK: consequences

    static func consequence<N: RulesNode>(_ c: N, defaultID: String, ctx: inout LoaderContext) -> Consequence? {
        guard c.kind == .object else {
            ctx.error(.rulesStructure, "a consequence must be a mapping", c)
            return nil
        }
        var id = defaultID
        if let i = c.member("id") {
            if let s = i.string { id = s } else { ctx.error(.rulesStructure, "consequence 'id' must be a string", i) }
        }
        func objectArg(_ k: String, _ ctx: inout LoaderContext) -> ValueObject? {
            guard let a = c.member(k) else { return nil }
            if case .object(let x) = a.value { return x }
            ctx.error(.rulesStructure, "'\(k)' takes a mapping", a)
            return nil
        }
        let shorthand = ["add", "mod", "dispatch", "history"].filter { c.member($0) != nil }
        if shorthand.count > 1 || (shorthand.count == 1 && c.member("type") != nil) {
            ctx.error(.rulesStructure, "a consequence has one kind; found \(shorthand.joined(separator: ", "))", c)
            return nil
        }
        if let kind = shorthand.first {
            unknownKeysAreErrors(c, known: ["id", kind], what: "a '\(kind)' consequence", ctx: &ctx)
            guard let arg = objectArg(kind, &ctx) else { return nil }
            switch kind {
            case "add", "mod":
                return Consequence(id: id, type: kind, detail: ["eventdata": .object(arg)], location: c.location)
            case "dispatch":
                guard let a = c.member("dispatch") else { return nil }
                unknownKeysAreErrors(a, known: ["type", "source", "action", "data"], what: "a dispatch", ctx: &ctx)
                var detail = ValueObject()
                for (k, target) in [("type", "type"), ("source", "source"), ("action", "eventdataaction")] {
                    guard case .string(let s)? = arg[k] else {
                        ctx.error(.rulesStructure, "dispatch needs a string '\(k)'", a)
                        continue
                    }
                    detail[target] = .string(s)
                }
                if let action = arg["action"]?.stringValue, action != "copy" && action != "new" {
                    ctx.error(.rulesBadValue, "dispatch action must be copy or new, not '\(action)'", a.member("action") ?? a)
                }
                if let d = arg["data"] { detail["eventdata"] = d }
                return Consequence(id: id, type: "dispatch", detail: detail, location: c.location)
            default:  // history
                guard let a = c.member("history") else { return nil }
                unknownKeysAreErrors(a, known: ["operation", "content"], what: "a history consequence", ctx: &ctx)
                guard case .string(let op)? = arg["operation"], op == "insert" || op == "insertIfNotExists" else {
                    ctx.error(.rulesBadValue, "history operation must be insert or insertIfNotExists", a)
                    return nil
                }
                guard case .object(let content)? = arg["content"], !content.isEmpty else {
                    ctx.error(.rulesBadValue, "history content must be a non-empty mapping", a)
                    return nil
                }
                let detail: ValueObject = [
                    "id": .string(id), "schema": .string(RulesEventNames.historySchema),
                    "data": ["operation": .string(op), "content": .object(content)],
                ]
                return Consequence(id: id, type: "schema", detail: detail, location: c.location)
            }
        }
        guard let type = c.member("type")?.string else {
            ctx.error(.rulesStructure, "a consequence needs add, mod, dispatch, history, or a 'type' with a 'detail'", c)
            return nil
        }
        unknownKeysAreErrors(c, known: ["id", "type", "detail"], what: "a consequence", ctx: &ctx)
        return Consequence(id: id, type: type, detail: objectArg("detail", &ctx) ?? [:], location: c.location)
    }
}

/// Loads either format, telling them apart by their rules: Launch rules have `condition` and
/// `consequences`, RuleKit rules `when` and `then`.
public enum RuleSetLoader {
    /// Which format a document is written in.
    public enum Format: String, Sendable {
        case launch, rulekit
    }

    /// The document's format: RuleKit when it has `dataElements`, `format`, or a rule with `when`/`then`; Launch otherwise.
    ///
    /// - Parameter document: the document read.
    /// - Returns: its format.
    public static func format(of document: Document) -> Format { format(of: document.root) }

    static func format(of root: some RulesNode) -> Format {
        guard root.kind == .object else { return .launch }
        if root.member("dataElements") != nil || root.member("format") != nil { return .rulekit }
        guard let rules = root.member("rules"), rules.kind == .array else { return .launch }
        var found = Format.launch
        rules.forEachElement { _, r in
            if found == .launch && r.kind == .object && (r.member("when") != nil || r.member("then") != nil) {
                found = .rulekit
            }
        }
        return found
    }

    /// Reads either format from JSON text, with every problem located (line, column, JSON pointer).
    ///
    /// The text is read into a tape with its nodes' positions and loaded from there, with no `Value` tree;
    /// a text the tape does not take (not an object, not JSON, a key with an escape or repeated in an
    /// object), from a document with a source map, which gives the same rules and findings (or the error).
    ///
    /// - Parameters:
    ///   - bytes: the JSON text.
    ///   - file: its name, in findings.
    ///   - limits: the reader's bounds.
    /// - Returns: the rules and the findings.
    /// - Throws: `DiagnosticError` when the text is not JSON (or is over `limits`).
    public static func load(json bytes: [UInt8], file: String = "<input>", limits: ReaderLimits = .default)
        throws(DiagnosticError) -> RulesLoadResult
    {
        if let document = TapeRulesDocument(bytes: bytes, file: file, limits: limits) { return load(document) }
        return load(try JSONReader.read(bytes, file: file, limits: limits, keepSourceMap: true))
    }

    /// Loads a tape read with its nodes' positions (`YAMLReader.tape` gives one for YAML) in whichever
    /// format it is written; nil when the tape kept no positions.
    ///
    /// - Parameters:
    ///   - tape: the tape, read with positions.
    ///   - file: its name, in findings.
    /// - Returns: the rules and the findings, or nil.
    public static func load(tape: JSONTape, file: String) -> RulesLoadResult? {
        TapeRulesDocument(tape: tape, file: file).map(load)
    }

    static func load(_ document: TapeRulesDocument) -> RulesLoadResult {
        document.withRoot { root in
            let found = format(of: root)
            var result =
                switch found {
                case .launch: LaunchRulesLoader.load(root: root)
                case .rulekit: RuleKitFormatLoader.load(root: root)
                }
            result.format = found
            return result
        }
    }

    /// Loads a document in whichever format it is written.
    ///
    /// - Parameter document: the document read.
    /// - Returns: the rules and the findings.
    public static func load(_ document: Document) -> RulesLoadResult {
        let found = format(of: document)
        var result =
            switch found {
            case .launch: LaunchRulesLoader.load(document)
            case .rulekit: RuleKitFormatLoader.load(document)
            }
        result.format = found
        return result
    }
}
