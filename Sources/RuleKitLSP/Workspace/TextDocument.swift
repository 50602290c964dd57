public import RuleKitCore

/// How the client counts a position's `character`: LSP 3.17 lets the two sides agree on UTF-8, UTF-16
/// (the default) or UTF-32 (Unicode scalars, as RuleKit's own columns count).
public enum PositionEncoding: String, Sendable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
    case utf32 = "utf-32"

    /// Code units of one scalar whose UTF-8 form is `length` bytes long.
    func units(utf8Length length: Int) -> Int {
        switch self {
        case .utf8: length
        case .utf16: length == 4 ? 2 : 1
        case .utf32: 1
        }
    }
}

/// A zero-based line and character, as the protocol counts them.
public struct Position: Sendable, Hashable, Comparable {
    /// Zero-based line.
    public var line: Int
    /// Zero-based offset in the line, in the agreed encoding's code units.
    public var character: Int

    /// The position at `line`, `character`.
    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    /// Earlier lines first, then earlier characters.
    public static func < (a: Position, b: Position) -> Bool { (a.line, a.character) < (b.line, b.character) }

    var json: Value { ["line": .int(Int64(line)), "character": .int(Int64(character))] }

    init?(_ v: Value?) {
        guard let l = v?["line"]?.intValue, let c = v?["character"]?.intValue, l >= 0, c >= 0, l < Int32.max,
            c < Int32.max
        else { return nil }
        self.init(line: Int(l), character: Int(c))
    }
}

/// A half-open span between two positions.
public struct TextRange: Sendable, Hashable {
    /// The first position in the range.
    public var start: Position
    /// The first position after it.
    public var end: Position

    /// The range from `start` to `end`.
    public init(start: Position, end: Position) {
        self.start = start
        self.end = end
    }

    var json: Value { ["start": start.json, "end": end.json] }

    init?(_ v: Value?) {
        guard let s = Position(v?["start"]), let e = Position(v?["end"]), s <= e else { return nil }
        self.init(start: s, end: e)
    }
}

/// An open document: its text as UTF-8 bytes, with where each line starts, edited in place as the client
/// sends changes. Positions convert in the client's encoding; a position past a line's end, or past the
/// last line, is clamped to it, as the protocol asks.
public struct TextDocument: Sendable {
    /// The document's URI, as the client names it.
    public let uri: String
    /// The client's version of the text (each change increases it).
    public var version: Int
    /// The text, as UTF-8.
    public private(set) var bytes: [UInt8]
    /// Byte offset of each line's start; line 0 starts at 0.
    public private(set) var lineStarts: [Int] = [0]
    /// How the client counts characters.
    public let encoding: PositionEncoding

    /// A document holding `text`.
    public init(uri: String, version: Int, text: String, encoding: PositionEncoding = .utf16) {
        self.uri = uri
        self.version = version
        self.bytes = Array(text.utf8)
        self.encoding = encoding
        indexLines()
    }

    /// The text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
    /// How many lines (a final line break opens an empty last line).
    public var lineCount: Int { lineStarts.count }

    private mutating func indexLines() {
        lineStarts = [0]
        for (i, b) in bytes.enumerated() where b == 10 { lineStarts.append(i + 1) }
    }

    /// Replaces `range` (the whole text when nil) with `text`.
    public mutating func replace(_ range: TextRange?, with text: String) {
        guard let range else {
            bytes = Array(text.utf8)
            indexLines()
            return
        }
        let a = offset(of: range.start)
        let b = max(a, offset(of: range.end))
        let inserted = Array(text.utf8)
        bytes.replaceSubrange(a..<b, with: inserted)
        // Lines are re-indexed around the edit only (a keystroke in a 10,000-rule file would otherwise scan
        // its 9 MB): starts inside the replaced bytes go, the inserted text's come in, later ones shift.
        let first = Self.firstStart(after: a, in: lineStarts)
        let last = Self.firstStart(after: b, in: lineStarts)
        let delta = inserted.count - (b - a)
        var fresh: [Int] = []
        for (i, c) in inserted.enumerated() where c == 10 { fresh.append(a + i + 1) }
        fresh.append(contentsOf: lineStarts[last...].lazy.map { $0 + delta })
        lineStarts.replaceSubrange(first..., with: fresh)
    }

    /// The index of the first line start greater than `offset`.
    private static func firstStart(after offset: Int, in starts: [Int]) -> Int {
        var lo = 0
        var hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if starts[mid] <= offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The bytes of line `line` (zero-based), without its line break.
    public func line(_ line: Int) -> ArraySlice<UInt8> {
        guard line >= 0, line < lineStarts.count else { return [] }
        let s = lineStarts[line]
        var e = line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : bytes.count
        if e > s, bytes[e - 1] == 13 { e -= 1 }
        return bytes[s..<max(s, e)]
    }

    /// The text of line `line`.
    public func lineText(_ line: Int) -> String { String(decoding: self.line(line), as: UTF8.self) }

    /// The byte offset of `p`, clamped to the text.
    public func offset(of p: Position) -> Int {
        guard p.line < lineStarts.count else { return bytes.count }
        let l = line(p.line)
        var i = l.startIndex
        var units = 0
        while i < l.endIndex, units < p.character {
            let n = Self.scalarLength(l[i])
            units += encoding.units(utf8Length: n)
            i = min(l.endIndex, i + n)
        }
        return i
    }

    /// The position of byte offset `offset` (clamped to the text).
    public func position(ofOffset offset: Int) -> Position {
        let o = max(0, min(offset, bytes.count))
        var lo = 0
        var hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= o { lo = mid } else { hi = mid - 1 }
        }
        var units = 0
        var i = lineStarts[lo]
        while i < o {
            let n = Self.scalarLength(bytes[i])
            units += encoding.units(utf8Length: n)
            i += n
        }
        return Position(line: lo, character: units)
    }

    /// The position of a RuleKit location (one-based line, one-based column in Unicode scalars).
    public func position(of location: SourceLocation) -> Position {
        let line = max(0, location.line - 1)
        guard line < lineStarts.count else { return position(ofOffset: bytes.count) }
        return position(ofOffset: offset(line: line, scalarColumn: max(0, location.column - 1)))
    }

    /// The byte offset of the `column`th scalar (zero-based) of `line`, clamped to its end.
    public func offset(line: Int, scalarColumn column: Int) -> Int {
        let l = self.line(line)
        var i = l.startIndex
        var n = 0
        while i < l.endIndex, n < column {
            i = min(l.endIndex, i + Self.scalarLength(l[i]))
            n += 1
        }
        return i
    }

    /// The length of the UTF-8 sequence a lead byte opens (1 for a stray continuation byte, so that a walk
    /// over malformed text still moves on).
    static func scalarLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: 4
        case 0xE0...: 3
        case 0xC0...: 2
        default: 1
        }
    }
}
