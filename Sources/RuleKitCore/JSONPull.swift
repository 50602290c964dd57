/// A pull reader over one JSON text, for loaders that know the structure they expect: they take its
/// containers apart token by token and build `Value`s only for the parts they keep, so the structure
/// costs no tree and no source map.
///
/// It never throws and never reports: at anything unexpected (a syntax error, a limit, a shape the
/// caller does not handle) the caller gives up, and reads the text again with `JSONReader`, which
/// reports the problem with its location. Everything it accepts, it reads exactly as `JSONReader`
/// does (the same parser underneath), and it counts the nodes the caller takes apart (`node()`)
/// against the same limits.
///
/// ```swift
/// let n: Int? = JSONPull.read(bytes, file: "x.json") { r in
///     guard r.take(UInt8(ascii: "[")), r.node() else { return nil }
///     ...
/// }
/// ```
public struct JSONPull: ~Copyable {
    var parser: JSONParser

    init(parser: consuming JSONParser) {
        self.parser = parser
    }

    /// Runs `body` with a pull reader at the start of `bytes`; nil if the text is over the size limit or
    /// `body` gives up.
    public static func read<T>(
        _ bytes: [UInt8], file: String, limits: ReaderLimits = .default, _ body: (inout JSONPull) -> T?
    ) -> T? {
        guard bytes.count <= limits.maxDocumentBytes else { return nil }
        return bytes.withUnsafeBufferPointer { buf in
            var parser = JSONParser(buf: buf, file: file, limits: limits, keepMap: false, lineOffset: 0)
            // What a caller reads this way is a structure it knows, which repeats its strings.
            parser.interner = StringInterner()
            var r = JSONPull(parser: parser)
            return body(&r)
        }
    }

    /// The limits this pull reader enforces.
    public var limits: ReaderLimits { parser.limits }

    /// The next byte after whitespace (0 at the end of the text), not consumed.
    @inline(__always)
    public mutating func peek() -> UInt8 {
        parser.skipWhitespace()
        return parser.pos < parser.buf.count ? parser.buf[parser.pos] : 0
    }

    /// Consumes `byte` if it comes next after whitespace.
    @inline(__always)
    public mutating func take(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        parser.pos += 1
        return true
    }

    /// Whether only whitespace is left.
    public mutating func atEnd() -> Bool { peek() == 0 && parser.pos >= parser.buf.count }

    /// Counts one node the caller takes apart itself (a container or a string it reads with
    /// `string()`); false past the node limit.
    @inline(__always)
    public mutating func node() -> Bool {
        parser.nodes += 1
        return parser.nodes <= parser.limits.maxNodes
    }

    /// The string that comes next (its node is not counted: see `node()`), nil if none or invalid.
    public mutating func string() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        return try? parser.parseString()
    }

    /// The whole value that comes next, read as `JSONReader` reads it; `depth` is the nesting of the
    /// container it sits in (0 for the root, 1 inside the root container, ...), for the depth limit.
    public mutating func value(depth: Int) -> Value? {
        guard peek() != 0 else { return nil }
        return try? parser.parseValue(depth: depth)
    }

    /// Where the next token starts, as `JSONReader`'s source map would place it. Must be asked in
    /// document order.
    public mutating func location() -> SourceLocation {
        _ = peek()
        return SourceLocation(
            file: parser.file, line: parser.line + parser.lineOffset,
            column: parser.advancingColumn(to: parser.pos))
    }

    /// An object key as written, matched against known keys with no `String` made (`case "id":` in a
    /// `switch`). Only keys of printable ASCII without escapes are given: a caller that matches known
    /// keys has no use for others.
    public struct Key {
        @usableFromInline let bytes: UnsafeBufferPointer<UInt8>

        package init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        /// Matches an object key against a static string, byte for byte (for `switch key { case "name": ... }`).
        @inlinable
        public static func ~= (pattern: StaticString, key: Key) -> Bool {
            let n = pattern.utf8CodeUnitCount
            guard key.bytes.count == n else { return false }
            let p = pattern.utf8Start
            for i in 0..<n where key.bytes[i] != p[i] { return false }
            return true
        }
    }

    /// The object key that comes next and the ':' after it, if it is plain (see `Key`). The key is
    /// valid until the reader's next call.
    public mutating func plainKey() -> Key? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let buf = parser.buf
        let start = parser.pos + 1
        parser.pos = start
        var high: UInt8 = 0
        parser.skipPlainStringBytes(&high)
        var i = parser.pos
        while i < buf.count {
            let c = buf[i]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 || c >= 0x80 || c == UInt8(ascii: "\\") { return nil }
            i += 1
        }
        guard i < buf.count, high < 0x80 else { return nil }
        parser.pos = i + 1
        guard take(UInt8(ascii: ":")) else { return nil }
        return Key(bytes: UnsafeBufferPointer(rebasing: buf[start..<i]))
    }

    /// Reads the members of the object that comes next: `body` gets each key (plain keys only, see
    /// `Key`) and must read its value. False at a syntax surprise, at a key that is not plain, or when
    /// `body` says false.
    @inline(__always)
    public mutating func members(_ body: (inout JSONPull, Key) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        while true {
            guard let k = plainKey(), body(&self, k) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    /// Reads the elements of the array that comes next: `body` must read each one.
    @inline(__always)
    public mutating func elements(_ body: (inout JSONPull) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        while true {
            guard body(&self) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]"))
        }
    }
}
