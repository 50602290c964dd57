public import RuleKitCore

/// Writes a `RuleSet` as Adobe Launch `rules.json`, loadable by the reference SDK.
///
/// RuleKit's own rule fields (`id`, `name`, `description`) travel in `meta`, which the reference ignores;
/// data elements are inlined (`%total%` keys become their path, `{%%total%%}` tokens their path, through
/// the element's type function when it has one); disabled rules are left out, since Launch has no
/// such notion.
public enum LaunchRulesWriter {
    /// The rule set as a Launch `rules.json` document.
    ///
    /// - Parameter set: the rules.
    /// - Returns: the document.
    public static func value(_ set: RuleSet) -> Value {
        let elements = Dictionary(set.dataElements.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var rules: [Value] = []
        for rule in set.rules where rule.enabled {
            var o = ValueObject()
            o["condition"] = condition(rule.condition, elements)
            o["consequences"] = .array(rule.consequences.map { consequence($0, elements) })
            var meta = rule.meta
            if rule.id != nil || rule.name != nil || rule.description != nil {
                var m = meta ?? ValueObject()
                if let id = rule.id { m["id"] = .string(id) }
                if let n = rule.name { m["name"] = .string(n) }
                if let d = rule.description { m["description"] = .string(d) }
                meta = m
            }
            if let meta { o["meta"] = .object(meta) }
            rules.append(.object(o))
        }
        return ["version": .int(set.version), "rules": .array(rules)]
    }

    /// Where the Launch JSON of `set` would hold a number JSON cannot say (NaN or an infinity, which YAML
    /// can: `.inf`, or a float past Double's range such as `1e666`), as JSON pointers; empty when none.
    /// The writer would write `null` there, so converters refuse such a set (found by fuzz-rules).
    ///
    /// - Parameter set: the rules.
    /// - Returns: the JSON pointers.
    public static func unwritableNumbers(_ set: RuleSet) -> [String] {
        var out: [String] = []
        var stack: [(Value, String)] = [(value(set), "")]
        while let (v, path) = stack.popLast() {
            switch v {
            case .double(let d) where !d.isFinite: out.append(path.isEmpty ? "/" : path)
            case .array(let a): for (i, e) in a.enumerated() { stack.append((e, path + "/\(i)")) }
            case .object(let o): for (k, e) in o { stack.append((e, path + "/" + k.escapedPointerToken)) }
            default: break
            }
        }
        return out.sorted()
    }

    /// Compact or pretty JSON text.
    ///
    /// - Parameters:
    ///   - set: the rules.
    ///   - pretty: indented, else compact.
    /// - Returns: the text.
    public static func text(_ set: RuleSet, pretty: Bool = true) -> String {
        JSONWriter.string(value(set), options: pretty ? .pretty : .compact)
    }

    static func condition(_ c: Condition, _ elements: [String: DataElement]) -> Value {
        var d = ValueObject()
        let def = c.definition
        if let v = def.logic { d["logic"] = .string(v) }
        if let v = def.conditions { d["conditions"] = .array(v.map { condition($0, elements) }) }
        if let v = def.key { d["key"] = .string(inlineKey(v, elements)) }
        if let v = def.matcher { d["matcher"] = .string(v) }
        if let v = def.values { d["values"] = .array(v) }
        if let v = def.events { d["events"] = .array(v.map(Value.object)) }
        if let v = def.value { d["value"] = v }
        if let v = def.from { d["from"] = .int(v) }
        if let v = def.to { d["to"] = .int(v) }
        if let v = def.searchType { d["searchType"] = .string(v) }
        return ["type": .string(c.kind.rawValue), "definition": .object(d)]
    }

    static func consequence(_ q: Consequence, _ elements: [String: DataElement]) -> Value {
        ["id": .string(q.id), "type": .string(q.type), "detail": inlineTokens(.object(q.detail), elements)]
    }

    static func inlineKey(_ key: String, _ elements: [String: DataElement]) -> String {
        guard key.count >= 3, key.hasPrefix("%"), key.hasSuffix("%"), let e = elements[String(key.dropFirst().dropLast())]
        else { return key }
        return e.path
    }

    static func inlineTokens(_ v: Value, _ elements: [String: DataElement]) -> Value {
        guard !elements.isEmpty else { return v }
        switch v {
        case .string(let s) where s.contains("{%%"):
            var out = s
            for (name, e) in elements {
                let fn: String? =
                    switch e.type {
                    case .int: "int"
                    case .double: "double"
                    case .string: "string"
                    case .bool: "bool"
                    case .any: nil
                    }
                out = out.replacingOccurrences(of: "{%%\(name)%%}", with: fn.map { "{%\($0)(\(e.path))%}" } ?? "{%\(e.path)%}")
                out = out.replacingOccurrences(of: "(%\(name)%)", with: "(\(e.path))")
            }
            return .string(out)
        case .string(let s) where s.contains("(%"):
            var out = s
            for (name, e) in elements { out = out.replacingOccurrences(of: "(%\(name)%)", with: "(\(e.path))") }
            return .string(out)
        case .array(let a): return .array(a.map { inlineTokens($0, elements) })
        case .object(let o):
            return .object(ValueObject(members: o.members.map { .init(key: $0.key, value: inlineTokens($0.value, elements)) }))
        default: return v
        }
    }
}
