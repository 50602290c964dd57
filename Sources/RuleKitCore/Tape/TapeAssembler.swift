// A tape assembled node by node by a reader that is not the JSON reader (the YAML builder): the same
// `JSONTape` layout, pushed from events (open, key, scalar, close, copy) instead of scanned from JSON text.
//
// Invariants:
// 1. Everything `JSONTape`'s invariants 2–5 and 7 require holds when `finish` returns a tape: the nodes are
//    a pre-order layout whose containers end where their payload says; every key is ASCII and unique in
//    its object (a key that is not, or a repeated one, makes `key` or `close` return false and the caller
//    gives up); objects of more than `JSONTape.indexedMembers` members have their sorted index; every
//    node has a position, appended with it.
// 2. The tape's `text` is not JSON: it is the bytes of its keys and strings, one after another (a reader
//    of YAML has no JSON text to point into). The tape says so (`isJSONText` false), and nothing that
//    copies a tape's text as JSON (an event's data) takes such a tape.
// 3. `copy(subtree:)` copies a range that is one complete subtree already assembled (the caller noted
//    where it started and ended); container ends and index entries are moved by the same offset, so the
//    copy is a well-formed subtree of its own.
// 4. Every node index and string offset fits in 32 bits: the caller's limits (`ReaderLimits.maxNodes`,
//    `maxDocumentBytes`) keep them far below; `append` checks and gives up past them.
// The plain reference is the `Document` the same reader builds from the same events: `YAMLTapeTests`
// and the `yaml` fuzz target require `tape.object()` to equal its value, and the positions its source map.

/// Builds a `JSONTape` from pushed events; see the invariants above.
package struct TapeAssembler: ~Copyable {
    private var nodes: JSONParser.NodeBuffer
    private var text: [UInt8] = []
    private var index: [UInt64] = []
    private var positions: [JSONTape.Position] = []
    /// The open containers, innermost last.
    private var open: [Frame] = []
    /// Whether a complete root has been assembled.
    private var closedRoot = false
    /// Nulls and keys holding a '[' so far, as the reader counts them (`JSONTape`'s invariant 9).
    private var marks = 0

    private struct Frame {
        var at: Int
        var isObject: Bool
        var count: UInt32 = 0
        var dotted = false
        /// `marks` when it opened: an object whose subtree added none is clean.
        var marks = 0
        /// Whether an object's next node is a key.
        var expectsKey = true
        /// One bit per key hash seen (as the JSON tape reader's filter).
        var seen: UInt64 = 0
    }

    /// One node's line and column.
    package typealias Position = JSONTape.Position

    /// An assembler with room for about `expectedNodes` nodes and `expectedBytes` of strings.
    package init(expectedNodes: Int, expectedBytes: Int) {
        nodes = JSONParser.NodeBuffer(capacity: expectedNodes, chunk: nil)
        text.reserveCapacity(expectedBytes)
        positions.reserveCapacity(expectedNodes)
    }

    /// How many nodes have been assembled.
    package var count: Int { nodes.count }

    /// Whether the next node completes an object's key.
    package var expectsKey: Bool { open.last.map { $0.isObject && $0.expectsKey } ?? false }

    /// Opens an object (`isObject`) or an array as the next value.
    package mutating func begin(object isObject: Bool, at position: Position) -> Bool {
        guard beginsValue() else { return false }
        open.append(Frame(at: nodes.count, isObject: isObject, marks: marks))
        return append(JSONTape.Node(isObject ? .object : .array), position)
    }

    /// Closes the innermost container; false when it is an object with a repeated key (found by its index).
    package mutating func end() -> Bool {
        guard let frame = open.popLast(), !frame.isObject || frame.expectsKey else { return false }
        var payload = UInt64(nodes.count)
        if frame.isObject && frame.count > JSONTape.indexedMembers {
            guard let start = indexMembers(of: frame.at, count: frame.count) else { return false }
            payload |= UInt64(start + 1) << 32
        }
        var flags = frame.dotted ? JSONTape.Node.dottedFlag : 0
        if frame.isObject && frame.marks == marks { flags |= JSONTape.Node.cleanFlag }
        nodes[frame.at] = JSONTape.Node(frame.isObject ? .object : .array, flags: flags, count: frame.count, payload: payload)
        endsValue()
        return true
    }

    /// The next key of the innermost object; false when it is not plain ASCII or is repeated.
    package mutating func key(_ bytes: UnsafeBufferPointer<UInt8>, at position: Position) -> Bool {
        guard expectsKey, bytes.allSatisfy({ $0 < 0x80 }) else { return false }
        let top = open.count - 1
        let hash = JSONParser.keyHash(bytes)
        let tag = UInt32(truncatingIfNeeded: hash >> 32)
        let bit: UInt64 = 1 << (hash >> 58)
        // Large objects are checked once, by their index, when they close (a scan per key is quadratic).
        if open[top].seen & bit != 0 && open[top].count < JSONTape.indexedMembers {
            var k = open[top].at + 1
            while k < nodes.count {
                if nodes[k].count == tag && keyBytes(k).elementsEqual(bytes) { return false }
                k = next(k + 1)
            }
        }
        open[top].seen |= bit
        if bytes.contains(0x2E) { open[top].dotted = true }
        if bytes.contains(0x5B) { marks += 1 }
        open[top].expectsKey = false
        guard let range = store(bytes) else { return false }
        return append(JSONTape.Node(.string, count: tag, payload: range), position)
    }

    /// A scalar as the next value: null, a bool, an int or a double (not a string: `string`).
    package mutating func scalar(_ value: Value, at position: Position) -> Bool {
        let node: JSONTape.Node
        switch value {
        case .null:
            node = JSONTape.Node(.null)
            marks += 1
        case .bool(let b): node = JSONTape.Node(.bool, payload: b ? 1 : 0)
        case .int(let i): node = JSONTape.Node(.int, payload: UInt64(bitPattern: i))
        case .double(let d): node = JSONTape.Node(.double, payload: d.bitPattern)
        case .string, .array, .object: return false
        }
        guard beginsValue(), append(node, position) else { return false }
        endsValue()
        return true
    }

    /// A string as the next value.
    package mutating func string(_ bytes: UnsafeBufferPointer<UInt8>, at position: Position) -> Bool {
        guard beginsValue(), let range = store(bytes) else { return false }
        let flags = bytes.contains(where: { $0 >= 0x80 }) ? JSONTape.Node.nonASCIIFlag : 0
        guard append(JSONTape.Node(.string, flags: flags, payload: range), position) else { return false }
        endsValue()
        return true
    }

    /// Copies the complete subtree at `range` (assembled earlier: invariant 3) as the next value. Its root
    /// gets `position`; every node under it `inner` (keys `innerKey`), as a reader that lends one place to
    /// a copied subtree reports them.
    package mutating func copy(subtree range: Range<Int>, at position: Position, inner: Position, innerKey: Position) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= nodes.count, !range.isEmpty, beginsValue() else { return false }
        let shift = nodes.count - range.lowerBound
        // Which nodes are keys: an object's children alternate key, value. A stack of the open containers
        // of the copy, each with its end and whether its next child is a key.
        var frames: [(end: Int, nextIsKey: Bool?)] = []
        for i in range {
            while let last = frames.last, i >= last.end { frames.removeLast() }
            var n = nodes[i]
            var isKey = false
            if let top = frames.indices.last, let k = frames[top].nextIsKey {
                isKey = k
                frames[top].nextIsKey = !k
            }
            if !n.isLeaf {
                let end = Int(n.payload & 0xFFFF_FFFF)
                var payload = UInt64(end + shift)
                let indexed = Int(n.payload >> 32)
                if indexed != 0 {
                    let start = index.count
                    for e in index[(indexed - 1)..<(indexed - 1 + Int(n.count))] {
                        index.append((e & 0xFFFF_FFFF_0000_0000) | UInt64(Int(e & 0xFFFF_FFFF) + shift))
                    }
                    payload |= UInt64(start + 1) << 32
                }
                n.payload = payload
                frames.append((end, n.kind == .object ? true : nil))
            }
            // The copy's nulls and '[' keys count as the originals did.
            if n.kind == .null || (isKey && keyBytes(i).contains(0x5B)) { marks += 1 }
            guard append(n, i == range.lowerBound ? position : isKey ? innerKey : inner) else { return false }
        }
        endsValue()
        return true
    }

    /// The tape, when one complete object was assembled; nil otherwise.
    package consuming func finish() -> JSONTape? {
        guard closedRoot, open.isEmpty, nodes.count > 0, nodes[0].kind == .object else { return nil }
        let (buffer, _) = nodes.release()
        return JSONTape(text: text[...], arena: [], nodes: buffer, chunk: nil, index: index, positions: positions, isJSONText: false)
    }

    // MARK: internals

    private mutating func beginsValue() -> Bool {
        guard let top = open.last else { return !closedRoot && nodes.count == 0 }
        return !top.isObject || !top.expectsKey
    }

    private mutating func endsValue() {
        guard !open.isEmpty else {
            closedRoot = true
            return
        }
        let top = open.count - 1
        open[top].count += 1
        if open[top].isObject { open[top].expectsKey = true }
    }

    private mutating func append(_ node: JSONTape.Node, _ position: Position) -> Bool {
        guard nodes.count < Int(UInt32.max) else { return false }
        nodes.append(node)
        positions.append(position)
        return true
    }

    /// Appends `bytes` to the text: their (offset | length << 32), or nil past 32 bits.
    private mutating func store(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        let offset = text.count
        guard offset + bytes.count <= Int(UInt32.max) else { return nil }
        text.append(contentsOf: bytes)
        return UInt64(offset) | UInt64(bytes.count) << 32
    }

    private func next(_ i: Int) -> Int {
        let n = nodes[i]
        return n.isLeaf ? i + 1 : Int(n.payload & 0xFFFF_FFFF)
    }

    private func keyBytes(_ k: Int) -> ArraySlice<UInt8> {
        let p = nodes[k].payload
        let offset = Int(p & 0xFFFF_FFFF)
        return text[offset..<(offset + Int(p >> 32))]
    }

    /// The sorted index of the object at `at` (see `JSONTape`'s invariant 4), appended to `index`: where it
    /// starts, or nil when a key is repeated (it then sits next to its twin).
    private mutating func indexMembers(of at: Int, count: UInt32) -> Int? {
        var entries: [UInt64] = []
        entries.reserveCapacity(Int(count))
        var k = at + 1
        for _ in 0..<count {
            entries.append(UInt64(nodes[k].count) << 32 | UInt64(k))
            k = next(k + 1)
        }
        entries.sort { x, y in
            x >> 32 != y >> 32
                ? x < y : keyBytes(Int(x & 0xFFFF_FFFF)).lexicographicallyPrecedes(keyBytes(Int(y & 0xFFFF_FFFF)))
        }
        for i in entries.indices.dropFirst() where entries[i] >> 32 == entries[i - 1] >> 32 {
            if keyBytes(Int(entries[i] & 0xFFFF_FFFF)) == keyBytes(Int(entries[i - 1] & 0xFFFF_FFFF)) { return nil }
        }
        let start = index.count
        index += entries
        return start
    }
}
