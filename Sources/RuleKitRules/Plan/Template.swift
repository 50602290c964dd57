/// A consequence string with `{% %}` tokens, parsed once at plan time.
public struct Template: Sendable, Hashable {
    /// A piece of a template: literal text or a token.
    public enum Segment: Sendable, Hashable {
        case text(String)
        case token(Token)
    }

    /// One `{% ... %}` tag: a key, optionally through a function.
    public struct Token: Sendable, Hashable {
        /// The key the token reads.
        public var key: KeyRef
        /// The key as written (with `%name%` data elements not yet replaced).
        public var rawKey: String
        /// The function applied to the value (`urlenc`, ...), if any.
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

    /// The text and tokens, in order.
    public var segments: [Segment]
    /// An opening delimiter without a closing one: the reference renders the whole string as "".
    public var unclosed: Bool

    /// Whether rendering can differ from the text (false for plain strings).
    public var hasTokens: Bool { unclosed || segments.contains { if case .token = $0 { true } else { false } } }

    /// Parses `text` with the given delimiters (Launch: `{%` `%}`).
    ///
    /// - Parameters:
    ///   - text: the consequence's string, tokens and all.
    ///   - open: the opening delimiter.
    ///   - close: the closing delimiter.
    ///   - resolveKey: maps tag key text to a key (data elements are substituted here).
    /// - Returns: the template, ready to render.
    public static func parse(
        _ text: String, open: String = "{%", close: String = "%}",
        resolveKey: (String) -> (KeyRef, Function?) = { (KeyRef.parse($0), nil) }
    ) -> Template {
        // Byte search: the delimiters are ASCII in practice, and a UTF-8 match of a whole delimiter
        // always starts on a character boundary, so slicing the bytes gives valid strings.
        let o = Array(open.utf8)
        let c = Array(close.utf8)
        let bytes = Array(text.utf8)
        var segments: [Segment] = []
        var pos = 0
        func string(_ from: Int, _ to: Int) -> String { String(decoding: bytes[from..<to], as: UTF8.self) }
        while let start = find(o, in: bytes, from: pos) {
            if start > pos { segments.append(.text(string(pos, start))) }
            guard let end = find(c, in: bytes, from: start + o.count) else {
                return Template(segments: [], unclosed: true)
            }
            segments.append(.token(token(string(start + o.count, end), resolveKey: resolveKey)))
            pos = end + c.count
        }
        if pos < bytes.count { segments.append(.text(string(pos, bytes.count))) }
        return Template(segments: segments, unclosed: false)
    }

    /// Whether `text` holds the two bytes "{%".
    static func containsOpen(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for b in text.utf8 {
            if previous == 0x7B && b == 0x25 { return true }
            previous = b
        }
        return false
    }

    /// The first position at or after `from` where `needle` occurs in `hay`.
    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, hay.count - needle.count >= from else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == first {
                var j = 1
                while j < needle.count && hay[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    static func token(_ content: String, resolveKey: (String) -> (KeyRef, Function?)) -> Token {
        if content.isEmpty { return Token(key: .nothing(""), rawKey: "", function: nil, isEmpty: true) }
        // name(inner): the first '(' and the last ')'; name and inner trimmed. Otherwise the key verbatim.
        let u = content.utf8
        if let open = u.firstIndex(of: 0x28), let close = u.lastIndex(of: 0x29), open < close {
            let name = content[..<open].trimmingSpaces
            let inner = content[u.index(after: open)..<close].trimmingSpaces
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
        guard let f = first, let l = last, f.isWhitespace || l.isWhitespace else { return String(self) }
        var s = self
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
