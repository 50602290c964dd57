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
                rules = ruleList(&r)
                return rules != nil
            default: return false
            }
            return true
        }
        guard ok, let version, let rules else { return nil }
        return RuleSet(version: version, rules: rules)
    }

    static func ruleList(_ r: inout JSONPull) -> [Rule]? {
        guard r.peek() == UInt8(ascii: "["), r.node() else { return nil }
        var rules: [Rule] = []
        let ok = r.elements { r in
            guard let rule = rule(&r) else { return false }
            rules.append(rule)
            return true
        }
        return ok ? rules : nil
    }

    static func rule(_ r: inout JSONPull) -> Rule? {
        guard r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
        let at = r.location()
        var seen: UInt8 = 0
        var meta: ValueObject?
        var condition: Condition?
        var consequences: [Consequence]?
        var enabled: Bool?
        var id: String?, name: String?, description: String?
        let ok = r.members { r, k in
            let bit: UInt8
            switch k {
            case "condition": bit = 1
            case "consequences": bit = 2
            case "meta": bit = 4
            case "enabled": bit = 8
            case "id": bit = 16
            case "name": bit = 32
            case "description": bit = 64
            default: return false
            }
            guard seen & bit == 0 else { return false }
            seen |= bit
            switch bit {
            case 1:
                condition = self.condition(&r, depth: 4)
                return condition != nil
            case 2:
                consequences = consequenceList(&r)
                return consequences != nil
            case 4:
                switch r.value(depth: 3) {
                case .object(let o)?: meta = o
                case .null?: meta = nil
                default: return false
                }
            case 8:
                guard case .bool(let b)? = r.value(depth: 3) else { return false }
                enabled = b
            default:
                // The document loader ignores a non-string id, name or description, silently.
                guard let v = r.value(depth: 3) else { return false }
                guard case .string(let s) = v else { return true }
                if bit == 16 { id = s } else if bit == 32 { name = s } else { description = s }
            }
            return true
        }
        guard ok, let condition, let consequences else { return nil }
        return LaunchRulesLoader.rule(meta: meta, condition: condition, consequences: consequences, location: at,
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
                if s == "matcher" { kind = .matcher } else if s == "group" { kind = .group }
                else if s == "historical" { kind = .historical } else { return false }
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
            let bit: UInt16
            switch k {
            case "key": bit = 1
            case "matcher": bit = 2
            case "values": bit = 4
            case "logic": bit = 8
            case "conditions": bit = 16
            case "events": bit = 32
            case "value": bit = 64
            case "from": bit = 128
            case "to": bit = 256
            case "searchType": bit = 512
            default: return false
            }
            guard seen & bit == 0 else { return false }
            seen |= bit
            if r.peek() == UInt8(ascii: "n") { return r.value(depth: depth) == .null }
            switch bit {
            case 1, 2, 8, 512:
                guard r.node(), let s = r.string() else { return false }
                switch bit {
                case 1: d.key = s
                case 2: d.matcher = s
                case 8: d.logic = s
                default: d.searchType = s
                }
            case 4:
                guard case .array(let a)? = r.value(depth: depth) else { return false }
                d.values = a
            case 16:
                guard depth + 1 <= r.limits.maxDepth, r.peek() == UInt8(ascii: "["), r.node() else { return false }
                var list: [Condition] = []
                let ok = r.elements { r in
                    guard let c = condition(&r, depth: depth + 2) else { return false }
                    list.append(c)
                    return true
                }
                d.conditions = list
                return ok
            case 32:
                guard case .array(let a)? = r.value(depth: depth) else { return false }
                var list: [ValueObject] = []
                list.reserveCapacity(a.count)
                for e in a {
                    guard case .object(let o) = e else { return false }
                    list.append(o)
                }
                d.events = list
            case 64:
                guard let v = r.value(depth: depth) else { return false }
                d.value = v
            default:
                guard let v = r.value(depth: depth), let n = LoaderContext.integer(v) else { return false }
                if bit == 128 { d.from = n } else { d.to = n }
            }
            return true
        }
        return ok ? d : nil
    }

    /// A rule's consequence list (the array at depth 4).
    static func consequenceList(_ r: inout JSONPull) -> [Consequence]? {
        guard r.peek() == UInt8(ascii: "["), r.node() else { return nil }
        var list: [Consequence] = []
        let ok = r.elements { r in
            guard let q = consequence(&r) else { return false }
            list.append(q)
            return true
        }
        return ok ? list : nil
    }

    /// A consequence object (at depth 5): a string `id` and `type` and an object `detail`, nothing else.
    static func consequence(_ r: inout JSONPull) -> Consequence? {
        guard r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
        let at = r.location()
        var id: String?, type: String?
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
