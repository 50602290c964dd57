internal import RuleKitCore

/// Launch `rules.json` read straight from its bytes, for the common case: a file the document loader
/// would accept without a single finding.
///
/// Most nodes of a rules file are structure (condition objects, definitions, consequence wrappers) that
/// the loader takes apart and drops; reading them as a tree with a source map, then walking that tree
/// with cursors, is most of the cost of loading. Here the structure is read token by token
/// (`JSONPull`) and only the kept parts (matcher values, meta, consequence details) become `Value`s.
///
/// It gives up (nil) at anything the document loader would report, or that it does not handle: an
/// unknown or repeated key, a wrong type, a syntax error, a limit. The caller then reads the file the
/// ordinary way, which reports every problem with its location. So it only decides how fast a good file
/// loads, never what any file means; `LaunchJSONFastPathTests` holds both paths to the same rule set.
enum LaunchJSONFastPath {
    static func load(_ bytes: [UInt8], file: String, limits: ReaderLimits) -> RuleSet? {
        JSONPull.read(bytes, file: file, limits: limits) { r in
            guard let set = root(&r), r.atEnd() else { return nil }
            return set
        }
    }

    // Depths follow `JSONReader`: the root object is at 1, and a container at depth d reads its
    // members at d.

    static func root(_ r: inout JSONPull) -> RuleSet? {
        guard r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
        var version: Int64?
        var rules: [Rule]?
        let ok = r.members { r, k in
            switch k {
            case "version":
                guard version == nil, let v = r.value(depth: 1), let i = LoaderContext.integer(v) else { return false }
                version = i
            case "rules":
                guard rules == nil else { return false }
                rules = list(&r, rule)
                return rules != nil
            default: return false
            }
            return true
        }
        guard ok, let version, let rules else { return nil }
        return RuleSet(version: version, rules: rules)
    }

    /// The array that comes next, each element read by `element` (nil: give up).
    static func list<T>(_ r: inout JSONPull, _ element: (inout JSONPull) -> T?) -> [T]? {
        guard r.peek() == UInt8(ascii: "["), r.node() else { return nil }
        var out: [T] = []
        let ok = r.elements { r in
            guard let x = element(&r) else { return false }
            out.append(x)
            return true
        }
        return ok ? out : nil
    }

    static func rule(_ r: inout JSONPull) -> Rule? {
        guard r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
        let at = r.location()
        var seen: UInt16 = 0
        var meta: ValueObject?
        var condition: Condition?
        var consequences: [Consequence]?
        var enabled: Bool?
        var id: String?
        var name: String?
        var description: String?
        let ok = r.members { r, k in
            guard let field = RuleField.first(k, &seen) else { return false }
            switch field {
            case .condition:
                condition = self.condition(&r, depth: 4)
                return condition != nil
            case .consequences:
                // The list is at depth 4.
                consequences = list(&r, consequence)
                return consequences != nil
            case .meta:
                switch r.value(depth: 3) {
                case .object(let o)?: meta = o
                case .null?: meta = nil
                default: return false
                }
            case .enabled:
                guard case .bool(let b)? = r.value(depth: 3) else { return false }
                enabled = b
            case .id, .name, .description:
                // The document loader ignores a non-string id, name or description, silently.
                guard let v = r.value(depth: 3) else { return false }
                guard case .string(let s) = v else { return true }
                if field == .id { id = s } else if field == .name { name = s } else { description = s }
            }
            return true
        }
        guard ok, let condition, let consequences else { return nil }
        return LaunchRulesLoader.rule(
            meta: meta, condition: condition, consequences: consequences, location: at,
            id: id, name: name, description: description, enabled: enabled)
    }

    /// A condition object at `depth`.
    static func condition(_ r: inout JSONPull, depth: Int) -> Condition? {
        guard depth <= r.limits.maxDepth, r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
        let at = r.location()
        var kind: Condition.Kind?
        var definition: Condition.Definition?
        let ok = r.members { r, k in
            switch k {
            case "type":
                guard kind == nil, r.node(), let s = r.string() else { return false }
                // Compared as text: a `String` switch (`Kind(rawValue:)`) goes through a slow generic path.
                if s == "matcher" {
                    kind = .matcher
                } else if s == "group" {
                    kind = .group
                } else if s == "historical" {
                    kind = .historical
                } else {
                    return false
                }
            case "definition":
                guard definition == nil else { return false }
                definition = self.definition(&r, depth: depth + 1)
                return definition != nil
            default: return false
            }
            return true
        }
        guard ok, let kind, let definition else { return nil }
        return Condition(kind: kind, definition: definition, location: at)
    }

    /// A definition object at `depth`. A null member is the same as an absent one.
    static func definition(_ r: inout JSONPull, depth: Int) -> Condition.Definition? {
        guard depth <= r.limits.maxDepth, r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
        // Filled in place: the definition's fields live in one box, and setting them there moves each
        // value in (locals passed to an initializer would each be retained and released).
        var d = Condition.Definition()
        var seen: UInt16 = 0
        let ok = r.members { r, k in
            guard let field = DefinitionField.first(k, &seen) else { return false }
            if r.peek() == UInt8(ascii: "n") { return r.value(depth: depth) == .null }
            switch field {
            case .key, .matcher, .logic, .searchType:
                guard r.node(), let s = r.string() else { return false }
                switch field {
                case .key: d.key = s
                case .matcher: d.matcher = s
                case .logic: d.logic = s
                default: d.searchType = s
                }
            case .values:
                guard case .array(let a)? = r.value(depth: depth) else { return false }
                d.values = a
            case .conditions:
                guard depth + 1 <= r.limits.maxDepth, let list = list(&r, { condition(&$0, depth: depth + 2) }) else {
                    return false
                }
                d.conditions = list
            case .events:
                guard case .array(let a)? = r.value(depth: depth) else { return false }
                var list: [ValueObject] = []
                list.reserveCapacity(a.count)
                for e in a {
                    guard case .object(let o) = e else { return false }
                    list.append(o)
                }
                d.events = list
            case .value:
                guard let v = r.value(depth: depth) else { return false }
                d.value = v
            case .from, .to:
                guard let v = r.value(depth: depth), let n = LoaderContext.integer(v) else { return false }
                if field == .from { d.from = n } else { d.to = n }
            }
            return true
        }
        return ok ? d : nil
    }

    /// A consequence object (at depth 5): a string `id` and `type` and an object `detail`, nothing else.
    static func consequence(_ r: inout JSONPull) -> Consequence? {
        guard r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
        let at = r.location()
        var id: String?
        var type: String?
        var detail: ValueObject?
        let ok = r.members { r, k in
            switch k {
            case "id":
                guard id == nil, r.node(), let s = r.string() else { return false }
                id = s
            case "type":
                guard type == nil, r.node(), let s = r.string() else { return false }
                type = s
            case "detail":
                guard detail == nil, case .object(let o)? = r.value(depth: 5) else { return false }
                detail = o
            default: return false
            }
            return true
        }
        guard ok, let id, let type, let detail else { return nil }
        return Consequence(id: id, type: type, detail: detail, location: at)
    }
}

/// The members the fast path reads, in an object where each may appear once.
protocol FastPathField: RawRepresentable where RawValue == Int {
    /// The field `key` names, if any (a `switch` over the keys: compiled to length and byte tests).
    init?(_ key: JSONPull.Key)
}

extension FastPathField {
    /// The field a key names, the first time it appears in this object (`seen` keeps track); nil for
    /// any other key or a repeated one, both of which send the file to the document loader.
    @inline(__always)
    static func first(_ key: JSONPull.Key, _ seen: inout UInt16) -> Self? {
        guard let field = Self(key), seen & (1 << field.rawValue) == 0 else { return nil }
        seen |= 1 << field.rawValue
        return field
    }
}

/// A rule's members (as `LaunchRulesLoader.ruleKeys`).
enum RuleField: Int, CaseIterable, FastPathField {
    case condition, consequences, meta, enabled, id, name, description

    init?(_ key: JSONPull.Key) {
        switch key {
        case "condition": self = .condition
        case "consequences": self = .consequences
        case "meta": self = .meta
        case "enabled": self = .enabled
        case "id": self = .id
        case "name": self = .name
        case "description": self = .description
        default: return nil
        }
    }
}

/// A condition definition's members (as `LaunchRulesLoader.definitionKeys`).
enum DefinitionField: Int, CaseIterable, FastPathField {
    case key, matcher, values, logic, conditions, events, value, from, to, searchType

    init?(_ key: JSONPull.Key) {
        switch key {
        case "key": self = .key
        case "matcher": self = .matcher
        case "values": self = .values
        case "logic": self = .logic
        case "conditions": self = .conditions
        case "events": self = .events
        case "value": self = .value
        case "from": self = .from
        case "to": self = .to
        case "searchType": self = .searchType
        default: return nil
        }
    }
}
