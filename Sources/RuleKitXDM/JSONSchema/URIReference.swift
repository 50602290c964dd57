/// RFC 3986 reference resolution, just enough for `$id` and `$ref`: split, resolve against a base,
/// remove dot segments. No network, ever.
struct URIReference: Hashable {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?
    var fragment: String?

    init(_ text: String) {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let q = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: q)...])
            rest = rest[..<q]
        }
        if let colon = rest.firstIndex(of: ":"), rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
           rest[..<colon].first?.isLetter == true {
            scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
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
            return URIReference(scheme: r.scheme, authority: r.authority, path: Self.removeDots(r.path), query: r.query,
                                fragment: r.fragment)
        }
        if r.authority != nil {
            return URIReference(scheme: scheme, authority: r.authority, path: Self.removeDots(r.path), query: r.query,
                                fragment: r.fragment)
        }
        if r.path.isEmpty {
            return URIReference(scheme: scheme, authority: authority, path: path, query: r.query ?? query, fragment: r.fragment)
        }
        let merged: String
        if r.path.hasPrefix("/") {
            merged = r.path
        } else if authority != nil && path.isEmpty {
            merged = "/" + r.path
        } else if let slash = path.lastIndex(of: "/") {
            merged = String(path[...slash]) + r.path
        } else {
            merged = r.path
        }
        return URIReference(scheme: scheme, authority: authority, path: Self.removeDots(merged), query: r.query,
                            fragment: r.fragment)
    }

    static func removeDots(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var out: [Substring] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
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
