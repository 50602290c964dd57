// The JSON reader's tape mode: one object read into a `JSONTape` instead of a tree of `Value`s.
//
// Invariants: as `JSONReader.swift` (every index checked against `buf.count`, limits checked before what
// they bound grows), and the tape's own (`JSONTape.swift`). The tape reader reports no errors of its own:
// on anything it does not take (bad JSON, a limit, a key that is not plain ASCII, a repeated key) it puts
// the parser back where it started and the caller reads the same text as a `Value`, so every message and
// every value a document can produce still comes from the one reader.

extension JSONParser {
    /// What a tape is built from while it is read.
    struct TapeBuilder {
        /// Where the object's text starts in the input: string offsets count from there.
        let base: Int
        var nodes: [JSONTape.Node] = []
        var arena: [UInt8] = []
        /// The key nodes of the open objects, for the duplicate check.
        var keys: [Int] = []
    }

    /// Reads the object at `pos` (depth `depth` of the document) into a tape; nil, with the parser put
    /// back as it was, when the text is not one the tape takes (see the file's note).
    mutating func tape(depth: Int) -> JSONTape? {
        // String ranges are 32-bit offsets.
        guard pos < buf.count, buf[pos] == UInt8(ascii: "{"), buf.count - pos <= Int(UInt32.max) else { return nil }
        let saved = (pos, line, lineStart, nodes, columnAt, columnValue, firstNonASCII)
        var b = TapeBuilder(base: pos)
        // About one node per 16 bytes of event data.
        b.nodes.reserveCapacity((buf.count - pos) / 16 + 4)
        if tapeValue(depth: depth, &b) {
            return JSONTape(text: Array(buf[b.base..<pos]), arena: b.arena, nodes: b.nodes)
        }
        (pos, line, lineStart, nodes, columnAt, columnValue, firstNonASCII) = saved
        return nil
    }

    private mutating func tapeValue(depth: Int, _ b: inout TapeBuilder) -> Bool {
        guard pos < buf.count else { return false }
        nodes += 1
        if nodes > limits.maxNodes { return false }
        switch buf[pos] {
        case UInt8(ascii: "{"): return tapeObject(depth: depth + 1, &b)
        case UInt8(ascii: "["): return tapeArray(depth: depth + 1, &b)
        case UInt8(ascii: "\""): return tapeString(&b)
        case UInt8(ascii: "t"):
            guard (try? literal("true")) != nil else { return false }
            b.nodes.append(JSONTape.Node(.bool, payload: 1))
        case UInt8(ascii: "f"):
            guard (try? literal("false")) != nil else { return false }
            b.nodes.append(JSONTape.Node(.bool))
        case UInt8(ascii: "n"):
            guard (try? literal("null")) != nil else { return false }
            b.nodes.append(JSONTape.Node(.null))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch try? parseNumber() {
            case .int(let i)?: b.nodes.append(JSONTape.Node(.int, payload: UInt64(bitPattern: i)))
            case .double(let d)?: b.nodes.append(JSONTape.Node(.double, payload: d.bitPattern))
            default: return false
            }
        default: return false
        }
        return true
    }

    private mutating func tapeObject(depth: Int, _ b: inout TapeBuilder) -> Bool {
        guard depth <= limits.maxDepth else { return false }
        let at = b.nodes.count
        b.nodes.append(JSONTape.Node(.object))
        pos += 1
        skipWhitespace()
        if pos < buf.count && buf[pos] == UInt8(ascii: "}") {
            pos += 1
            b.nodes[at].payload = UInt64(b.nodes.count)
            return true
        }
        let keysFrom = b.keys.count
        defer { b.keys.removeSubrange(keysFrom...) }
        var count: UInt32 = 0
        var dotted = false
        // One bit per key hash seen: a key whose bit is clear is new, and most objects are never scanned.
        var seen: UInt64 = 0
        while true {
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: "\"") else { return false }
            let start = pos + 1
            var i = start
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            while i < buf.count {
                let c = buf[i]
                if c == UInt8(ascii: "\"") { break }
                // Escapes, control characters and non-ASCII keys: the `Value` reader's business.
                if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return false }
                if c == 0x2E { dotted = true }
                hash = (hash ^ UInt64(c)) &* 0x100_0000_01B3
                i += 1
            }
            guard i < buf.count, i - start <= limits.maxScalarBytes else { return false }
            pos = i + 1
            let key = UnsafeBufferPointer(rebasing: buf[start..<i])
            let bit: UInt64 = 1 << (hash >> 58)
            if seen & bit != 0 {
                for k in b.keys[keysFrom...] {
                    let p = b.nodes[k].payload
                    let other = UnsafeBufferPointer(rebasing: buf[(b.base + Int(p & 0xFFFF_FFFF))...].prefix(Int(p >> 32)))
                    if other.elementsEqual(key) { return false }
                }
            }
            seen |= bit
            b.keys.append(b.nodes.count)
            b.nodes.append(JSONTape.Node(.string, payload: UInt64(start - b.base) | UInt64(i - start) << 32))
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: ":") else { return false }
            pos += 1
            skipWhitespace()
            guard tapeValue(depth: depth, &b) else { return false }
            count += 1
            skipWhitespace()
            guard pos < buf.count else { return false }
            let c = buf[pos]
            pos += 1
            if c == UInt8(ascii: ",") { continue }
            guard c == UInt8(ascii: "}") else { return false }
            b.nodes[at] = JSONTape.Node(
                .object, flags: dotted ? JSONTape.Node.dottedFlag : 0, count: count, payload: UInt64(b.nodes.count))
            return true
        }
    }

    private mutating func tapeArray(depth: Int, _ b: inout TapeBuilder) -> Bool {
        guard depth <= limits.maxDepth else { return false }
        let at = b.nodes.count
        b.nodes.append(JSONTape.Node(.array))
        pos += 1
        skipWhitespace()
        if pos < buf.count && buf[pos] == UInt8(ascii: "]") {
            pos += 1
            b.nodes[at].payload = UInt64(b.nodes.count)
            return true
        }
        var count: UInt32 = 0
        while true {
            skipWhitespace()
            guard tapeValue(depth: depth, &b) else { return false }
            count += 1
            skipWhitespace()
            guard pos < buf.count else { return false }
            let c = buf[pos]
            pos += 1
            if c == UInt8(ascii: ",") { continue }
            guard c == UInt8(ascii: "]") else { return false }
            b.nodes[at] = JSONTape.Node(.array, count: count, payload: UInt64(b.nodes.count))
            return true
        }
    }

    /// A string value: a range of the text when it has no escapes, its decoded bytes in the arena when it
    /// has (decoded by `parseString`, the reader's own).
    private mutating func tapeString(_ b: inout TapeBuilder) -> Bool {
        let open = pos
        pos += 1
        let start = pos
        var high: UInt8 = 0
        while pos < buf.count {
            skipPlainStringBytes(&high)
            guard pos < buf.count else { break }
            let c = buf[pos]
            if c == UInt8(ascii: "\"") {
                let count = pos - start
                guard count <= limits.maxScalarBytes else { return false }
                if high >= 0x80 {
                    guard isValidUTF8(UnsafeBufferPointer(rebasing: buf[start..<pos])) else { return false }
                    sawNonASCII(at: start)
                }
                pos += 1
                let flags = high >= 0x80 ? JSONTape.Node.nonASCIIFlag : 0
                b.nodes.append(JSONTape.Node(.string, flags: flags, payload: UInt64(start - b.base) | UInt64(count) << 32))
                return true
            }
            if c == UInt8(ascii: "\\") {
                pos = open
                guard let s = try? parseString() else { return false }
                let offset = b.arena.count
                var nonASCII = false
                for byte in s.utf8 {
                    if byte >= 0x80 { nonASCII = true }
                    b.arena.append(byte)
                }
                let flags = JSONTape.Node.arenaFlag | (nonASCII ? JSONTape.Node.nonASCIIFlag : 0)
                b.nodes.append(
                    JSONTape.Node(.string, flags: flags, payload: UInt64(offset) | UInt64(b.arena.count - offset) << 32))
                return true
            }
            if c < 0x20 { return false }
            high |= c
            pos += 1
        }
        return false
    }
}
