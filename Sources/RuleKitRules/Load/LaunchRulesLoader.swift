public import RuleKitCore

/// Reads the Adobe Launch `rules.json` structure (from JSON or from YAML syntax) into a `RuleSet`.
///
/// Structure follows the reference decoder: a wrong type anywhere in the root, a rule, a condition or a
/// typed definition field makes the whole file unusable (every such problem is reported, located); a
/// consequence without a string `id`, a string `type` and an object `detail` is dropped with a warning
/// and its rule kept. Unknown keys are ignored, and reported as warnings.
///
/// ```swift
/// let set = try LaunchRulesLoader.load(json: bytes, file: "rules.json").get()
/// ```
public enum LaunchRulesLoader {
    package static let rootKeys: Set<String> = ["version", "rules"]
    /// `id`, `name`, `description` and `enabled` are RuleKit's own rule fields, accepted here too.
    package static let ruleKeys: Set<String> = ["condition", "consequences", "meta", "id", "name", "description", "enabled"]
    package static let conditionKeys: Set<String> = ["type", "definition"]
    package static let definitionKeys: Set<String> = [
        "logic", "conditions", "key", "matcher", "values", "events", "value",
        "from", "to", "searchType",
    ]
    package static let consequenceKeys: Set<String> = ["id", "type", "detail"]

    /// Loads a Launch `rules.json` document; the rule set is nil when any error was found.
    ///
    /// - Parameter document: the document read.
    /// - Returns: the rules and the findings.
    public static func load(_ document: Document) -> RulesLoadResult {
        load(root: document.root)
    }

    /// Reads Launch rules from JSON text, so every problem is reported with its line, column and JSON
    /// pointer.
    ///
    /// The text is read into a tape with its nodes' positions and loaded from there, with no `Value` tree;
    /// a text the tape does not take (not an object, not JSON, a key with an escape or repeated in an
    /// object) is read as a document with a source map instead, which gives the same rules and findings,
    /// or the reader's error.
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
        if let document = TapeRulesDocument(bytes: bytes, file: file, limits: limits) {
            return document.withRoot { load(root: $0) }
        }
        return load(try JSONReader.read(bytes, file: file, limits: limits, keepSourceMap: true))
    }

    static func load<N: RulesNode>(root: N) -> RulesLoadResult {
        var ctx = LoaderContext()
        let set = load(root: root, ctx: &ctx)
        let diags = ctx.diagnostics.sorted
        return RulesLoadResult(ruleSet: ctx.diagnostics.hasErrors ? nil : set, diagnostics: diags, partial: set)
    }

    static func load<N: RulesNode>(root: N, ctx: inout LoaderContext) -> RuleSet? {
        guard root.kind == .object else {
            ctx.error(.rulesStructure, "a rules file must be an object with 'version' and 'rules'", root)
            return nil
        }
        ctx.unknownKeys(root, known: rootKeys, what: "the rules root")
        var version: Int64 = 0
        if let v = root.member("version") {
            if let i = LoaderContext.integer(v.value) {
                version = i
            } else {
                ctx.error(.rulesStructure, "'version' must be an integer, not \(v.kind)", v)
            }
        } else {
            ctx.error(.rulesStructure, "missing 'version' (an integer)", root)
        }
        var rules: [Rule] = []
        if let r = root.member("rules") {
            if r.kind == .array {
                r.forEachElement { i, ruleNode in
                    if let rule = loadRule(ruleNode, index: i, ctx: &ctx) { rules.append(rule) }
                }
            } else {
                ctx.error(.rulesStructure, "'rules' must be an array, not \(r.kind)", r)
            }
        } else {
            ctx.error(.rulesStructure, "missing 'rules' (an array)", root)
        }
        return RuleSet(version: version, rules: rules)
    }

    static func loadRule<N: RulesNode>(_ c: N, index: Int, ctx: inout LoaderContext) -> Rule? {
        guard c.kind == .object else {
            ctx.error(.rulesStructure, "rule #\(index) must be an object, not \(c.kind)", c)
            return nil
        }
        // One pass over the members; the parts below them are read once the rule's fields are known.
        var metaNode: N.Member?
        var conditionNode: N.Member?
        var consequencesNode: N.Member?
        var enabledNode: N.Member?
        var id: String?
        var name: String?
        var description: String?
        c.forEachMember { k, v in
            switch k {
            case "meta": metaNode = v
            case "condition": conditionNode = v
            case "consequences": consequencesNode = v
            case "enabled": enabledNode = v
            case "id": id = v.string
            case "name": name = v.string
            case "description": description = v.string
            default: ctx.unknownKey(k, c, v, known: ruleKeys, what: "a rule")
            }
        }
        var meta: ValueObject?
        if let m = metaNode {
            switch m.kind {
            case .object: meta = m.value.objectValue
            case .null: meta = nil
            default: ctx.error(.rulesStructure, "'meta' must be an object, not \(m.kind)", c.node(m))
            }
        }
        var condition: Condition?
        if let cc = conditionNode {
            condition = loadCondition(c.node(cc), ctx: &ctx)
        } else {
            ctx.error(.rulesStructure, "rule #\(index) has no 'condition'", c)
        }
        var consequences: [Consequence] = []
        if let cm = consequencesNode {
            let cs = c.node(cm)
            if cs.kind == .array {
                cs.forEachElement { _, e in
                    if let q = loadConsequence(e, ctx: &ctx) { consequences.append(q) }
                }
            } else {
                ctx.error(.rulesStructure, "'consequences' must be an array, not \(cs.kind)", cs)
            }
        } else {
            ctx.error(.rulesStructure, "rule #\(index) has no 'consequences'", c)
        }
        guard let condition else { return nil }
        var enabled: Bool?
        if let e = enabledNode {
            if case .bool(let b) = e.value {
                enabled = b
            } else {
                ctx.error(.rulesStructure, "'enabled' must be true or false", c.node(e))
            }
        }
        return rule(
            meta: meta, condition: condition, consequences: consequences, location: c.location,
            id: id, name: name, description: description, enabled: enabled)
    }

    /// A rule from its parts as read (`meta` as written, before its null entries go): shared by the
    /// document loader and the JSON fast path, so both build the same rule.
    static func rule(
        meta written: ValueObject?, condition: Condition, consequences: [Consequence],
        location: SourceLocation?, id: String?, name: String?, description: String?,
        enabled: Bool?
    ) -> Rule {
        guard var meta = written else {
            // No meta (the usual Launch rule): the rule is made whole, with no copy to adjust.
            return Rule(
                id: id, name: name, description: description, enabled: enabled ?? true, meta: nil,
                condition: condition, consequences: consequences, location: location)
        }
        // The reference drops null entries of meta.
        for k in meta.keys where meta[k] == .null { meta[k] = nil }
        var rule = Rule(condition: condition, consequences: consequences, location: location)
        // RuleKit's own fields travel in meta when a YAML rule set is exported to Launch JSON.
        if case .string(let id)? = meta["id"] {
            rule.id = id
            meta["id"] = nil
        }
        if case .string(let n)? = meta["name"] {
            rule.name = n
            meta["name"] = nil
        }
        if case .string(let d)? = meta["description"] {
            rule.description = d
            meta["description"] = nil
        }
        // A meta left empty by that is dropped; one written empty (`{}`) is kept.
        rule.meta = meta.isEmpty && written?.isEmpty == false ? nil : meta
        if let id { rule.id = id }
        if let name { rule.name = name }
        if let description { rule.description = description }
        if let enabled { rule.enabled = enabled }
        return rule
    }

    static func loadCondition<N: RulesNode>(_ c: N, ctx: inout LoaderContext) -> Condition? {
        guard c.kind == .object else {
            ctx.error(.rulesStructure, "a condition must be an object, not \(c.kind)", c)
            return nil
        }
        // One pass over the members (no lookup per known key): this runs for every condition.
        var typeNode: N.Member?
        var definitionNode: N.Member?
        c.forEachMember { k, v in
            switch k {
            case "type": typeNode = v
            case "definition": definitionNode = v
            default: ctx.unknownKey(k, c, v, known: conditionKeys, what: "a condition")
            }
        }
        var kind: Condition.Kind?
        if let t = typeNode {
            if let s = t.string, let k = Condition.Kind(rawValue: s) {
                kind = k
            } else {
                let hint = t.string.flatMap { closest($0, in: Condition.Kind.allCases.map(\.rawValue)) }
                ctx.error(
                    .rulesStructure,
                    "condition 'type' must be group, matcher or historical, not \(describe(t.value))"
                        + (hint.map { " (did you mean '\($0)'?)" } ?? ""), c.node(t))
            }
        } else {
            ctx.error(.rulesStructure, "a condition needs a 'type' (group, matcher or historical)", c)
        }
        guard let d = definitionNode else {
            ctx.error(.rulesStructure, "a condition needs a 'definition'", c)
            return nil
        }
        guard let definition = loadDefinition(c.node(d), ctx: &ctx), let kind else { return nil }
        return Condition(kind: kind, definition: definition, location: c.location)
    }

    static func describe(_ v: Value) -> String {
        if case .string(let s) = v { return "'\(s)'" }
        return v.kind.rawValue
    }

    static func loadDefinition<N: RulesNode>(_ d: N, ctx: inout LoaderContext) -> Condition.Definition? {
        guard d.kind == .object else {
            ctx.error(.rulesStructure, "'definition' must be an object, not \(d.kind)", d)
            return nil
        }
        var def = Condition.Definition()
        var ok = true
        func string(_ key: String, _ v: N.Member, _ ctx: inout LoaderContext) -> String? {
            if let s = v.string { return s }
            ctx.error(.rulesStructure, "'\(key)' must be a string, not \(v.kind)", d.node(v))
            ok = false
            return nil
        }
        func int(_ key: String, _ v: N.Member, _ ctx: inout LoaderContext) -> Int64? {
            if let n = LoaderContext.integer(v.value) { return n }
            ctx.error(.rulesStructure, "'\(key)' must be an integer, not \(v.kind)", d.node(v))
            ok = false
            return nil
        }
        // One pass over the members; a null member is the same as an absent one.
        d.forEachMember { k, v in
            if v.isNull {
                if !definitionKeys.contains(k) {
                    ctx.unknownKey(k, d, v, known: definitionKeys, what: "a condition definition")
                }
                return
            }
            switch k {
            case "logic": def.logic = string(k, v, &ctx)
            case "key": def.key = string(k, v, &ctx)
            case "matcher": def.matcher = string(k, v, &ctx)
            case "searchType": def.searchType = string(k, v, &ctx)
            case "from": def.from = int(k, v, &ctx)
            case "to": def.to = int(k, v, &ctx)
            case "value": def.value = v.value
            case "values":
                if case .array(let list) = v.value {
                    def.values = list
                } else {
                    ctx.error(.rulesStructure, "'values' must be an array, not \(v.kind)", d.node(v))
                    ok = false
                }
            case "events":
                if v.kind == .array {
                    var list: [ValueObject] = []
                    d.node(v).forEachElement { _, e in
                        if e.kind == .object, let o = e.value.objectValue {
                            list.append(o)
                        } else {
                            ctx.error(.rulesStructure, "each of 'events' must be an object, not \(e.kind)", e)
                            ok = false
                        }
                    }
                    def.events = list
                } else {
                    ctx.error(.rulesStructure, "'events' must be an array of objects, not \(v.kind)", d.node(v))
                    ok = false
                }
            case "conditions":
                if v.kind == .array {
                    var list: [Condition] = []
                    d.node(v).forEachElement { _, e in
                        if let x = loadCondition(e, ctx: &ctx) { list.append(x) } else { ok = false }
                    }
                    def.conditions = list
                } else {
                    ctx.error(.rulesStructure, "'conditions' must be an array, not \(v.kind)", d.node(v))
                    ok = false
                }
            default:
                ctx.unknownKey(k, d, v, known: definitionKeys, what: "a condition definition")
            }
        }
        return ok ? def : nil
    }

    static func loadConsequence<N: RulesNode>(_ c: N, ctx: inout LoaderContext) -> Consequence? {
        guard c.kind == .object else {
            ctx.error(.rulesStructure, "a consequence must be an object, not \(c.kind)", c)
            return nil
        }
        var id: String?
        var type: String?
        var detail: ValueObject?
        c.forEachMember { k, v in
            switch k {
            case "id": id = v.string
            case "type": type = v.string
            case "detail": detail = v.kind == .object ? v.value.objectValue : nil
            default: ctx.unknownKey(k, c, v, known: consequenceKeys, what: "a consequence")
            }
        }
        guard let id else {
            ctx.warning(.rulesDroppedConsequence, "consequence dropped: 'id' must be a string (the reference skips it)", c)
            return nil
        }
        guard let type else {
            ctx.warning(
                .rulesDroppedConsequence,
                "consequence '\(id)' dropped: 'type' must be a string (the reference skips it)", c)
            return nil
        }
        guard let detail else {
            ctx.warning(
                .rulesDroppedConsequence,
                "consequence '\(id)' dropped: 'detail' must be an object (the reference skips it)", c)
            return nil
        }
        return Consequence(id: id, type: type, detail: detail, location: c.location)
    }
}
