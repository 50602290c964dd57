public import RuleKitCore

/// One leaf of a schema: its path and what the schema says about it.
public struct XDMPath: Sendable, Hashable {
    /// Dotted path; array items appear as `[*]` (`productListItems[*].SKU`).
    public var path: String
    /// JSON Schema type(s) (`string`, `number`, `integer`, `boolean`, `object` for open maps, `array`).
    public var type: String
    /// The JSON Schema `format`, if any.
    public var format: String?
    /// The allowed values, when the schema lists them.
    public var enumValues: [Value]?
    /// The schema's description of the field.
    public var description: String?
}

/// The leaf paths of a composed schema, queryable by prefix; used by the linter, data elements and
/// coercion.
public struct XDMPathCatalog: Sendable {
    /// Every leaf path, in schema order.
    public let paths: [XDMPath]
    private let byPath: [String: XDMPath]

    init(registry: SchemaRegistry, rootURI: String) {
        var walker = Walker(registry: registry)
        if let loc = registry.locate(URIReference(rootURI)) {
            walker.walk(loc, prefix: "", depth: 0, seen: [])
        }
        var unique: [String: XDMPath] = [:]
        for p in walker.out where unique[p.path] == nil { unique[p.path] = p }
        paths = unique.values.sorted { $0.path < $1.path }
        byPath = unique
    }

    /// The leaf at `path` (`[*]` or a numeric index for array items).
    ///
    /// - Parameter path: the leaf's path.
    /// - Returns: the leaf, or nil when the schema has none there.
    public func leaf(_ path: String) -> XDMPath? {
        if let p = byPath[path] { return p }
        return byPath[Self.normalize(path)]
    }

    /// Leaves under `prefix`.
    ///
    /// - Parameter prefix: a path prefix.
    /// - Returns: the leaves under it.
    public func leaves(withPrefix prefix: String) -> [XDMPath] {
        paths.filter { $0.path.hasPrefix(prefix) }
    }

    /// `items.0.SKU` and `items[0].SKU` become `items[*].SKU`.
    ///
    /// - Parameter path: a path with array indexes in either form.
    /// - Returns: the catalog's form.
    public static func normalize(_ path: String) -> String {
        // Most paths have no index at all (the linter asks for every key of every rule on each check):
        // ASCII without '[' and without an all-digit segment is returned as it is.
        var digitsOnly = true
        var segmentEmpty = true
        var plain = true
        for b in path.utf8 {
            if b >= 0x80 || b == 0x5B {
                plain = false
                break
            }
            if b == 0x2E {
                if digitsOnly && !segmentEmpty {
                    plain = false
                    break
                }
                digitsOnly = true
                segmentEmpty = true
            } else {
                segmentEmpty = false
                if b < 0x30 || b > 0x39 { digitsOnly = false }
            }
        }
        if plain && !(digitsOnly && !segmentEmpty) { return path }
        return indexedNormalize(path)
    }

    /// `normalize` for paths with an index (or non-ASCII text): segment by segment.
    static func indexedNormalize(_ path: String) -> String {
        var out: [String] = []
        for seg in path.split(separator: ".", omittingEmptySubsequences: false) {
            if seg.allSatisfy(\.isNumber), !seg.isEmpty, let last = out.popLast() {
                out.append(last + "[*]")
            } else if let b = seg.firstIndex(of: "["), seg.hasSuffix("]") {
                out.append(String(seg[..<b]) + "[*]")
            } else {
                out.append(String(seg))
            }
        }
        return out.joined(separator: ".")
    }

    struct Walker {
        let registry: SchemaRegistry
        var out: [XDMPath] = []

        mutating func walk(_ loc: SchemaRegistry.Location, prefix: String, depth: Int, seen: Set<String>) {
            guard depth < 64, !seen.contains(loc.key + "|" + prefix), let schema = registry.value(at: loc),
                case .object(let o) = schema
            else { return }
            let seen = seen.union([loc.key + "|" + prefix])
            if case .string(let ref)? = o["$ref"] {
                if let target = registry.locate(registry.base(at: loc).resolving(ref)) {
                    walk(target, prefix: prefix, depth: depth + 1, seen: seen)
                }
                return
            }
            for key in ["allOf", "anyOf", "oneOf"] {
                if case .array(let a)? = o[key] {
                    for i in a.indices {
                        walk(
                            .init(document: loc.document, pointer: loc.pointer + "/\(key)/\(i)"), prefix: prefix,
                            depth: depth + 1, seen: seen)
                    }
                }
            }
            var hasChildren = false
            if case .object(let props)? = o["properties"] {
                for (k, _) in props {
                    hasChildren = true
                    walk(
                        .init(document: loc.document, pointer: loc.pointer + "/properties/" + registry.escape(k)),
                        prefix: prefix.isEmpty ? k : prefix + "." + k, depth: depth + 1, seen: seen)
                }
            }
            let type = typeName(o["type"])
            if type == "array", o["items"] != nil {
                walk(
                    .init(document: loc.document, pointer: loc.pointer + "/items"), prefix: prefix + "[*]", depth: depth + 1,
                    seen: seen)
                hasChildren = true
            }
            if !hasChildren, !prefix.isEmpty, let type,
                type != "object" || o["additionalProperties"] != nil
                    || o["meta:xdmType"] != nil
            {
                out.append(
                    XDMPath(
                        path: prefix, type: type, format: o["format"]?.stringValue, enumValues: o["enum"]?.arrayValue,
                        description: o["description"]?.stringValue ?? o["title"]?.stringValue))
            }
        }

        func typeName(_ v: Value?) -> String? {
            switch v {
            case .string(let s)?: s
            case .array(let a)?: a.compactMap(\.stringValue).joined(separator: "|")
            default: nil
            }
        }
    }
}
