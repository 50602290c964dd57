/// A consequence string with `{% %}` tokens, parsed once at plan time.
public struct Template: Sendable, Hashable {
    public enum Segment: Sendable, Hashable {
        case text(String)
        case token(Token)
    }

    /// One `{% ... %}` tag: a key, optionally through a function.
    public struct Token: Sendable, Hashable {
        public var key: KeyRef
        public var rawKey: String
        public var function: Function?
        /// The tag was empty (`{%%}`): renders "".
        public var isEmpty: Bool
    }

    /// Conversion functions; any other name is the identity, as in the reference.
    public enum Function: Sendable, Hashable {
        case urlenc, int, double, string, bool
        case unknown(String)

        init(name: String) {
            switch name {
            case "urlenc": self = .urlenc
            case "int": self = .int
            case "double": self = .double
            case "string": self = .string
            case "bool": self = .bool
            default: self = .unknown(name)
            }
        }
    }

    public var segments: [Segment]
    /// An opening delimiter without a closing one: the reference renders the whole string as "".
    public var unclosed: Bool

    /// Whether rendering can differ from the text (false for plain strings).
    public var hasTokens: Bool { unclosed || segments.contains { if case .token = $0 { true } else { false } } }

    /// Parses `text` with the given delimiters (Launch: `{%` `%}`).
    ///
    /// - Parameter resolveKey: maps tag key text to a key (data elements are substituted here).
    public static func parse(_ text: String, open: String = "{%", close: String = "%}",
                             resolveKey: (String) -> (KeyRef, Function?) = { (KeyRef.parse($0), nil) }) -> Template {
        var segments: [Segment] = []
        var rest = Substring(text)
        while let o = rest.range(of: open) {
            if o.lowerBound > rest.startIndex { segments.append(.text(String(rest[..<o.lowerBound]))) }
            let after = rest[o.upperBound...]
            guard let c = after.range(of: close) else {
                return Template(segments: [], unclosed: true)
            }
            let content = String(after[..<c.lowerBound])
            segments.append(.token(token(content, resolveKey: resolveKey)))
            rest = after[c.upperBound...]
        }
        if !rest.isEmpty { segments.append(.text(String(rest))) }
        return Template(segments: segments, unclosed: false)
    }

    static func token(_ content: String, resolveKey: (String) -> (KeyRef, Function?)) -> Token {
        if content.isEmpty { return Token(key: .nothing(""), rawKey: "", function: nil, isEmpty: true) }
        // name(inner): the first '(' and the last ')'; name and inner trimmed. Otherwise the key verbatim.
        if let open = content.firstIndex(of: "("), let close = content.lastIndex(of: ")"), open < close {
            let name = content[..<open].trimmingSpaces
            let inner = content[content.index(after: open)..<close].trimmingSpaces
            let (key, _) = resolveKey(inner)
            return Token(key: key, rawKey: inner, function: Function(name: name), isEmpty: false)
        }
        let (key, implied) = resolveKey(content)
        return Token(key: key, rawKey: content, function: implied, isEmpty: false)
    }

    /// Tokens used, for the linter.
    public var tokens: [Token] {
        segments.compactMap { if case .token(let t) = $0 { t } else { nil } }
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
