// The tape: one JSON object read into a flat array of nodes over its own text, instead of a tree of
// `Value`s (one allocation per object, array and long string).
//
// Invariants:
// 1. A tape is immutable once made. `arena` and `nodes` are written only by the reader that makes it
//    (`JSONParser.tape`), which checks every index against its buffer as the JSON reader does. The nodes'
//    memory is the tape's own (handed over by the reader, freed when the tape is), or a range of a
//    `TapeNodeChunk` the tape keeps alive (see there). `text` is a slice of the
//    array the reader was lent (or a copy): an array shared with the tape is never written in place (any
//    writer copies it first), so the bytes the nodes index stay as they were read.
// 2. The nodes are a well-formed pre-order layout: node 0 is an object; a container's `payload` (its low
//    32 bits) is the index just past its subtree, and its `count` children follow it one subtree after another (an
//    object's as key, value pairs); a string's `payload` is an (offset, length) range of `text`, or of
//    `arena` when the `inArena` flag is set, and the reader checked that range against that buffer.
// 3. Every key is ASCII, unescaped, and unique in its object: the reader gives up (and the caller reads a
//    `Value`) otherwise. So a key matches by its bytes alone, and the object a tape stands for is exactly
//    the one `JSONReader` reads from `text`.
// 4. An object of more than `JSONTape.indexedMembers` members has an index: its (key hash << 32 | key
//    node) entries (the top 32 bits of `JSONParser.keyHash`), sorted by hash and then by key bytes, at
//    `index[start..<start + count]`, where `start + 1` is the top 32 bits of its `payload` (0: no index).
//    The plain reference for a lookup there is the walk of the members' keys (`JSONTapeTests` compares).
// 5. A key's node carries the key's tag (`JSONTape.keyTag`: the top 32 bits of `JSONParser.keyHash`) in
//    `count`: a lookup passes over members whose tag differs on the node alone, without reading their text.
// 6. Views (`UnsafeTapeView`) are lent for a closure by `withUnsafeView` and never kept past it.
// 7. `positions` is empty, or holds one entry per node: the line and column where the node's text starts
//    (a key's opening quote, a value's first byte), as `JSONReader` counts them, written with the node.
// 8. A tape made by `TapeAssembler` (from YAML) keeps its keys and strings in `text`, which is then not
//    JSON (`isJSONText` false); invariants 2–5 and 7 hold for it as for the reader's tapes.
// 9. An object node with `cleanFlag` has no null and no key holding a '[' anywhere in its subtree, arrays
//    included: the merge's cleaning leaves it as it is. The reader and `TapeAssembler` set it, counting
//    nulls and such keys as they go; an object without it may still be clean (a null in an array is not
//    cleaned). The plain reference is `UnsafeTapeView.cleanByWalk`.
// The plain reference is `JSONReader`: `JSONTapeTests` and the `json` fuzz target check that `object()`
// equals what it reads from the same text, and the engine's oracle tests compare walks of both.

internal import Foundation
internal import Synchronization

/// One JSON object kept as read: its exact text and a flat index of its nodes, from which a
/// `ValueObject` is made only when asked (`object()`).
///
/// Event data read from JSON lines is kept this way: the rules engine reads the keys its conditions name
/// straight from the tape, a writer copies `text`, and a listener that asks for the data gets a
/// `ValueObject`, made once.
public final class JSONTape: @unchecked Sendable {
    // @unchecked: `cached` is written once, by the one caller that moves `state` from empty to building,
    // and read only after `state` says ready (release/acquire order the two), so sharing is safe.
    /// The JSON text of the object, byte for byte as read: a slice of the array the reader was given (a
    /// tape keeps that array alive: a line of a JSON-lines block keeps the block's buffer), not a copy.
    /// For a tape assembled from another syntax (`isJSONText` false), the bytes of its keys and strings.
    public let text: ArraySlice<UInt8>
    /// Whether `text` is the object's JSON text (true for every tape the JSON reader makes); false for a
    /// tape assembled from YAML (`TapeAssembler`), whose text only holds its strings.
    public let isJSONText: Bool
    let arena: [UInt8]
    /// The nodes: memory the reader allocated and handed over, owned by the tape (freed in `deinit`), or
    /// a range of `chunk`; never written after `init`.
    private let nodes: UnsafeMutableBufferPointer<Node>
    /// The shared memory `nodes` lies in, when the reader had one (nil: `nodes` is the tape's own).
    private let chunk: TapeNodeChunk?
    /// The object made from the tape: 0, not yet; 1, being made; 2, made (in `cached`). An atomic rather
    /// than a lock: a lock is two more allocations for every event, and most events never ask.
    private let state = Atomic<Int>(0)
    private nonisolated(unsafe) var cached: ValueObject?

    /// The member indexes of large objects (invariant 4); empty for most tapes.
    let index: [UInt64]
    /// Where each node's text starts (invariant 7), when the reader was asked to keep it (for loaders that
    /// point diagnostics at nodes); empty otherwise. One per node, in document order: an object's key
    /// before its value, a container before what it holds.
    public let positions: [Position]

    /// A node's line and column (one-based; columns in Unicode scalars).
    public struct Position: Sendable, Equatable {
        /// One-based line.
        public var line: UInt32
        /// One-based column, in Unicode scalars.
        public var column: UInt32

        package init(line: UInt32, column: UInt32) {
            self.line = line
            self.column = column
        }
    }

    /// Objects with more members than this get an index. Making one (a hash per key, a sort) costs about
    /// what a few dozen walks of the members' nodes cost, and an event's objects are looked up a few times
    /// each; past this size, it also saves the reader's per-key duplicate checks from growing quadratic.
    static let indexedMembers = 48

    /// A tape over `nodes`: a range of `chunk`, or (no chunk) memory it takes over and frees.
    init(
        text: ArraySlice<UInt8>, arena: [UInt8], nodes: UnsafeMutableBufferPointer<Node>, chunk: TapeNodeChunk?, index: [UInt64],
        positions: [Position] = [], isJSONText: Bool = true
    ) {
        precondition(positions.isEmpty || positions.count == nodes.count)
        self.isJSONText = isJSONText
        self.text = text
        self.arena = arena
        self.nodes = nodes
        self.chunk = chunk
        self.index = index
        self.positions = positions
    }

    deinit { if chunk == nil { nodes.baseAddress?.deallocate() } }

    /// The tag a key's node carries (invariant 5), and that lookups compare first.
    @inline(__always)
    package static func keyTag(_ key: UnsafeBufferPointer<UInt8>) -> UInt32 {
        UInt32(truncatingIfNeeded: JSONParser.keyHash(key) >> 32)
    }

    /// How many nodes (keys included) the tape holds.
    public var nodeCount: Int { nodes.count }

    /// The object, as `JSONReader` reads it from `text`; made on the first call, then shared.
    public func object() -> ValueObject {
        MadeOnce.value(state, cached: { cached }, make: materialize, store: { cached = $0 })
    }

    /// A fresh `ValueObject` from the nodes (no cache).
    func materialize() -> ValueObject {
        withUnsafeView { view in
            guard case .object(let o) = view.value(at: 0) else { return ValueObject() }
            return o
        }
    }

    /// Lends a view of the tape to `body`; it must not escape the closure.
    package func withUnsafeView<R>(_ body: (UnsafeTapeView) throws -> R) rethrows -> R {
        try text.withUnsafeBufferPointer { t in
            try arena.withUnsafeBufferPointer { a in
                try index.withUnsafeBufferPointer { x in
                    try positions.withUnsafeBufferPointer { o in
                        try body(UnsafeTapeView(nodes: UnsafeBufferPointer(nodes), text: t, arena: a, index: x, positions: o))
                    }
                }
            }
        }
    }

    /// Whether `view` reads this tape: the check, in debug builds, that a lent view is the event's own.
    package func isViewed(by view: UnsafeTapeView) -> Bool {
        UnsafePointer(nodes.baseAddress) == view.nodes.baseAddress
    }

    /// One node: 16 bytes.
    package struct Node: Sendable {
        /// The kind of value the node stands for (the `Value` kinds: one byte, no second enum to map).
        package typealias Kind = Value.Kind
        package var kind: Kind
        /// Objects: bit 0, some key holds a '.'; bit 1, known clean (invariant 9). Strings: bit 0, in the
        /// arena; bit 1, not ASCII.
        package var flags: UInt8
        /// Members of an object, elements of an array; a key's tag (invariant 5).
        package var count: UInt32
        /// Containers: the index past the subtree (low 32 bits; above them, an object's index start + 1).
        /// Strings: offset | length << 32. Numbers: bit patterns.
        package var payload: UInt64

        package static var dottedFlag: UInt8 { 1 }
        package static var cleanFlag: UInt8 { 2 }
        package static var arenaFlag: UInt8 { 1 }
        package static var nonASCIIFlag: UInt8 { 2 }

        init(_ kind: Kind, flags: UInt8 = 0, count: UInt32 = 0, payload: UInt64 = 0) {
            self.kind = kind
            self.flags = flags
            self.count = count
            self.payload = payload
        }

        /// Whether this is neither an object nor an array.
        @inline(__always) package var isLeaf: Bool {
            switch kind {
            case .array, .object: false
            default: true
            }
        }
    }
}

/// Memory for the nodes of many tapes (the lines of one JSON-lines block): one allocation for a few
/// hundred of them instead of one each, and their nodes side by side.
///
/// Invariants: `base[0..<capacity]` is this chunk's own allocation, freed when the chunk is (that is, when
/// the last tape made in it is). `used` is read and written only by the one reader that holds the chunk
/// while it builds tapes (`JSONParser.NodeBuffer`), which writes nodes only at or past `used` and moves
/// `used` past a tape's nodes when the tape is made; a tape reads only its own range, below `used`, so
/// nothing a tape reads is ever written again. A reader hands the chunk on (to the next line it reads)
/// on the same thread, never to another while it builds.
package final class TapeNodeChunk: @unchecked Sendable {
    // @unchecked: see the invariants; tapes share the chunk only to keep its memory alive.
    let base: UnsafeMutablePointer<JSONTape.Node>
    let capacity: Int
    var used = 0

    /// Nodes per chunk: 256 KB, the nodes of a few hundred events of a kilobyte.
    package static let defaultCapacity = 1 << 14

    package init(capacity: Int = TapeNodeChunk.defaultCapacity) {
        self.capacity = max(capacity, 8)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }
}

/// A borrowed view of a tape (see the invariants above): indexes into it, no reference counting.
package struct UnsafeTapeView {
    package let nodes: UnsafeBufferPointer<JSONTape.Node>
    let text: UnsafeBufferPointer<UInt8>
    let arena: UnsafeBufferPointer<UInt8>
    let index: UnsafeBufferPointer<UInt64>
    /// Where each node's text starts (invariant 7); empty when the reader kept none.
    package let positions: UnsafeBufferPointer<JSONTape.Position>

    init(
        nodes: UnsafeBufferPointer<JSONTape.Node>, text: UnsafeBufferPointer<UInt8>, arena: UnsafeBufferPointer<UInt8>,
        index: UnsafeBufferPointer<UInt64>,
        positions: UnsafeBufferPointer<JSONTape.Position> = UnsafeBufferPointer(start: nil, count: 0)
    ) {
        self.nodes = nodes
        self.text = text
        self.arena = arena
        self.index = index
        self.positions = positions
    }

    /// Reads one byte of every cache line of the nodes and of the text, in order; returns their sum (kept
    /// by the caller, so the loads are not elided).
    ///
    /// Why: a tape is written by the thread that read it, on its core, and the rules engine reads it on
    /// another. A member lookup is a chain of dependent loads (each key node says where the next one is),
    /// so walking a tape that is not in this core's cache waits on memory once per member passed over;
    /// this pass issues independent loads in address order, which the processor overlaps and prefetches,
    /// and the walks that follow find the tape in cache (`rulekit run`: member lookups went from a tenth
    /// of the run's time to under 2%, for 4% spent here).
    package func touchAll() -> UInt8 {
        var sum: UInt8 = 0
        let raw = UnsafeRawBufferPointer(nodes)
        var i = 0
        while i < raw.count {
            sum &+= raw[i]
            i += 64
        }
        i = 0
        while i < text.count {
            sum &+= text[i]
            i += 64
        }
        return sum
    }

    /// The index just past node `i`'s subtree.
    @inline(__always)
    package func next(_ i: Int) -> Int {
        nodes[i].isLeaf ? i + 1 : Int(nodes[i].payload & 0xFFFF_FFFF)
    }

    /// The UTF-8 bytes of string node `i`.
    @inline(__always)
    package func bytes(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        let p = nodes[i].payload
        let offset = Int(p & 0xFFFF_FFFF)
        let count = Int(p >> 32)
        let source = nodes[i].flags & JSONTape.Node.arenaFlag != 0 ? arena : text
        return UnsafeBufferPointer(rebasing: source[offset..<(offset + count)])
    }

    /// The value of member `key` of object node `object`: its node index, or nil.
    @inline(__always)
    package func member(of object: Int, key: UnsafeBufferPointer<UInt8>) -> Int? {
        member(of: object, key: key, tag: JSONTape.keyTag(key))
    }

    /// `member(of:key:)` with the key's tag (`JSONTape.keyTag(key)`) computed once by the caller.
    @inline(__always)
    package func member(of object: Int, key: UnsafeBufferPointer<UInt8>, tag: UInt32) -> Int? {
        let indexed = nodes[object].payload >> 32
        if indexed != 0 { return indexedMember(of: object, start: Int(indexed) - 1, hash: tag, key: key) }
        var i = object + 1
        let length = UInt64(key.count)
        for _ in 0..<nodes[object].count {
            // Keys with another tag or length are passed over on the node alone (invariant 5); the text
            // is read only to confirm. Keys are never in the arena.
            let n = nodes[i]
            if n.count == tag && n.payload >> 32 == length && Self.same(text, Int(n.payload & 0xFFFF_FFFF), key) {
                return i + 1
            }
            i = next(i + 1)
        }
        return nil
    }

    /// `member(of:key:)` for an object with an index (sorted by hash, then by key bytes): a bisection.
    private func indexedMember(of object: Int, start: Int, hash: UInt32, key: UnsafeBufferPointer<UInt8>) -> Int? {
        let end = start + Int(nodes[object].count)
        var lo = start
        var hi = end
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            let h = UInt32(truncatingIfNeeded: index[mid] >> 32)
            if h < hash || (h == hash && bytes(Int(index[mid] & 0xFFFF_FFFF)).lexicographicallyPrecedes(key)) {
                lo = mid + 1
            } else {
                hi = mid
            }
        }
        guard lo < end, UInt32(truncatingIfNeeded: index[lo] >> 32) == hash else { return nil }
        let k = Int(index[lo] & 0xFFFF_FFFF)
        return bytes(k).elementsEqual(key) ? k + 1 : nil
    }

    /// Whether `text[offset...]` starts with `key` (the caller checked that the key's length fits).
    @inline(__always)
    static func same(_ text: UnsafeBufferPointer<UInt8>, _ offset: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        precondition(offset >= 0 && offset + key.count <= text.count)
        guard let a = text.baseAddress, let b = key.baseAddress else { return key.isEmpty }
        // Event keys are short: a byte loop beats a call to memcmp.
        if key.count <= 16 {
            for j in 0..<key.count where a[offset + j] != b[j] { return false }
            return true
        }
        return memcmp(a + offset, b, key.count) == 0
    }

    /// Element `index` of array node `array`, or nil when out of range.
    @inline(__always)
    package func element(of array: Int, at index: Int) -> Int? {
        guard index >= 0, index < Int(nodes[array].count) else { return nil }
        var i = array + 1
        for _ in 0..<index { i = next(i) }
        return i
    }

    /// Node `i` as a `Value` (containers with everything under them). Recursion is bounded by the depth
    /// limit the reader enforced.
    package func value(at i: Int) -> Value {
        let n = nodes[i]
        switch n.kind {
        case .null: return .null
        case .bool: return .bool(n.payload != 0)
        case .int: return .int(Int64(bitPattern: n.payload))
        case .double: return .double(Double(bitPattern: n.payload))
        case .string: return .string(String(decoding: bytes(i), as: UTF8.self))
        case .array:
            var out: [Value] = []
            out.reserveCapacity(Int(n.count))
            var j = i + 1
            for _ in 0..<n.count {
                out.append(value(at: j))
                j = next(j)
            }
            return .array(out)
        case .object:
            var members: [ValueObject.Member] = []
            members.reserveCapacity(Int(n.count))
            var j = i + 1
            for _ in 0..<n.count {
                let key = String(decoding: bytes(j), as: UTF8.self)
                members.append(ValueObject.Member(key: key, value: value(at: j + 1)))
                j = next(j + 1)
            }
            return .object(
                ValueObject(members: members, anyKeyHasDot: n.flags & JSONTape.Node.dottedFlag != 0, allKeysASCII: true))
        }
    }
}

extension JSONTape {
    /// The tape of `object`: its compact JSON (as `JSONWriter` writes it) read into a tape; nil when the tape
    /// does not take it (a key with an escape or non-ASCII text: see `JSONReader.tape(_:limits:)`). For
    /// events made in code that should travel as read ones do.
    public static func of(_ object: ValueObject) -> JSONTape? {
        var text: [UInt8] = []
        JSONWriter.write(.object(object), to: &text)
        return JSONReader.tape(text[...])
    }
}

/// The protocol of a value made once, on first use, and then shared: `state` is 0 (not yet), 1 (being made)
/// or 2 (made, in the cache). An atomic rather than a lock: a lock is two more allocations for every
/// event, and most events never ask. The cache is written once, by the one caller that moves `state` from
/// 0 to 1, and read only after `state` says 2 (release/acquire order the two).
enum MadeOnce {
    static func value<T>(
        _ state: borrowing Atomic<Int>, cached: () -> T?, make: () -> T, store: (T) -> Void
    ) -> T {
        while true {
            switch state.compareExchange(expected: 0, desired: 1, ordering: .acquiring) {
            case (true, _):
                let v = make()
                store(v)
                state.store(2, ordering: .releasing)
                return v
            case (false, 2):
                return cached() ?? make()
            default:
                // Another thread is making it (a short wait: one walk of the data).
                sched_yield()
            }
        }
    }
}
