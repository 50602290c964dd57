/// RFC 3986 reference resolution, just enough for `$id` and `$ref`: split, resolve against a base,
/// remove dot segments. No network, ever.
struct URIReference: Hashable {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?
    var fragment: String?

    init(_ text: String) {
        // Delimiters are found by scalars: a '#' or '/' followed by a combining mark is one Character.
        var rest = Substring(text)
        if let hash = rest.unicodeScalars.firstIndex(of: "#") {
            fragment = String(rest[rest.unicodeScalars.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let q = rest.unicodeScalars.firstIndex(of: "?") {
            query = String(rest[rest.unicodeScalars.index(after: q)...])
            rest = rest[..<q]
        }
        if let colon = rest.unicodeScalars.firstIndex(of: ":"),
            rest.unicodeScalars[..<colon].allSatisfy({
                $0.isASCII && (Character($0).isLetter || Character($0).isNumber || "+-.".unicodeScalars.contains($0))
            }),
            rest.unicodeScalars.first.map({ $0.isASCII && Character($0).isLetter }) == true
        {
            scheme = String(rest[..<colon])
            rest = rest[rest.unicodeScalars.index(after: colon)...]
        }
        if rest.utf8.starts(with: [0x2F, 0x2F]) {
            rest = rest[rest.utf8.index(rest.startIndex, offsetBy: 2)...]
            let end = rest.unicodeScalars.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
        }
        path = String(rest)
    }

    init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    var text: String {
        var s = ""
        if let scheme { s += scheme + ":" }
        if let authority { s += "//" + authority }
        s += path
        if let query { s += "?" + query }
        if let fragment { s += "#" + fragment }
        return s
    }

    /// The same reference without its fragment.
    var withoutFragment: URIReference {
        var u = self
        u.fragment = nil
        return u
    }

    /// `reference` resolved against this base (RFC 3986 §5.2).
    func resolving(_ reference: String) -> URIReference {
        let r = URIReference(reference)
        if r.scheme != nil {
            return URIReference(
                scheme: r.scheme, authority: r.authority, path: Self.removeDots(r.path), query: r.query,
                fragment: r.fragment)
        }
        if r.authority != nil {
            return URIReference(
                scheme: scheme, authority: r.authority, path: Self.removeDots(r.path), query: r.query,
                fragment: r.fragment)
        }
        if r.path.isEmpty {
            return URIReference(scheme: scheme, authority: authority, path: path, query: r.query ?? query, fragment: r.fragment)
        }
        let merged: String
        if r.path.utf8.first == 0x2F {
            merged = r.path
        } else if authority != nil && path.isEmpty {
            merged = "/" + r.path
        } else if let slash = path.unicodeScalars.lastIndex(of: "/") {
            merged = String(path[...slash]) + r.path
        } else {
            merged = r.path
        }
        return URIReference(
            scheme: scheme, authority: authority, path: Self.removeDots(merged), query: r.query,
            fragment: r.fragment)
    }

    static func removeDots(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var out: [String] = []
        let parts = path.split(ascii: UInt8(ascii: "/"))
        for (i, p) in parts.enumerated() {
            if p == "." {
                if i == parts.count - 1 { out.append("") }
            } else if p == ".." {
                if out.count > 1 { out.removeLast() }
                if i == parts.count - 1 { out.append("") }
            } else {
                out.append(p)
            }
        }
        return out.joined(separator: "/")
    }
}
