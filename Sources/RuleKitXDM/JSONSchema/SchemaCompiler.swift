internal import RuleKitCore

/// Why a schema could not be compiled.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, with the schema location.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// Compiles schemas of a registry into `SchemaNode` graphs, once per location (so references, shared
/// definitions and cycles compile to one node each).
struct SchemaCompiler {
    let registry: SchemaRegistry
    var nodes: [String: SchemaNode] = [:]
    /// Locations compiled but with references still to resolve.
    var pendingRefs: [(SchemaNode, URIReference, String)] = []
    var errors: [String] = []

    init(registry: SchemaRegistry) {
        self.registry = registry
    }

    mutating func compile(uri: String) throws(SchemaError) -> SchemaNode {
        guard let loc = registry.locate(URIReference(uri)) else {
            throw SchemaError(message: "no schema with id '\(uri)' is registered")
        }
        let node = compile(at: loc)
        // Resolve references breadth-first; each target compiles once.
        while let (refNode, absolute, origin) = pendingRefs.popLast() {
            guard let target = registry.locate(absolute) else {
                errors.append("unresolvable $ref '\(absolute.text)' in \(origin)")
                continue
            }
            let t = compile(at: target)
            t.referenceCount += 1
            refNode.target = t
        }
        if !errors.isEmpty { throw SchemaError(message: errors.joined(separator: "\n")) }
        return node
    }

    mutating func compile(at loc: SchemaRegistry.Location) -> SchemaNode {
        if let n = nodes[loc.key] { return n }
        let node = SchemaNode(location: "\(loc.document)#\(loc.pointer)")
        nodes[loc.key] = node
        guard let schema = registry.value(at: loc) else {
            node.constant = false
            return node
        }
        fill(node, schema, loc)
        return node
    }

    func child(_ loc: SchemaRegistry.Location, _ parts: String...) -> SchemaRegistry.Location {
        var p = loc.pointer
        for part in parts { p += "/" + registry.escape(part) }
        return SchemaRegistry.Location(document: loc.document, pointer: p)
    }

    mutating func sub(_ loc: SchemaRegistry.Location, _ parts: String...) -> SchemaNode {
        var l = loc
        for part in parts { l = child(l, part) }
        return compile(at: l)
    }

    mutating func fill(_ node: SchemaNode, _ schema: Value, _ loc: SchemaRegistry.Location) {
        switch schema {
        case .bool(let b):
            node.constant = b
            return
        case .object(let o):
            if case .string(let ref)? = o["$ref"] {
                // Draft 6/7: `$ref` makes every sibling keyword inert.
                let refNode = SchemaNode(location: node.location + "/$ref")
                pendingRefs.append(
                    (refNode, registry.base(at: loc).resolving(ref), "\(registry.origins[loc.document] ?? loc.document)#\(loc.pointer)"))
                node.checks = [.ref(refNode)]
                return
            }
            var checks: [Check] = []
            if let t = o["type"] {
                var set = TypeSet()
                switch t {
                case .string(let s): if let x = TypeSet(name: s) { set.insert(x) }
                case .array(let a): for x in a { if let s = x.stringValue, let y = TypeSet(name: s) { set.insert(y) } }
                default: break
                }
                checks.append(.type(set))
            }
            if case .array(let e)? = o["enum"] { checks.append(.enumeration(Box(e))) }
            if let c = o["const"] { checks.append(.constant(Box(c))) }
            if let m = o["multipleOf"]?.numberValue { checks.append(.multipleOf(m)) }
            if let m = o["maximum"]?.numberValue { checks.append(.maximum(m, exclusive: false)) }
            if let m = o["exclusiveMaximum"]?.numberValue { checks.append(.maximum(m, exclusive: true)) }
            if let m = o["minimum"]?.numberValue { checks.append(.minimum(m, exclusive: false)) }
            if let m = o["exclusiveMinimum"]?.numberValue { checks.append(.minimum(m, exclusive: true)) }
            if let m = o["maxLength"].flatMap(Self.count) { checks.append(.maxLength(m)) }
            if let m = o["minLength"].flatMap(Self.count) { checks.append(.minLength(m)) }
            if case .string(let p)? = o["pattern"] {
                if let pat = Pattern(p) { checks.append(.pattern(pat)) } else { errors.append(Self.patternError(p, node.location)) }
            }
            if let items = o["items"] {
                if case .array(let a) = items {
                    let tuple = a.indices.map { sub(loc, "items", String($0)) }
                    let additional = o["additionalItems"].map { _ in sub(loc, "additionalItems") }
                    checks.append(.tupleItems(Box(TupleInfo(items: tuple, additional: additional))))
                } else {
                    checks.append(.items(sub(loc, "items")))
                }
            }
            if let m = o["maxItems"].flatMap(Self.count) { checks.append(.maxItems(m)) }
            if let m = o["minItems"].flatMap(Self.count) { checks.append(.minItems(m)) }
            if o["uniqueItems"] == .bool(true) { checks.append(.uniqueItems) }
            if o["contains"] != nil { checks.append(.contains(sub(loc, "contains"))) }
            if let m = o["maxProperties"].flatMap(Self.count) { checks.append(.maxProperties(m)) }
            if let m = o["minProperties"].flatMap(Self.count) { checks.append(.minProperties(m)) }
            if case .array(let r)? = o["required"], !r.isEmpty { checks.append(.required(Box(r.compactMap(\.stringValue)))) }
            let props = o["properties"]?.objectValue
            let patterns = o["patternProperties"]?.objectValue
            if props != nil || patterns != nil || o["additionalProperties"] != nil {
                var byName: [String: SchemaNode] = [:]
                for (k, _) in props ?? [:] { byName[k] = sub(loc, "properties", k) }
                var pats: [(Pattern, SchemaNode)] = []
                for (k, _) in patterns ?? [:] {
                    if let p = Pattern(k) {
                        pats.append((p, sub(loc, "patternProperties", k)))
                    } else {
                        errors.append(Self.patternError(k, node.location))
                    }
                }
                let additional = o["additionalProperties"].map { _ in sub(loc, "additionalProperties") }
                checks.append(.properties(Box(PropertiesInfo(byName: byName, patterns: pats, additional: additional))))
            }
            if case .object(let deps)? = o["dependencies"] {
                var list: [(String, [String]?, SchemaNode?)] = []
                for (k, v) in deps {
                    if case .array(let names) = v {
                        list.append((k, names.compactMap(\.stringValue), nil))
                    } else {
                        list.append((k, nil, sub(loc, "dependencies", k)))
                    }
                }
                checks.append(.dependencies(Box(list)))
            }
            if o["propertyNames"] != nil { checks.append(.propertyNames(sub(loc, "propertyNames"))) }
            if o["if"] != nil {
                checks.append(
                    .conditional(
                        Box(
                            ConditionalInfo(
                                condition: sub(loc, "if"), then: o["then"].map { _ in sub(loc, "then") },
                                otherwise: o["else"].map { _ in sub(loc, "else") }))))
            }
            if case .array(let a)? = o["allOf"] { checks.append(.allOf(Box(a.indices.map { sub(loc, "allOf", String($0)) }))) }
            if case .array(let a)? = o["anyOf"] { checks.append(.anyOf(Box(a.indices.map { sub(loc, "anyOf", String($0)) }))) }
            if case .array(let a)? = o["oneOf"] { checks.append(.oneOf(Box(a.indices.map { sub(loc, "oneOf", String($0)) }))) }
            if o["not"] != nil { checks.append(.not(sub(loc, "not"))) }
            if case .string(let f)? = o["format"], let kind = Self.format(f) { checks.append(.format(kind)) }
            node.checks = checks
            if checks.isEmpty { node.constant = true }
        default:
            // Not a schema (a stray value): it constrains nothing.
            node.constant = true
        }
    }

    static func count(_ v: Value) -> Int? {
        switch v {
        case .int(let i): Int(i)
        // Past Int's range a count constrains nothing more than Int.max does (found by fuzz-schema:
        // `Int(d)` trapped on `"maxLength": 2e37`).
        case .double(let d) where d.rounded() == d: d >= 0x1p63 ? Int.max : d < -0x1p63 ? Int.min : Int(d)
        default: nil
        }
    }

    static func format(_ f: String) -> FormatKind? {
        switch f {
        case "date-time": .dateTime
        case "date": .date
        case "time": .time
        case "email": .email
        case "hostname": .hostname
        case "ipv4": .ipv4
        case "ipv6": .ipv6
        case "uri": .uri
        case "uri-reference": .uriReference
        case "uuid": .uuid
        case "regex": .regex
        case "url": .url
        case "json-pointer": .jsonPointer
        default: nil
        }
    }

    /// Why a pattern did not compile (quoting at most its start).
    static func patternError(_ p: String, _ location: String) -> String {
        if p.utf8.count > Pattern.maxSourceLength {
            return "pattern of \(p.utf8.count) bytes is over the limit of \(Pattern.maxSourceLength) at \(location)"
        }
        return "invalid pattern '\(p.count > 80 ? String(p.prefix(77)) + "..." : p)' at \(location)"
    }
}
