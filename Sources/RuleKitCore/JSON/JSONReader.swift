// The JSON reader: a byte-level parser over the input, lent to it for one call.
//
// Invariants:
// 1. The parser reads the input through a buffer lent for the call (`withUnsafeBufferPointer`, or a
//    buffer the caller lends likewise); every index is checked against `buf.count` before it is read, and
//    no pointer into the input outlives the call (strings and numbers are copied into `Value`s).
// 2. Depth, size and count limits (`ReaderLimits`) are checked before the structures they bound grow.
// The plain reference is Foundation's `JSONSerialization`, which the `json` fuzz target compares with on
// accept/reject and on every value.

internal import Foundation

/// A strict RFC 8259 JSON reader producing `Value`.
///
/// Rejects trailing commas, bad escapes, lone surrogates, leading zeros, `NaN`/`Infinity`, control
/// characters in strings and invalid UTF-8, each with `line:column`. Integers written without a
/// fraction or exponent that fit in 64 bits are `.int`; everything else numeric is `.double`, so `22.0`
/// stays a double. A later duplicate key replaces the earlier value (RFC 8259 leaves this open).
///
/// ```swift
/// let doc = try JSONReader.read(Array(#"{"a": [1, 2.0]}"#.utf8), file: "x.json")
/// doc.value["a"]   // [.int(1), .double(2.0)]
/// ```
public enum JSONReader {
    /// Reads one JSON text.
    ///
    /// - Parameters:
    ///   - bytes: the JSON text.
    ///   - file: the name diagnostics give the text.
    ///   - limits: the depth, size and count bounds of the reader.
    ///   - keepSourceMap: record each node's position (for loaders that point diagnostics at nodes).
    /// - Returns: the document read.
    /// - Throws: `DiagnosticError` with one `json.syntax` or `input.limit-exceeded` diagnostic.
    public static func read(
        _ bytes: [UInt8], file: String = "<input>", limits: ReaderLimits = .default, keepSourceMap: Bool = false
    ) throws(DiagnosticError) -> Document {
        let result: Result<Document, DiagnosticError> = bytes.withUnsafeBufferPointer { buf in
            Result { () throws(DiagnosticError) in
                try read(buffer: buf, file: file, limits: limits, keepSourceMap: keepSourceMap, lineOffset: 0)
            }
        }
        return try result.get()
    }

    /// Reads one JSON text from a string.
    public static func read(
        _ text: String, file: String = "<input>", limits: ReaderLimits = .default, keepSourceMap: Bool = false
    ) throws(DiagnosticError) -> Document {
        try read(Array(text.utf8), file: file, limits: limits, keepSourceMap: keepSourceMap)
    }

    /// Just the value of one JSON text.
    public static func value(_ text: String, limits: ReaderLimits = .default) throws(DiagnosticError) -> Value {
        try read(text, limits: limits).value
    }

    /// Reads a sequence of JSON texts separated only by whitespace (`1 {"a":2} [3]`), as some test
    /// suites store multi-document expectations.
    public static func readSequence(
        _ bytes: [UInt8], file: String = "<input>", limits: ReaderLimits = .default
    ) throws(DiagnosticError) -> [Value] {
        let result: Result<[Value], DiagnosticError> = bytes.withUnsafeBufferPointer { buf in
            Result { () throws(DiagnosticError) -> [Value] in
                var p = JSONParser(buf: buf, file: file, limits: limits, keepMap: false, lineOffset: 0)
                var out: [Value] = []
                p.skipWhitespace()
                while p.pos < buf.count {
                    out.append(try p.parseValue(depth: 0))
                    p.skipWhitespace()
                }
                return out
            }
        }
        return try result.get()
    }

    /// Reads one JSON text from part of a byte array; `lineOffset` shifts reported lines (for JSON lines).
    public static func read(
        _ bytes: ArraySlice<UInt8>, file: String, limits: ReaderLimits = .default, keepSourceMap: Bool = false,
        lineOffset: Int = 0
    ) throws(DiagnosticError) -> Document {
        let result = bytes.withUnsafeBufferPointer { b in
            Result { () throws(DiagnosticError) -> Document in
                try read(buffer: b, file: file, limits: limits, keepSourceMap: keepSourceMap, lineOffset: lineOffset)
            }
        }
        return try result.get()
    }

    /// Reads one JSON text and the exact text of one member of its top-level object: a copy of the bytes
    /// of `member`'s value, or nil when there is no such member or when some key of the text appears twice
    /// in one object (the text would then not read back as the value).
    public static func read(
        _ bytes: ArraySlice<UInt8>, file: String, limits: ReaderLimits = .default, lineOffset: Int = 0,
        keepingTextOf member: String
    ) throws(DiagnosticError) -> (Value, [UInt8]?) {
        var interner: StringInterner? = nil
        var chunk: TapeNodeChunk? = nil
        let r = try read(
            bytes, file: file, limits: limits, lineOffset: lineOffset, capturing: member, asTape: false, interner: &interner,
            nodeChunk: &chunk)
        return (r.value, r.memberText)
    }

    /// Reads one JSON text whose top-level member `member`, when it is an object the tape takes, is read
    /// into a `JSONTape` (and left out of the value); otherwise it stays in the value, and its exact text
    /// is kept as by `read(_:file:limits:lineOffset:keepingTextOf:)`.
    public static func read(
        _ bytes: ArraySlice<UInt8>, file: String, limits: ReaderLimits = .default, lineOffset: Int = 0,
        tapeOf member: String
    ) throws(DiagnosticError) -> (value: Value, tape: JSONTape?, memberText: [UInt8]?) {
        var interner: StringInterner? = nil
        var chunk: TapeNodeChunk? = nil
        return try read(
            bytes, file: file, limits: limits, lineOffset: lineOffset, capturing: member, asTape: true, interner: &interner,
            nodeChunk: &chunk)
    }

    /// Both of the above, in one place: `member` is captured as a tape when `asTape` and the tape takes it,
    /// else as text. The strings of the rest of the text (an event's name, type and source, the same on
    /// line after line) are shared through `interner`, and the tape's nodes go to `nodeChunk` when there
    /// is one (see `TapeNodeChunk`), which is then the chunk for the next line.
    package static func read(
        _ bytes: ArraySlice<UInt8>, file: String, limits: ReaderLimits, lineOffset: Int, capturing member: String,
        asTape: Bool, interner: inout StringInterner?, nodeChunk: inout TapeNodeChunk?
    ) throws(DiagnosticError) -> (value: Value, tape: JSONTape?, memberText: [UInt8]?) {
        let r = try read(
            bytes, file: file, limits: limits, lineOffset: lineOffset, capturing: member, asTape: asTape, interner: &interner,
            nodeChunk: &nodeChunk, prefix: false)
        return (r.value, r.tape, r.memberText)
    }

    /// The same reading of the value that starts `bytes`, which may go on past it (an element of an
    /// array, read with the rest of the array after it, so that no scan has to find its end first), and
    /// the index of `bytes` just past the value and the white space after it.
    package static func readPrefix(
        _ bytes: ArraySlice<UInt8>, file: String, limits: ReaderLimits, lineOffset: Int, capturing member: String,
        interner: inout StringInterner?, nodeChunk: inout TapeNodeChunk?
    ) throws(DiagnosticError) -> (value: Value, tape: JSONTape?, memberText: [UInt8]?, end: Int) {
        try read(
            bytes, file: file, limits: limits, lineOffset: lineOffset, capturing: member, asTape: true, interner: &interner,
            nodeChunk: &nodeChunk, prefix: true)
    }

    /// Both of the above: with `prefix`, text after the value is left unread, and the size limit applies
    /// to the value's text once its end is known (the caller's `bytes` are bounded already).
    private static func read(
        _ bytes: ArraySlice<UInt8>, file: String, limits: ReaderLimits, lineOffset: Int, capturing member: String,
        asTape: Bool, interner: inout StringInterner?, nodeChunk: inout TapeNodeChunk?, prefix: Bool
    ) throws(DiagnosticError) -> (value: Value, tape: JSONTape?, memberText: [UInt8]?, end: Int) {
        var lent = interner.take()
        defer { interner = lent.take() }
        var chunk = nodeChunk.take()
        defer { nodeChunk = chunk.take() }
        let result = bytes.withUnsafeBufferPointer { b in
            Result { () throws(DiagnosticError) -> (Value, JSONTape?, [UInt8]?, Int) in
                if !prefix { try checkSize(b.count, file: file, limits: limits, lineOffset: lineOffset) }
                var p = JSONParser(buf: b, file: file, limits: limits, keepMap: false, lineOffset: lineOffset)
                p.captureKey = member
                p.capturesTape = asTape
                p.leavesTrailingText = prefix
                if asTape { p.source = bytes }
                p.interner = lent.take()
                p.nodeChunk = chunk.take()
                defer {
                    lent = p.interner.take()
                    chunk = p.nodeChunk.take()
                }
                p.skipWhitespace()
                // The usual event line first, without the general reader's bookkeeping.
                if asTape, let (o, tape) = p.envelope(member: member) {
                    if prefix { try checkSize(p.pos, file: file, limits: limits, lineOffset: lineOffset) }
                    return (.object(o), tape, nil, bytes.startIndex + p.pos)
                }
                var v = try p.parseValue(depth: 0)
                p.skipWhitespace()
                if prefix {
                    try checkSize(p.pos, file: file, limits: limits, lineOffset: lineOffset)
                } else if p.pos < b.count {
                    throw p.error("unexpected text after the JSON value")
                }
                let end = bytes.startIndex + p.pos
                guard let tape = p.capturedTape, case .object(var o) = v else {
                    return (v, nil, p.sawDuplicate ? nil : p.captured.map { Array(b[$0]) }, end)
                }
                // `v` let go first: the object's members are then `o`'s alone, and the removal copies none.
                v = .null
                o[member] = nil
                return (.object(o), tape, nil, end)
            }
        }
        return try result.get()
    }

    /// Refuses a document over `limits.maxDocumentBytes` before any of it is parsed.
    static func checkSize(_ count: Int, file: String, limits: ReaderLimits, lineOffset: Int) throws(DiagnosticError) {
        guard count <= limits.maxDocumentBytes else {
            throw DiagnosticError(
                .error(
                    .limitExceeded, "document is \(count) bytes, over the limit of \(limits.maxDocumentBytes)",
                    at: SourceLocation(file: file, line: 1 + lineOffset, column: 1)))
        }
    }

    /// Reads from memory lent for the call; `lineOffset` shifts reported lines (for JSON lines).
    package static func read(
        buffer: UnsafeBufferPointer<UInt8>, file: String, limits: ReaderLimits = .default,
        keepSourceMap: Bool = false, lineOffset: Int = 0
    ) throws(DiagnosticError) -> Document {
        try checkSize(buffer.count, file: file, limits: limits, lineOffset: lineOffset)
        var p = JSONParser(buf: buffer, file: file, limits: limits, keepMap: keepSourceMap, lineOffset: lineOffset)
        // One node per dozen bytes or so is usual: reserving that much spares the map's growth copies (of
        // a large array, each one fresh pages from the kernel).
        if keepSourceMap { p.entries.reserveCapacity(min(buffer.count / 12, limits.maxNodes) + 16) }
        do {
            // A UTF-8 byte order mark is not JSON (RFC 8259 §8.1 says MUST NOT add; we reject it).
            p.skipWhitespace()
            let v = try p.parseValue(depth: 0)
            p.skipWhitespace()
            if p.pos < buffer.count { throw p.error("unexpected text after the JSON value") }
            let map = keepSourceMap ? SourceMap(file: file, entries: p.entries) : nil
            return Document(value: v, sourceMap: map)
        } catch let e as DiagnosticError {
            throw e
        } catch {
            throw DiagnosticError(.error(.jsonSyntax, "\(error)"))
        }
    }
}

/// The recursive-descent core. Positions are byte offsets; lines are tracked in whitespace (the only
/// place a JSON text may hold a newline), columns computed when needed.
struct JSONParser: ~Copyable {
    /// What the reader learnt of an open object's key while scanning it, for the duplicate check.
    struct KeyInfo {
        /// FNV-1a of the key's UTF-8 bytes.
        var hash: UInt64
        var ascii: Bool
        /// The source-map entry of the member's value (when keeping a map).
        var entry: Int
    }

    let buf: UnsafeBufferPointer<UInt8>
    let file: String
    let limits: ReaderLimits
    let keepMap: Bool
    let lineOffset: Int
    var pos = 0
    var line = 1
    var lineStart = 0
    var nodes = 0
    var entries: [SourceMap.Entry] = []
    var pendingKey: (UInt32, UInt32) = (0, 0)
    /// The children of the open containers, moved into exact-size arrays when each closes.
    // Room for 24 children at first: a reader is made per JSON line, and stacks this small come from the
    // allocator's per-thread cache (64 members, 2 KB, took its slower path for every line).
    var elements = ScratchStack<Value>(capacity: 24)
    var members = ScratchStack<ValueObject.Member>(capacity: 24)
    var keyInfo = ScratchStack<KeyInfo>(capacity: 24)
    /// The last column computed on the current line and where: columns of the next nodes count on from
    /// there (recounting from the line start would be quadratic on a minified one-line document).
    var columnAt = 0
    var columnValue = 1
    /// Where the current line's first non-ASCII string starts (Int.max: none yet). Before it, a column
    /// is the byte distance from the line start; after it, characters are counted.
    var firstNonASCII = Int.max
    /// When set, the byte range of the top-level object's member of this name is kept in `captured`.
    var captureKey: String?
    var captured: Range<Int>?
    /// When set, the captured member is read into `capturedTape` when the tape takes it.
    var capturesTape = false
    /// Whether tapes read keep their nodes' positions (`JSONReader.tape(_:limits:keepingPositions:)`).
    var tapePositions = false
    var capturedTape: JSONTape?
    /// The array slice `buf` lends, when the caller has one: a tape's text is then a slice of it (the
    /// same bytes, kept alive by the tape), not a copy.
    var source: ArraySlice<UInt8>?
    /// Whether any object of the text had a key twice (a later one replaced an earlier value).
    var sawDuplicate = false
    /// Whether text may follow the top-level value (`JSONReader.readPrefix`): the reader then stops at its
    /// end, and a tape's first guess at its size is not taken from the rest of the text.
    var leavesTrailingText = false
    /// When set, strings of more than 15 bytes are shared between equal occurrences (rules files repeat
    /// their keys, URLs and tokens thousands of times).
    var interner: StringInterner?
    /// When set, tapes put their nodes in this shared memory (the lines of a block), not one allocation
    /// each; the chunk in use when the reader is done serves the next reader.
    var nodeChunk: TapeNodeChunk?

    init(buf: UnsafeBufferPointer<UInt8>, file: String, limits: ReaderLimits, keepMap: Bool, lineOffset: Int) {
        self.buf = buf
        self.file = file
        self.limits = limits
        self.keepMap = keepMap
        self.lineOffset = lineOffset
    }

    /// The column of `offset`, which must not precede the last one asked for on this line.
    mutating func advancingColumn(to offset: Int) -> Int {
        if offset <= firstNonASCII {
            columnAt = offset
            columnValue = offset - lineStart + 1
            return columnValue
        }
        if columnAt < lineStart {
            columnAt = lineStart
            columnValue = 1
        }
        var i = columnAt
        var col = columnValue
        while i < offset {
            if buf[i] & 0xC0 != 0x80 { col += 1 }
            i += 1
        }
        columnAt = offset
        columnValue = col
        return col
    }

    func column(at offset: Int) -> Int {
        var col = 1
        var i = lineStart
        while i < offset && i < buf.count {
            if buf[i] & 0xC0 != 0x80 { col += 1 }
            i += 1
        }
        return col
    }

    func location(at offset: Int) -> SourceLocation {
        // Errors may sit past a newline inside a string; recount from the start for exactness.
        var l = 1
        var start = 0
        var i = 0
        let end = min(offset, buf.count)
        while i < end {
            if buf[i] == 0x0A {
                l += 1
                start = i + 1
            }
            i += 1
        }
        var col = 1
        i = start
        while i < end {
            if buf[i] & 0xC0 != 0x80 { col += 1 }
            i += 1
        }
        return SourceLocation(file: file, line: l + lineOffset, column: col)
    }

    func error(_ message: String, at offset: Int? = nil, code: DiagnosticCode = .jsonSyntax) -> DiagnosticError {
        DiagnosticError(.error(code, message, at: location(at: offset ?? pos)))
    }

    @inline(__always)
    mutating func skipWhitespace() {
        // Most calls find no whitespace at all: one test, no loop.
        guard pos < buf.count, buf[pos] <= 0x20 else { return }
        skipWhitespaceRun()
    }

    mutating func skipWhitespaceRun() {
        guard let base = buf.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        let n = buf.count
        while pos < n {
            switch buf[pos] {
            case 0x20:
                // Pretty-printed indentation: eight bytes at a time, the first other byte found from the
                // bits of the word (the byte at `pos` is a space, so this always moves on).
                if pos + 8 <= n {
                    let w =
                        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: pos, as: UInt64.self))
                        ^ 0x2020_2020_2020_2020
                    pos += w == 0 ? 8 : w.trailingZeroBitCount >> 3
                } else {
                    pos += 1
                }
            case 0x09, 0x0D:
                pos += 1
            case 0x0A:
                pos += 1
                line += 1
                lineStart = pos
                firstNonASCII = Int.max
            default: return
            }
        }
    }

    func describe(_ b: UInt8) -> String {
        if b >= 0x21 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return String(format: "byte 0x%02X", b)
    }

    mutating func beginEntry() -> Int {
        guard keepMap else { return 0 }
        let e = SourceMap.Entry(
            line: UInt32(line + lineOffset), column: UInt32(advancingColumn(to: pos)),
            keyLine: pendingKey.0, keyColumn: pendingKey.1)
        pendingKey = (0, 0)
        entries.append(e)
        return entries.count - 1
    }

    mutating func endEntry(_ i: Int) {
        guard keepMap else { return }
        entries[i].span = UInt32(entries.count - i)
    }

    mutating func parseValue(depth: Int) throws(DiagnosticError) -> Value {
        guard pos < buf.count else { throw error("unexpected end of input, expected a value") }
        nodes += 1
        if nodes > limits.maxNodes {
            throw error("more than \(limits.maxNodes) values", code: .limitExceeded)
        }
        let entry = beginEntry()
        let b = buf[pos]
        let v: Value
        switch b {
        case UInt8(ascii: "{"): v = try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): v = try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): v = .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            v = .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            v = .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            v = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): v = try parseNumber()
        default:
            if b == UInt8(ascii: "N") || b == UInt8(ascii: "I") {
                throw error("NaN and Infinity are not JSON numbers")
            }
            if b == 0xEF && pos + 2 < buf.count && buf[pos + 1] == 0xBB && buf[pos + 2] == 0xBF {
                throw error("a byte order mark is not allowed in JSON")
            }
            throw error("unexpected \(describe(b)), expected a value")
        }
        endEntry(entry)
        return v
    }

    mutating func literal(_ word: StaticString) throws(DiagnosticError) {
        let n = word.utf8CodeUnitCount
        let start = pos
        guard pos + n <= buf.count else { throw error("invalid literal", at: start) }
        let w = word.utf8Start
        for i in 0..<n where buf[pos + i] != w[i] {
            throw error("invalid literal", at: start)
        }
        pos += n
    }

    mutating func parseArray(depth: Int) throws(DiagnosticError) -> Value {
        if depth > limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth) levels", code: .limitExceeded)
        }
        pos += 1
        skipWhitespace()
        if pos < buf.count && buf[pos] == UInt8(ascii: "]") {
            pos += 1
            return .array([])
        }
        let start = elements.count
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard pos < buf.count else { throw error("unexpected end of input inside an array") }
            let c = buf[pos]
            pos += 1
            if c == UInt8(ascii: ",") {
                skipWhitespace()
                if pos < buf.count && buf[pos] == UInt8(ascii: "]") {
                    throw error("trailing comma before ']'", at: pos)
                }
                continue
            }
            if c == UInt8(ascii: "]") { return .array(elements.popArray(from: start)) }
            throw error("unexpected \(describe(c)) in an array, expected ',' or ']'", at: pos - 1)
        }
    }

    mutating func parseObject(depth: Int) throws(DiagnosticError) -> Value {
        if depth > limits.maxDepth {
            throw error("nesting deeper than \(limits.maxDepth) levels", code: .limitExceeded)
        }
        pos += 1
        skipWhitespace()
        if pos < buf.count && buf[pos] == UInt8(ascii: "}") {
            pos += 1
            return .object(ValueObject())
        }
        let start = members.count
        var anyDot = false
        var allASCII = true
        // Past a couple of dozen keys, duplicates are found by hashing rather than by scanning.
        var positions: [String: Int]? = nil
        // One bit per key hash seen in this object (ASCII keys): a key whose bit is clear is no duplicate,
        // and most objects are then never scanned.
        var seen: UInt64 = 0
        while true {
            skipWhitespace()
            guard pos < buf.count else { throw error("unexpected end of input inside an object") }
            guard buf[pos] == UInt8(ascii: "\"") else {
                if buf[pos] == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
                throw error("unexpected \(describe(buf[pos])), expected a string key")
            }
            let keyLine = UInt32(line + lineOffset)
            let keyCol = keepMap ? UInt32(advancingColumn(to: pos)) : 0
            var info = KeyInfo(hash: 0, ascii: true, entry: 0)
            let key = try parseKey(&info, &anyDot)
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: ":") else {
                throw error("expected ':' after an object key")
            }
            pos += 1
            skipWhitespace()
            if keepMap { pendingKey = (keyLine, keyCol) }
            info.entry = entries.count
            let valueStart = pos
            let value: Value
            if depth == 1, let k = captureKey, k == key {
                // The kept member: its text, and its tape when asked for one (the member is then left out
                // of the value: the tape stands for it).
                if capturesTape, let t = tape(depth: depth) {
                    capturedTape = t
                    value = .null
                } else {
                    capturedTape = nil
                    value = try parseValue(depth: depth)
                }
                captured = valueStart..<pos
            } else {
                value = try parseValue(depth: depth)
            }
            let bit: UInt64 = info.ascii ? 1 << (info.hash >> 58) : 0
            let duplicate: Int?
            if let positions {
                duplicate = positions[key]
            } else if bit != 0 && seen & bit == 0 && allASCII {
                duplicate = nil
            } else {
                duplicate = duplicateMember(key, info, from: start)
            }
            seen |= bit
            if let i = duplicate {
                sawDuplicate = true
                members[i].value = value
                if keepMap {
                    let valueStart = info.entry
                    let oldSpan = Int(entries[keyInfo[i].entry].span)
                    let newSpan = entries.count - valueStart
                    replaceEntries(ofMemberStartingAt: keyInfo[i].entry, withRunFrom: valueStart)
                    for j in (i + 1)..<keyInfo.count { keyInfo[j].entry += newSpan - oldSpan }
                }
            } else {
                members.append(ValueObject.Member(key: key, value: value))
                if !info.ascii { allASCII = false }
                keyInfo.append(info)
                if positions != nil {
                    positions![key] = members.count - 1
                } else if members.count - start == ValueObject.indexThreshold {
                    var table = [String: Int](minimumCapacity: 2 * ValueObject.indexThreshold)
                    for j in start..<members.count { table[members[j].key] = j }
                    positions = table
                }
            }
            skipWhitespace()
            guard pos < buf.count else { throw error("unexpected end of input inside an object") }
            let c = buf[pos]
            pos += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") {
                keyInfo.removeAll(from: start)
                return .object(
                    ValueObject(
                        members: members.popArray(from: start), anyKeyHasDot: anyDot,
                        allKeysASCII: allASCII))
            }
            throw error("unexpected \(describe(c)) in an object, expected ',' or '}'", at: pos - 1)
        }
    }

    /// The stack position of an earlier member of the open object (from `start`) with this key. Two
    /// ASCII keys are equal only if their bytes are, so their hashes decide first; a non-ASCII key may
    /// equal a differently spelt one (canonical equivalence), so it is compared as a `String`.
    func duplicateMember(_ key: String, _ info: KeyInfo, from start: Int) -> Int? {
        var j = start
        while j < members.count {
            let other = keyInfo[j]
            if info.ascii && other.ascii {
                if other.hash == info.hash && members[j].key == key { return j }
            } else if members[j].key == key {
                return j
            }
            j += 1
        }
        return nil
    }

    /// Keeps the source map aligned with the object when a duplicate key replaced an earlier member:
    /// the new value's entries (the last run) move into the old member's place.
    mutating func replaceEntries(ofMemberStartingAt old: Int, withRunFrom new: Int) {
        let oldEnd = old + Int(entries[old].span)
        let run = Array(entries[new...])
        entries.removeSubrange(new...)
        entries.replaceSubrange(old..<oldEnd, with: run)
    }

    mutating func parseNumber() throws(DiagnosticError) -> Value {
        let start = pos
        var isInt = true
        if buf[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < buf.count, isDigit(buf[pos]) else { throw error("a number needs digits", at: start) }
        if buf[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < buf.count && isDigit(buf[pos]) { throw error("leading zeros are not allowed", at: start) }
        } else {
            while pos < buf.count && isDigit(buf[pos]) { pos += 1 }
        }
        if pos < buf.count && buf[pos] == UInt8(ascii: ".") {
            isInt = false
            pos += 1
            guard pos < buf.count, isDigit(buf[pos]) else { throw error("a fraction needs digits after '.'") }
            while pos < buf.count && isDigit(buf[pos]) { pos += 1 }
        }
        if pos < buf.count && (buf[pos] == UInt8(ascii: "e") || buf[pos] == UInt8(ascii: "E")) {
            isInt = false
            pos += 1
            if pos < buf.count && (buf[pos] == UInt8(ascii: "+") || buf[pos] == UInt8(ascii: "-")) { pos += 1 }
            guard pos < buf.count, isDigit(buf[pos]) else { throw error("an exponent needs digits") }
            while pos < buf.count && isDigit(buf[pos]) { pos += 1 }
        }
        let slice = UnsafeBufferPointer(rebasing: buf[start..<pos])
        if isInt, let i = parseInt64(slice) { return .int(i) }
        let d = parseDouble(slice)
        // JSON has no infinity: a number past Double's range would be written back as null.
        guard d.isFinite else { throw error("number out of range (over ±1.8e308)", at: start) }
        return .double(d)
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
}

/// Decimal digits with an optional leading '-' to Int64; nil on overflow.
func parseInt64(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
    var i = 0
    var neg = false
    if s.first == UInt8(ascii: "-") {
        neg = true
        i = 1
    }
    guard i < s.count else { return nil }
    var acc: Int64 = 0
    while i < s.count {
        let d = Int64(s[i] &- 0x30)
        let (m, o1) = acc.multipliedReportingOverflow(by: 10)
        let (r, o2) = neg ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
        if o1 || o2 { return nil }
        acc = r
        i += 1
    }
    return acc
}

/// Correctly rounded text → Double (the input is already validated JSON number text): Clinger's fast path
/// where it is exact, else the C library.
func parseDouble(_ s: UnsafeBufferPointer<UInt8>) -> Double {
    fastDouble(s) ?? libcDouble(s)
}

/// Clinger's fast path: a decimal significand of at most 2^53 and a power of ten of at most 22 are both
/// exact doubles, so one multiplication or division, rounded once by IEEE arithmetic, is the correctly
/// rounded value. nil for anything else (more digits, a larger exponent). `libcDouble` is its reference
/// (`JSONReaderTests` compares them).
func fastDouble(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
    var i = 0
    let negative = s.first == UInt8(ascii: "-")
    if negative { i = 1 }
    var significand: UInt64 = 0
    var digits = 0
    var exponent = 0
    var fraction = false
    while i < s.count {
        let c = s[i]
        if c == UInt8(ascii: ".") {
            fraction = true
        } else if c &- 0x30 < 10 {
            // Leading zeros do not count against the 19 digits a UInt64 holds.
            if significand != 0 || c != 0x30 { digits += 1 }
            guard digits <= 19 else { return nil }
            significand = significand &* 10 &+ UInt64(c &- 0x30)
            if fraction { exponent -= 1 }
        } else {
            break
        }
        i += 1
    }
    if i < s.count {
        // 'e' or 'E', an optional sign, digits (validated by the reader).
        i += 1
        var sign = 1
        if s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") {
            if s[i] == UInt8(ascii: "-") { sign = -1 }
            i += 1
        }
        var e = 0
        while i < s.count {
            e = e * 10 + Int(s[i] &- 0x30)
            guard e <= 1_000 else { return nil }
            i += 1
        }
        exponent += sign * e
    }
    guard significand <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
    let d = Double(significand)
    let r = exponent < 0 ? d / exactPowersOfTen[-exponent] : d * exactPowersOfTen[exponent]
    return negative ? -r : r
}

/// 10^0 ... 10^22: every one an exact double.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
]

/// Text → Double through the C library's `strtod` (correctly rounded).
func libcDouble(_ s: UnsafeBufferPointer<UInt8>) -> Double {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: s.count + 1) { tmp in
        for i in 0..<s.count { tmp[i] = CChar(bitPattern: s[i]) }
        tmp[s.count] = 0
        return strtod(tmp.baseAddress!, nil)
    }
}
