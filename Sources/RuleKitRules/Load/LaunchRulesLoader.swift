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
    static let rootKeys: Set<String> = ["version", "rules"]
    /// `id`, `name`, `description` and `enabled` are RuleKit's own rule fields, accepted here too.
    static let ruleKeys: Set<String> = ["condition", "consequences", "meta", "id", "name", "description", "enabled"]
    static let conditionKeys: Set<String> = ["type", "definition"]
    static let definitionKeys: Set<String> = [
        "logic", "conditions", "key", "matcher", "values", "events", "value",
        "from", "to", "searchType",
    ]
    static let consequenceKeys: Set<String> = ["id", "type", "detail"]

    /// Loads a Launch `rules.json` document; the rule set is nil when any error was found.
    public static func load(_ document: Document) -> RulesLoadResult {
        var ctx = LoaderContext()
        let set = load(root: document.root, ctx: &ctx)
        let diags = ctx.diagnostics.sorted
        return RulesLoadResult(ruleSet: ctx.diagnostics.hasErrors ? nil : set, diagnostics: diags)
    }

    /// Reads Launch rules from JSON text, as a document with a source map, so every problem is reported
    /// with its line, column and JSON pointer.
    ///
    /// - Throws: `DiagnosticError` when the text is not JSON (or is over `limits`).
    public static func load(json bytes: [UInt8], file: String = "<input>", limits: ReaderLimits = .default)
        throws(DiagnosticError) -> RulesLoadResult
    {
        load(try JSONReader.read(bytes, file: file, limits: limits, keepSourceMap: true))
    }

    static func load(root: ValueCursor, ctx: inout LoaderContext) -> RuleSet? {
        guard case .object = root.value else {
            ctx.error(.rulesStructure, "a rules file must be an object with 'version' and 'rules'", root)
            return nil
        }
        ctx.unknownKeys(root, known: rootKeys, what: "the rules root")
        var version: Int64 = 0
        if let v = root["version"] {
            if let i = LoaderContext.integer(v.value) {
                version = i
            } else {
                ctx.error(.rulesStructure, "'version' must be an integer, not \(v.value.kind)", v)
            }
        } else {
            ctx.error(.rulesStructure, "missing 'version' (an integer)", root)
        }
        var rules: [Rule] = []
        if let r = root["rules"] {
            if case .array(let a) = r.value {
                rules.reserveCapacity(a.count)
                r.forEachElement { i, ruleCursor in
                    if let rule = loadRule(ruleCursor, index: i, ctx: &ctx) { rules.append(rule) }
                }
            } else {
                ctx.error(.rulesStructure, "'rules' must be an array, not \(r.value.kind)", r)
            }
        } else {
            ctx.error(.rulesStructure, "missing 'rules' (an array)", root)
        }
        return RuleSet(version: version, rules: rules)
    }

    static func loadRule(_ c: ValueCursor, index: Int, ctx: inout LoaderContext) -> Rule? {
        guard case .object = c.value else {
            ctx.error(.rulesStructure, "rule #\(index) must be an object, not \(c.value.kind)", c)
            return nil
        }
        // Members are read as values; a member's cursor is made only to walk below it or to report it.
        var metaAt = -1
        var conditionAt = -1
        var consequencesAt = -1
        var enabledAt = -1
        var enabledValue: Value?
        var id: String?
        var name: String?
        var description: String?
        c.forEachMemberValue { k, v, i in
            switch k {
            case "meta": metaAt = i
            case "condition": conditionAt = i
            case "consequences": consequencesAt = i
            case "enabled":
                enabledAt = i
                enabledValue = v
            case "id": if case .string(let x) = v { id = x }
            case "name": if case .string(let x) = v { name = x }
            case "description": if case .string(let x) = v { description = x }
            default: ctx.unknownKey(k, in: c, at: i, known: ruleKeys, what: "a rule")
            }
        }
        let metaCursor = c.member(at: metaAt)
        let conditionCursor = c.member(at: conditionAt)
        let consequencesCursor = c.member(at: consequencesAt)
        var meta: ValueObject?
        if let m = metaCursor {
            switch m.value {
            case .object(let o): meta = o
            case .null: meta = nil
            default: ctx.error(.rulesStructure, "'meta' must be an object, not \(m.value.kind)", m)
            }
        }
        var condition: Condition?
        if let cc = conditionCursor {
            condition = loadCondition(cc, ctx: &ctx)
        } else {
            ctx.error(.rulesStructure, "rule #\(index) has no 'condition'", c)
        }
        var consequences: [Consequence] = []
        if let cs = consequencesCursor {
            if case .array(let a) = cs.value {
                consequences.reserveCapacity(a.count)
                cs.forEachElement { _, e in
                    if let q = loadConsequence(e, ctx: &ctx) { consequences.append(q) }
                }
            } else {
                ctx.error(.rulesStructure, "'consequences' must be an array, not \(cs.value.kind)", cs)
            }
        } else {
            ctx.error(.rulesStructure, "rule #\(index) has no 'consequences'", c)
        }
        guard let condition else { return nil }
        var enabled: Bool?
        if let e = enabledValue {
            if case .bool(let b) = e {
                enabled = b
            } else {
                ctx.error(.rulesStructure, "'enabled' must be true or false", c.member(at: enabledAt)!)
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

    static func loadCondition(_ c: ValueCursor, ctx: inout LoaderContext) -> Condition? {
        guard case .object = c.value else {
            ctx.error(.rulesStructure, "a condition must be an object, not \(c.value.kind)", c)
            return nil
        }
        // One pass over the members (no lookup per known key): this runs for every condition.
        var typeValue: Value?
        var typeAt = -1
        var definitionAt = -1
        c.forEachMemberValue { k, v, i in
            switch k {
            case "type":
                typeValue = v
                typeAt = i
            case "definition": definitionAt = i
            default: ctx.unknownKey(k, in: c, at: i, known: conditionKeys, what: "a condition")
            }
        }
        var kind: Condition.Kind?
        if let t = typeValue {
            if case .string(let s) = t, let k = Condition.Kind(rawValue: s) {
                kind = k
            } else {
                let hint = t.stringValue.flatMap { closest($0, in: Condition.Kind.allCases.map(\.rawValue)) }
                ctx.error(
                    .rulesStructure,
                    "condition 'type' must be group, matcher or historical, not \(describe(t))"
                        + (hint.map { " (did you mean '\($0)'?)" } ?? ""), c.member(at: typeAt)!)
            }
        } else {
            ctx.error(.rulesStructure, "a condition needs a 'type' (group, matcher or historical)", c)
        }
        guard let d = c.member(at: definitionAt) else {
            ctx.error(.rulesStructure, "a condition needs a 'definition'", c)
            return nil
        }
        guard let definition = loadDefinition(d, ctx: &ctx), let kind else { return nil }
        return Condition(kind: kind, definition: definition, location: c.location)
    }

    static func describe(_ v: Value) -> String {
        if case .string(let s) = v { return "'\(s)'" }
        return v.kind.rawValue
    }

    static func loadDefinition(_ d: ValueCursor, ctx: inout LoaderContext) -> Condition.Definition? {
        guard case .object = d.value else {
            ctx.error(.rulesStructure, "'definition' must be an object, not \(d.value.kind)", d)
            return nil
        }
        var def = Condition.Definition()
        var ok = true
        func string(_ key: String, _ v: Value, _ i: Int, _ ctx: inout LoaderContext) -> String? {
            if case .string(let s) = v { return s }
            ctx.error(.rulesStructure, "'\(key)' must be a string, not \(v.kind)", d.member(at: i)!)
            ok = false
            return nil
        }
        func int(_ key: String, _ v: Value, _ i: Int, _ ctx: inout LoaderContext) -> Int64? {
            if let n = LoaderContext.integer(v) { return n }
            ctx.error(.rulesStructure, "'\(key)' must be an integer, not \(v.kind)", d.member(at: i)!)
            ok = false
            return nil
        }
        // One pass over the members; a null member is the same as an absent one. Scalars are read as
        // values; a cursor is made only to walk a list or to report a problem.
        d.forEachMemberValue { k, v, i in
            if v.isNull {
                if !definitionKeys.contains(k) {
                    ctx.unknownKey(k, in: d, at: i, known: definitionKeys, what: "a condition definition")
                }
                return
            }
            switch k {
            case "logic": def.logic = string(k, v, i, &ctx)
            case "key": def.key = string(k, v, i, &ctx)
            case "matcher": def.matcher = string(k, v, i, &ctx)
            case "searchType": def.searchType = string(k, v, i, &ctx)
            case "from": def.from = int(k, v, i, &ctx)
            case "to": def.to = int(k, v, i, &ctx)
            case "value": def.value = v
            case "values":
                if case .array(let a) = v {
                    def.values = a
                } else {
                    ctx.error(.rulesStructure, "'values' must be an array, not \(v.kind)", d.member(at: i)!)
                    ok = false
                }
            case "events":
                if case .array = v {
                    var events: [ValueObject] = []
                    d.member(at: i)!.forEachElement { _, e in
                        if case .object(let o) = e.value {
                            events.append(o)
                        } else {
                            ctx.error(.rulesStructure, "each of 'events' must be an object, not \(e.value.kind)", e)
                            ok = false
                        }
                    }
                    def.events = events
                } else {
                    ctx.error(.rulesStructure, "'events' must be an array of objects, not \(v.kind)", d.member(at: i)!)
                    ok = false
                }
            case "conditions":
                if case .array(let a) = v {
                    var conditions: [Condition] = []
                    conditions.reserveCapacity(a.count)
                    d.member(at: i)!.forEachElement { _, e in
                        if let x = loadCondition(e, ctx: &ctx) { conditions.append(x) } else { ok = false }
                    }
                    def.conditions = conditions
                } else {
                    ctx.error(.rulesStructure, "'conditions' must be an array, not \(v.kind)", d.member(at: i)!)
                    ok = false
                }
            default:
                ctx.unknownKey(k, in: d, at: i, known: definitionKeys, what: "a condition definition")
            }
        }
        return ok ? def : nil
    }

    static func loadConsequence(_ c: ValueCursor, ctx: inout LoaderContext) -> Consequence? {
        guard case .object = c.value else {
            ctx.error(.rulesStructure, "a consequence must be an object, not \(c.value.kind)", c)
            return nil
        }
        var idValue: Value?
        var typeValue: Value?
        var detailValue: Value?
        c.forEachMemberValue { k, v, i in
            switch k {
            case "id": idValue = v
            case "type": typeValue = v
            case "detail": detailValue = v
            default: ctx.unknownKey(k, in: c, at: i, known: consequenceKeys, what: "a consequence")
            }
        }
        guard case .string(let id)? = idValue else {
            ctx.warning(.rulesDroppedConsequence, "consequence dropped: 'id' must be a string (the reference skips it)", c)
            return nil
        }
        guard case .string(let type)? = typeValue else {
            ctx.warning(
                .rulesDroppedConsequence,
                "consequence '\(id)' dropped: 'type' must be a string (the reference skips it)", c)
            return nil
        }
        guard case .object(let detail)? = detailValue else {
            ctx.warning(
                .rulesDroppedConsequence,
                "consequence '\(id)' dropped: 'detail' must be an object (the reference skips it)", c)
            return nil
        }
        return Consequence(id: id, type: type, detail: detail, location: c.location)
    }
}
