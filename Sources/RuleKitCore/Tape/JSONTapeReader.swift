// The JSON reader's tape mode: one object read into a `JSONTape` instead of a tree of `Value`s.
//
// Invariants: as `JSONReader.swift` (every index checked against `buf.count`, limits checked before what
// they bound grows), and the tape's own (`JSONTape.swift`). The tape reader reports no errors of its own:
// on anything it does not take (bad JSON, a limit, a key that is not plain ASCII, a repeated key) it puts
// the parser back where it started and the caller reads the same text as a `Value`, so every message and
// every value a document can produce still comes from the one reader.

extension JSONReader {
    /// Reads a JSON text that is one object into a tape. nil when the text is not one the tape takes (not
    /// an object, not JSON, over a limit, a key with an escape or non-ASCII text, a key repeated in one
    /// object): `read` then gives its value, or its error.
    ///
    /// With `keepingPositions`, the tape also keeps the line and column where each node's text starts (see
    /// `JSONTape`'s invariant 7), for loaders that point diagnostics at nodes.
    public static func tape(_ bytes: ArraySlice<UInt8>, limits: ReaderLimits = .default, keepingPositions: Bool = false)
        -> JSONTape?
    {
        guard bytes.count <= limits.maxDocumentBytes else { return nil }
        return bytes.withUnsafeBufferPointer { b in
            var p = JSONParser(buf: b, file: "", limits: limits, keepMap: false, lineOffset: 0)
            p.source = bytes
            p.tapePositions = keepingPositions
            p.skipWhitespace()
            guard let tape = p.tape(depth: 0) else { return nil }
            p.skipWhitespace()
            return p.pos == b.count ? tape : nil
        }
    }
}

extension JSONParser {
    /// Reads the usual event line without the general reader: an object whose keys are plain ASCII (none
    /// repeated), whose member `member` is an object the tape takes, and whose other members are plain
    /// strings (no escape). The object's other members and the member's tape, with the parser past the end
    /// of the text; nil, with the parser put back, for anything else (then the general reader gives the
    /// same value, or the error). Strings are shared through `interner`, as the general reader shares them.
    mutating func envelope(member: String) -> (ValueObject, JSONTape)? {
        guard pos < buf.count, buf[pos] == UInt8(ascii: "{"), limits.maxDepth >= 1 else { return nil }
        let saved = (pos, line, lineStart, nodes, columnAt, columnValue, firstNonASCII)
        if let read = envelopeMembers(member: member) { return read }
        (pos, line, lineStart, nodes, columnAt, columnValue, firstNonASCII) = saved
        return nil
    }

    /// `envelope`'s reading, from the opening brace; nil as soon as the text is not one it takes.
    private mutating func envelopeMembers(member: String) -> (ValueObject, JSONTape)? {
        nodes += 1
        pos += 1
        // The member's name as bytes, compared with each key (a `String.UTF8View` compares byte by byte
        // through its generic iterator).
        var name = member
        return name.withUTF8 { envelopeMembers(memberBytes: $0) }
    }

    private mutating func envelopeMembers(memberBytes: UnsafeBufferPointer<UInt8>) -> (ValueObject, JSONTape)? {
        var members: [ValueObject.Member] = []
        members.reserveCapacity(4)
        var dotted = false
        var tape: JSONTape?
        // One bit per key hash seen: only a key whose bit is set already is compared with the others.
        var seen: UInt64 = 0
        while true {
            skipWhitespace()
            // An event has a handful of members: more, and the general reader's duplicate check is better.
            guard members.count < 8, pos < buf.count, buf[pos] == UInt8(ascii: "\"") else { return nil }
            let start = pos + 1
            var brackets = 0
            guard let end = keyEnd(from: start, &dotted, &brackets), end - start <= limits.maxScalarBytes else { return nil }
            let key = UnsafeBufferPointer(rebasing: buf[start..<end])
            let bit: UInt64 = 1 << (Self.keyHash(key, readable: buf.count - start) >> 58)
            if seen & bit != 0 {
                if tape != nil && Self.same(memberBytes, key) { return nil }
                for m in members where m.key.utf8.elementsEqual(key) { return nil }
            }
            seen |= bit
            pos = end + 1
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: ":") else { return nil }
            pos += 1
            skipWhitespace()
            if Self.same(memberBytes, key) {
                guard let t = self.tape(depth: 1) else { return nil }
                tape = t
            } else {
                guard pos < buf.count, buf[pos] == UInt8(ascii: "\"") else { return nil }
                nodes += 1
                guard nodes <= limits.maxNodes else { return nil }
                pos += 1
                let open = pos
                var high: UInt8 = 0
                guard scanToStringStop(&high) == UInt8(ascii: "\""), pos - open <= limits.maxScalarBytes else { return nil }
                let text = UnsafeBufferPointer(rebasing: buf[open..<pos])
                if high >= 0x80 && !isValidUTF8(text) { return nil }
                pos += 1
                let value = interner?.string(text) ?? String(decoding: text, as: UTF8.self)
                let name = interner?.string(key) ?? String(decoding: key, as: UTF8.self)
                members.append(ValueObject.Member(key: name, value: .string(value)))
            }
            skipWhitespace()
            guard pos < buf.count else { return nil }
            let c = buf[pos]
            pos += 1
            if c == UInt8(ascii: ",") { continue }
            guard c == UInt8(ascii: "}"), let tape else { return nil }
            skipWhitespace()
            guard pos == buf.count || leavesTrailingText else { return nil }
            return (ValueObject(members: members, anyKeyHasDot: dotted, allKeysASCII: true), tape)
        }
    }

    /// Whether two byte strings are equal.
    @inline(__always)
    static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && StringInterner.sameBytes(a, b)
    }

    /// What a tape is built from while it is read.
    struct TapeBuilder: ~Copyable {
        /// Where the object's text starts in the input: string offsets count from there.
        let base: Int
        var nodes: NodeBuffer
        var arena: [UInt8] = []
        /// The member indexes of large objects (see `JSONTape`'s invariant 4).
        var index: [UInt64] = []
        /// Nulls read and keys holding a '[' so far: an object whose subtree adds none is clean
        /// (`JSONTape`'s invariant 9). Two loads per object, where checking each member cost more.
        var marks = 0
        /// Whether `positions` is kept: then every node appended has its position appended just before it.
        let keepsPositions: Bool
        /// Where each node's text starts (see `JSONTape`'s invariant 7).
        var positions: [JSONTape.Position] = []

        init(base: Int, capacity: Int, chunk: TapeNodeChunk?, keepsPositions: Bool = false) {
            self.base = base
            nodes = NodeBuffer(capacity: capacity, chunk: chunk)
            self.keepsPositions = keepsPositions
            if keepsPositions { positions.reserveCapacity(capacity) }
        }
    }

    /// Notes that the next node appended to `b` starts at `offset` (when positions are kept). Offsets
    /// only grow from one node to the next, as `advancingColumn` needs.
    @inline(__always)
    mutating func startsNode(at offset: Int, _ b: inout TapeBuilder) {
        guard b.keepsPositions else { return }
        b.positions.append(
            JSONTape.Position(
                line: UInt32(truncatingIfNeeded: line + lineOffset),
                column: UInt32(truncatingIfNeeded: advancingColumn(to: offset))))
    }

    /// The nodes of a tape being read: appended with no uniqueness check (an `Array` makes one on every
    /// append), then handed to the tape as they are (no copy). Either memory of its own until `release()`,
    /// or the free end of a shared `TapeNodeChunk` (moved to a fresh chunk when it fills up); every index
    /// is checked against `count`.
    struct NodeBuffer: ~Copyable {
        private(set) var start: UnsafeMutablePointer<JSONTape.Node>
        private var capacity: Int
        private(set) var count = 0
        /// The chunk the nodes are written in (nil: memory of their own).
        private(set) var chunk: TapeNodeChunk?
        /// Handed over by `release()`: the memory is no longer this buffer's to free.
        private var released = false

        init(capacity: Int, chunk: TapeNodeChunk?) {
            let wanted = max(capacity, 8)
            guard let chunk else {
                self.capacity = wanted
                start = .allocate(capacity: wanted)
                self.chunk = nil
                return
            }
            // A tape that would likely not fit in what is left starts a fresh chunk (the rest is left unused).
            let c = chunk.capacity - chunk.used >= wanted ? chunk : TapeNodeChunk(capacity: max(TapeNodeChunk.defaultCapacity, wanted))
            self.chunk = c
            start = c.base + c.used
            self.capacity = c.capacity - c.used
        }

        deinit { if chunk == nil && !released { start.deallocate() } }

        /// Hands the nodes over (to the tape), once: the first `count` nodes, and the chunk they lie in, now
        /// past them (nil: an allocation of their own, maybe larger, which the tape frees).
        mutating func release() -> (nodes: UnsafeMutableBufferPointer<JSONTape.Node>, chunk: TapeNodeChunk?) {
            precondition(!released)
            released = true
            chunk?.used += count
            return (UnsafeMutableBufferPointer(start: start, count: count), chunk)
        }

        @inline(__always)
        mutating func append(_ node: JSONTape.Node) {
            if count == capacity { grow() }
            (start + count).initialize(to: node)
            count += 1
        }

        @inline(__always)
        subscript(i: Int) -> JSONTape.Node {
            get {
                precondition(i >= 0 && i < count)
                return start[i]
            }
            set {
                precondition(i >= 0 && i < count)
                start[i] = newValue
            }
        }

        private mutating func grow() {
            if chunk != nil {
                // The tape so far moves to a fresh chunk; what it wrote in the old one was never handed out.
                let fresh = TapeNodeChunk(capacity: max(TapeNodeChunk.defaultCapacity, capacity * 2))
                fresh.base.initialize(from: start, count: count)
                chunk = fresh
                start = fresh.base
                capacity = fresh.capacity
                return
            }
            let bigger = UnsafeMutablePointer<JSONTape.Node>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: start, count: count)
            start.deallocate()
            start = bigger
            capacity *= 2
        }
    }

    /// Reads the object at `pos` (depth `depth` of the document) into a tape; nil, with the parser put
    /// back as it was, when the text is not one the tape takes (see the file's note).
    mutating func tape(depth: Int) -> JSONTape? {
        // String ranges are 32-bit offsets, and so are node indexes (a node takes a byte of text at least).
        guard pos < buf.count, buf[pos] == UInt8(ascii: "{"), buf.count - pos <= Int(UInt32.max) else { return nil }
        let saved = (pos, line, lineStart, nodes, columnAt, columnValue, firstNonASCII)
        // Event data runs about one node per 11 bytes: room for one per 10 spares most documents a second
        // allocation and a copy of the nodes as they grow.
        // Followed by more text (an array's element), the rest of the text says nothing of this object's size.
        let room = leavesTrailingText ? min(buf.count - pos, 4_096) : buf.count - pos
        var b = TapeBuilder(base: pos, capacity: room / 10 + 8, chunk: nodeChunk, keepsPositions: tapePositions)
        if tapeValue(depth: depth, &b) {
            // The text as a slice of the caller's array when there is one (no copy: a line of a JSON-lines
            // block keeps the block's buffer), else a copy.
            let text: ArraySlice<UInt8>
            if let source, source.count == buf.count {
                text = source[(source.startIndex + b.base)..<(source.startIndex + pos)]
            } else {
                text = ArraySlice(buf[b.base..<pos])
            }
            let index = b.index
            let arena = b.arena
            let positions = b.positions
            let (nodes, chunk) = b.nodes.release()
            // The chunk the nodes went to (a fresh one when the last filled up) serves the next tape.
            if nodeChunk != nil { nodeChunk = chunk }
            return JSONTape(text: text, arena: arena, nodes: nodes, chunk: chunk, index: index, positions: positions)
        }
        if nodeChunk != nil { nodeChunk = b.nodes.chunk }
        (pos, line, lineStart, nodes, columnAt, columnValue, firstNonASCII) = saved
        return nil
    }

    /// A member's or an element's value: `tapeValue`, with strings (most values) read here, without the
    /// call and the dispatch on the first byte.
    @inline(__always)
    private mutating func member(depth: Int, _ b: inout TapeBuilder) -> Bool {
        guard pos < buf.count, buf[pos] == UInt8(ascii: "\"") else { return tapeValue(depth: depth, &b) }
        nodes += 1
        if nodes > limits.maxNodes { return false }
        startsNode(at: pos, &b)
        return tapeString(&b)
    }

    private mutating func tapeValue(depth: Int, _ b: inout TapeBuilder) -> Bool {
        guard pos < buf.count else { return false }
        nodes += 1
        if nodes > limits.maxNodes { return false }
        // Whatever the value, its node is the next one appended.
        startsNode(at: pos, &b)
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
            b.marks &+= 1
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

    /// Opens a container at `pos` (within the depth limit): its node, and whether it is empty (then
    /// closed already). nil when too deep.
    private mutating func openContainer(_ kind: JSONTape.Node.Kind, depth: Int, closing: UInt8, _ b: inout TapeBuilder)
        -> (at: Int, empty: Bool)?
    {
        guard depth <= limits.maxDepth else { return nil }
        let at = b.nodes.count
        b.nodes.append(JSONTape.Node(kind))
        pos += 1
        skipWhitespace()
        guard pos < buf.count && buf[pos] == closing else { return (at, false) }
        pos += 1
        b.nodes[at].payload = UInt64(b.nodes.count)
        return (at, true)
    }

    /// After a member or element: true on ',' (another follows), false on `closing`, nil on anything else.
    private mutating func separator(closing: UInt8) -> Bool? {
        skipWhitespace()
        guard pos < buf.count else { return nil }
        let c = buf[pos]
        pos += 1
        if c == UInt8(ascii: ",") { return true }
        return c == closing ? false : nil
    }

    private mutating func tapeObject(depth: Int, _ b: inout TapeBuilder) -> Bool {
        guard let (at, empty) = openContainer(.object, depth: depth, closing: UInt8(ascii: "}"), &b) else { return false }
        if empty {
            b.nodes[at].flags = JSONTape.Node.cleanFlag
            return true
        }
        let marks = b.marks
        var count: UInt32 = 0
        var dotted = false
        // One bit per key hash seen: a key whose bit is clear is new, and most objects are never scanned.
        var seen: UInt64 = 0
        while true {
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: "\"") else { return false }
            let start = pos + 1
            guard let i = keyEnd(from: start, &dotted, &b.marks), i - start <= limits.maxScalarBytes else { return false }
            pos = i + 1
            let key = UnsafeBufferPointer(rebasing: buf[start..<i])
            let hash = Self.keyHash(key, readable: buf.count - start)
            let tag = UInt32(truncatingIfNeeded: hash >> 32)
            let bit: UInt64 = 1 << (hash >> 58)
            // Past the indexed size, the sorted index finds repeated keys when the object closes: scanning
            // every earlier member for every key would be quadratic in the object's size.
            if seen & bit != 0 && count < JSONTape.indexedMembers {
                // The object's members so far are complete subtrees after its node: key, value, key, ...
                var k = at + 1
                while k < b.nodes.count {
                    if b.nodes[k].count == tag && keyBytes(k, b).elementsEqual(key) { return false }
                    let value = b.nodes[k + 1]
                    k = value.isLeaf ? k + 2 : Int(value.payload & 0xFFFF_FFFF)
                }
            }
            seen |= bit
            startsNode(at: start - 1, &b)
            b.nodes.append(JSONTape.Node(.string, count: tag, payload: UInt64(start - b.base) | UInt64(i - start) << 32))
            skipWhitespace()
            guard pos < buf.count, buf[pos] == UInt8(ascii: ":") else { return false }
            pos += 1
            skipWhitespace()
            guard member(depth: depth, &b) else { return false }
            count += 1
            guard let more = separator(closing: UInt8(ascii: "}")) else { return false }
            if more { continue }
            var payload = UInt64(b.nodes.count)
            if count > JSONTape.indexedMembers {
                guard let start = indexMembers(of: at, count: count, &b) else { return false }
                payload |= UInt64(start + 1) << 32
            }
            let clean = b.marks == marks ? JSONTape.Node.cleanFlag : 0
            b.nodes[at] = JSONTape.Node(.object, flags: (dotted ? JSONTape.Node.dottedFlag : 0) | clean, count: count, payload: payload)
            return true
        }
    }

    /// Appends the index of the `count` members of the object at node `at` (its nodes complete up to the
    /// end of `b.nodes`) to `b.index`, sorted by key hash and then by key bytes; returns where it starts,
    /// or nil when a key is repeated. In that order a repeated key sits next to its twin, so one pass over
    /// neighbours finds it, and keys made to share a hash cost a bisection, not a scan.
    private func indexMembers(of at: Int, count: UInt32, _ b: inout TapeBuilder) -> Int? {
        var entries: [UInt64] = []
        entries.reserveCapacity(Int(count))
        var k = at + 1
        for _ in 0..<count {
            entries.append(UInt64(b.nodes[k].count) << 32 | UInt64(k))
            let value = b.nodes[k + 1]
            k = value.isLeaf ? k + 2 : Int(value.payload & 0xFFFF_FFFF)
        }
        entries.sort { x, y in
            x >> 32 != y >> 32
                ? x < y
                : keyBytes(Int(x & 0xFFFF_FFFF), b).lexicographicallyPrecedes(keyBytes(Int(y & 0xFFFF_FFFF), b))
        }
        for i in entries.indices.dropFirst() where entries[i] >> 32 == entries[i - 1] >> 32 {
            if keyBytes(Int(entries[i] & 0xFFFF_FFFF), b).elementsEqual(keyBytes(Int(entries[i - 1] & 0xFFFF_FFFF), b)) {
                return nil
            }
        }
        let start = b.index.count
        b.index += entries
        return start
    }

    /// The bytes of key node `k` (keys are never in the arena).
    private func keyBytes(_ k: Int, _ b: borrowing TapeBuilder) -> UnsafeBufferPointer<UInt8> {
        let p = b.nodes[k].payload
        return UnsafeBufferPointer(rebasing: buf[(b.base + Int(p & 0xFFFF_FFFF))...].prefix(Int(p >> 32)))
    }

    /// Where the plain ASCII key starting at `start` ends (its closing quote), eight bytes at a time; nil
    /// when it is not plain (an escape, a control character, a byte that is not ASCII) or not closed.
    /// Sets `dotted` when the key holds a '.', and counts it in `brackets` when it holds a '[' (a key that
    /// may hold the merge's `[*]`: rare, so a '[' ends the word-at-a-time scan like a stop byte, and the
    /// byte loop counts it).
    @inline(__always)
    private func keyEnd(from start: Int, _ dotted: inout Bool, _ brackets: inout Int) -> Int? {
        guard let base = buf.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        var i = start
        while i + 8 <= buf.count {
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            // The lowest set bit is exact in both (a borrow only carries above a true match).
            let bracket = w ^ (ones &* 0x5B)
            let stops = Self.stopBytes(w) | (w & 0x8080_8080_8080_8080) | ((bracket &- ones) & ~bracket & 0x8080_8080_8080_8080)
            let dot = w ^ (ones &* 0x2E)
            let dots = (dot &- ones) & ~dot & 0x8080_8080_8080_8080
            guard stops != 0 else {
                if dots != 0 { dotted = true }
                i += 8
                continue
            }
            let k = stops.trailingZeroBitCount >> 3
            if k > 0 && dots & (UInt64.max >> (64 - 8 * k)) != 0 { dotted = true }
            i += k
            break
        }
        while i < buf.count {
            let c = buf[i]
            if c == UInt8(ascii: "\"") { return i }
            // Escapes, control characters and non-ASCII keys: the `Value` reader's business.
            if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return nil }
            if c == 0x2E { dotted = true }
            if c == 0x5B { brackets &+= 1 }
            i += 1
        }
        return nil
    }

    /// A hash of a key for the per-object duplicate filter: its length and first and last eight bytes
    /// (a collision only costs a comparison of the keys).
    @inline(__always)
    static func keyHash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        keyHash(key, readable: key.count)
    }

    /// `keyHash` for a key followed in memory by more readable bytes (`readable` from the key's start, at
    /// least its count): a short key is then one load, masked, instead of a loop (the same value).
    @inline(__always)
    static func keyHash(_ key: UnsafeBufferPointer<UInt8>, readable: Int) -> UInt64 {
        guard let p = key.baseAddress, !key.isEmpty else { return 0 }
        precondition(readable >= key.count)
        let raw = UnsafeRawPointer(p)
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if key.count >= 8 {
            head = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            tail = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self))
        } else if readable >= 8 {
            head = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & (UInt64.max >> (64 - 8 * key.count))
        } else {
            for j in 0..<key.count { head |= UInt64(key[j]) << (8 * UInt64(j)) }
        }
        return ((head &* 0x9E37_79B9_7F4A_7C15) ^ (tail &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(key.count)) &* 0x9E37_79B9_7F4A_7C15
    }

    private mutating func tapeArray(depth: Int, _ b: inout TapeBuilder) -> Bool {
        guard let (at, empty) = openContainer(.array, depth: depth, closing: UInt8(ascii: "]"), &b) else { return false }
        if empty { return true }
        var count: UInt32 = 0
        while true {
            skipWhitespace()
            guard member(depth: depth, &b) else { return false }
            count += 1
            guard let more = separator(closing: UInt8(ascii: "]")) else { return false }
            if more { continue }
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
        switch scanToStringStop(&high) {
        case UInt8(ascii: "\""):
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
        case UInt8(ascii: "\\"):
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
        default:
            // A control character, or no closing quote.
            return false
        }
    }
}
