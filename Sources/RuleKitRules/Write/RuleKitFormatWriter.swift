internal import RuleKitCore

/// Writes a `RuleSet` in RuleKit's YAML format, using the short forms wherever they say exactly what the
/// model holds and the Launch form elsewhere, so reading the text back gives the same rule set.
public enum RuleKitFormatWriter {
    /// The rule set as YAML text, after an optional comment `header`.
    ///
    /// - Parameters:
    ///   - set: the rules.
    ///   - header: a comment written first (nil: none).
    /// - Returns: the YAML text.
    public static func yaml(_ set: RuleSet, header: String? = nil) -> String {
        var y = YAMLText()
        if let header { for l in header.split(separator: "\n", omittingEmptySubsequences: false) { y.line(0, "# \(l)") } }
        y.line(0, "version: \(set.version)")
        if !set.dataElements.isEmpty {
            y.line(0, "dataElements:")
            for e in set.dataElements {
                var o: ValueObject = ["path": .string(e.path)]
                if e.type != .any { o["type"] = .string(e.type.rawValue) }
                if let d = e.description { o["description"] = .string(d) }
                y.member(2, e.name, .object(o))
            }
        }
        if set.rules.isEmpty {
            y.line(0, "rules: []")
            return y.text
        }
        y.line(0, "rules:")
        for rule in set.rules { y.item(2, ruleValue(rule)) }
        return y.text
    }

    static func ruleValue(_ r: Rule) -> Value {
        var o = ValueObject()
        if let id = r.id { o["id"] = .string(id) }
        if let n = r.name { o["name"] = .string(n) }
        if let d = r.description { o["description"] = .string(d) }
        if !r.enabled { o["enabled"] = false }
        if let m = r.meta { o["meta"] = .object(m) }
        o["when"] = condition(r.condition)
        o["then"] = .array(r.consequences.map(consequence))
        return .object(o)
    }

    static func condition(_ c: Condition) -> Value {
        let d = c.definition
        switch c.kind {
        case .group
        where d.key == nil && d.matcher == nil && d.values == nil && d.events == nil && d.value == nil
            && d.from == nil && d.to == nil && d.searchType == nil:
            if let logic = d.logic, let cs = d.conditions {
                let children = Value.array(cs.map(condition))
                switch GroupLogic(rawValue: logic) {
                case .and: return ["all": children]
                case .or: return ["any": children]
                case nil: return ["group": ["logic": .string(logic), "conditions": children]]
                }
            }
        case .matcher
        where d.logic == nil && d.conditions == nil && d.events == nil && d.value == nil && d.from == nil
            && d.to == nil && d.searchType == nil:
            if let key = d.key, let code = d.matcher, Operation(code: code) != nil {
                if let v = shortValue(code: code, values: d.values) {
                    return .object(ValueObject(members: [.init(key: "key", value: .string(key)), .init(key: code, value: v)]))
                }
                var o: ValueObject = ["key": .string(key), "matcher": .string(code)]
                if let vs = d.values { o["values"] = .array(vs) }
                return .object(o)
            }
        case .historical where d.logic == nil && d.conditions == nil && d.key == nil && d.values == nil:
            if d.events != nil, d.matcher.flatMap(Operation.init(code:)) != nil, d.value.flatMap(LoaderContext.integer) != nil,
                d.searchType.map({ SearchType(rawValue: $0) != nil }) ?? true
            {
                return ["history": LaunchRulesWriter.condition(c, [:])["definition"]!]
            }
        default:
            break
        }
        return LaunchRulesWriter.condition(c, [:])
    }

    /// The value of the short form `{key, op: value}` when it reads back as exactly these values:
    /// `ex: true` for no values; one scalar, or a list of several, for the other operators.
    static func shortValue(code: String, values: [Value]?) -> Value? {
        guard let op = Operation(code: code), let values else { return nil }
        if op == .exists || op == .notExist { return values.isEmpty ? Value.bool(true) : Optional<Value>.none }
        guard !values.isEmpty,
            values.allSatisfy({
                switch $0 {
                case .string, .int, .double, .bool: true
                default: false
                }
            })
        else { return nil }
        return values.count == 1 ? values[0] : .array(values)
    }

    static func consequence(_ q: Consequence) -> Value {
        let d = q.detail
        switch q.type {
        case "add" where d.count == 1, "mod" where d.count == 1:
            if case .object(let e)? = d["eventdata"] {
                return .object(ValueObject(members: [.init(key: "id", value: .string(q.id)), .init(key: q.type, value: .object(e))]))
            }
        case "dispatch":
            let keys = Set(d.keys)
            if keys.isSubset(of: ["type", "source", "eventdataaction", "eventdata"]),
                case .string(let t)? = d["type"], case .string(let s)? = d["source"],
                case .string(let a)? = d["eventdataaction"], a == "copy" || a == "new"
            {
                var o: ValueObject = ["type": .string(t), "source": .string(s), "action": .string(a)]
                if let e = d["eventdata"] { o["data"] = e }
                return .object(ValueObject(members: [.init(key: "id", value: .string(q.id)), .init(key: "dispatch", value: .object(o))]))
            }
        case "schema":
            if d.count == 3, d["id"] == .string(q.id), d["schema"] == .string(RulesEventNames.historySchema),
                case .object(let data)? = d["data"], data.count == 2, case .string(let op)? = data["operation"],
                op == "insert" || op == "insertIfNotExists", case .object(let content)? = data["content"], !content.isEmpty
            {
                return .object(
                    ValueObject(members: [
                        .init(key: "id", value: .string(q.id)),
                        .init(key: "history", value: ["operation": .string(op), "content": .object(content)]),
                    ]))
            }
        default:
            break
        }
        return .object(
            ValueObject(members: [
                .init(key: "id", value: .string(q.id)), .init(key: "type", value: .string(q.type)),
                .init(key: "detail", value: .object(d)),
            ]))
    }
}
