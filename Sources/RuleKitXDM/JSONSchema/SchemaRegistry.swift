public import RuleKitCore

/// Schemas by URI, offline: every `$id` (documents and embedded resources), every `#anchor`, and the base
/// URI in force at every subschema, so `$ref`s resolve without any network access.
///
/// Indexes by `$id`, never by file path (in the public XDM repository the two often disagree).
public struct SchemaRegistry: Sendable {
    /// A place in a registered document: the document's key and a JSON pointer into it.
    struct Location: Hashable, Sendable {
        var document: String
        var pointer: String
        var key: String { document + "#" + pointer }
    }

    var documents: [String: Value] = [:]
    /// Absolute URI (no fragment) → where that resource is.
    var resources: [String: Location] = [:]
    /// `uri#anchor` → where that anchor is.
    var anchors: [String: Location] = [:]
    /// Location key → the base URI in force there.
    var bases: [String: String] = [:]
    /// Where each document came from (a file), for messages.
    var origins: [String: String] = [:]

    /// An empty registry.
    public init() {}

    /// The URIs of every registered resource.
    public var ids: [String] { resources.keys.sorted() }

    /// Registers a schema document under `uri` (its retrieval URI; its `$id`, if any, wins as base).
    ///
    /// - Parameters:
    ///   - schema: the schema document.
    ///   - uri: its retrieval URI.
    ///   - origin: where it was read from, for messages (nil: the URI).
    /// - Returns: the document's canonical URI.
    @discardableResult
    public mutating func add(_ schema: Value, uri: String, origin: String? = nil) -> String {
        let retrieval = URIReference(uri).withoutFragment.text
        documents[retrieval] = schema
        origins[retrieval] = origin ?? uri
        resources[retrieval] = Location(document: retrieval, pointer: "")
        scan(schema, base: URIReference(retrieval), location: Location(document: retrieval, pointer: ""), isRoot: true)
        if case .string(let id)? = schema["$id"] ?? schema["id"] {
            let canonical = URIReference(retrieval).resolving(id).withoutFragment.text
            return canonical.isEmpty ? retrieval : canonical
        }
        return retrieval
    }

    private mutating func scan(_ v: Value, base: URIReference, location: Location, isRoot: Bool) {
        guard case .object(let o) = v else {
            if case .array(let a) = v {
                for (i, x) in a.enumerated() {
                    scan(
                        x, base: base, location: Location(document: location.document, pointer: location.pointer + "/\(i)"),
                        isRoot: false)
                }
            }
            return
        }
        var base = base
        // A `$ref` makes its siblings (including `$id`) inert in draft 6/7.
        if o["$ref"] == nil, case .string(let id)? = o["$id"] {
            let resolved = base.resolving(id)
            if let frag = resolved.fragment, !frag.isEmpty, frag.utf8.first != 0x2F {
                anchors[resolved.text] = location
            }
            let resource = resolved.withoutFragment
            if !resource.text.isEmpty && !(resolved.fragment?.isEmpty == false && id.utf8.first == 0x23) {
                resources[resource.text] = location
                base = resource
            }
        }
        bases[location.key] = base.text
        for (k, x) in o {
            // Values of these keywords are data, not schemas.
            if k == "enum" || k == "const" || k == "examples" || k == "default" || k.hasPrefix("meta:") { continue }
            scan(
                x, base: base, location: Location(document: location.document, pointer: location.pointer + "/" + escape(k)),
                isRoot: false)
        }
    }

    func escape(_ k: String) -> String {
        k.replacingScalars("~", with: "~0").replacingScalars("/", with: "~1")
    }

    /// Where `reference` (already absolute) points, or nil.
    func locate(_ absolute: URIReference) -> Location? {
        let resource = absolute.withoutFragment.text
        let fragment = absolute.fragment ?? ""
        if fragment.isEmpty { return resources[resource] }
        if fragment.utf8.first == 0x2F {
            guard let root = resources[resource] else { return nil }
            let decoded = fragment.removingPercentEncodingLite
            let loc = Location(document: root.document, pointer: root.pointer + decoded)
            return value(at: loc) != nil ? loc : nil
        }
        return anchors[absolute.text]
    }

    /// The schema value at a location.
    func value(at loc: Location) -> Value? {
        guard var v = documents[loc.document] else { return nil }
        if loc.pointer.isEmpty { return v }
        for raw in loc.pointer.split(ascii: UInt8(ascii: "/")).dropFirst() {
            let token = raw.unescapedPointerToken
            switch v {
            case .object(let o):
                guard let next = o[token] else { return nil }
                v = next
            case .array(let a):
                guard let i = Int(token), a.indices.contains(i) else { return nil }
                v = a[i]
            default:
                return nil
            }
        }
        return v
    }

    /// The base URI in force at a location (walking up to the nearest scanned ancestor).
    func base(at loc: Location) -> URIReference {
        var p = loc.pointer
        while true {
            if let b = bases[Location(document: loc.document, pointer: p).key] { return URIReference(b) }
            guard let slash = p.lastIndex(of: "/") else { return URIReference(loc.document) }
            p = String(p[..<slash])
        }
    }
}

extension String {
    /// Percent-decoding for JSON-pointer fragments (ASCII escapes are all they use).
    var removingPercentEncodingLite: String {
        guard utf8.contains(0x25) else { return self }
        var bytes: [UInt8] = []
        var it = Array(utf8)[...]
        while let b = it.popFirst() {
            if b == 0x25, it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
