// Names read as UTF-8 bytes, lent for one call: the validator's property table and prefix trie, a name's
// byte set, byte comparison with a string, the line-terminator scan, and the one way an instance's key
// lends its bytes (`InstanceKey.withNameBytes`).
//
// Invariants:
// 1. Every buffer here is lent to the call it is passed to (by `String.withUTF8`, `withNameBytes`, or a
//    tape view inside `JSONTape.withUnsafeView`) and kept by none of them.
// 2. Reads stay inside the buffer: for-in loops over it, or indexes below a count compared first.
// The plain references: `NameTable[name]` (a `String`) and `RunSupport.sameUTF8(_:_:)` on two strings go
// through the same code with the string's own bytes; the JSON-Schema-Test-Suite runs every keyword over
// `Value` instances (string keys) and tapes (byte keys) and compares their verdicts.
internal import RuleKitCore

/// A member's name, as an instance gives it.
protocol InstanceKey {
    var name: String { get }
    /// The schema `table` gives this name, if any.
    func lookup(in table: NameTable) -> SchemaNode?
    /// Calls `body` with the name's UTF-8 bytes.
    func withNameBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R
}

extension String: InstanceKey {
    var name: String { self }
    func lookup(in table: NameTable) -> SchemaNode? { table[self] }
    func withNameBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var s = self
        return s.withUTF8(body)
    }
}

/// Property name → schema, found by an FNV hash of the name's bytes (no per-lookup hasher seeding,
/// which dominated the validator's profile with `Dictionary`).
struct NameTable {
    private var names: [String] = []
    private var nodes: [SchemaNode] = []
    private var slots: [Int32] = []
    private var mask = 0

    init(_ byName: [String: SchemaNode]) {
        var size = 8
        while size < byName.count * 2 { size *= 2 }
        slots = Array(repeating: -1, count: size)
        mask = size - 1
        for (k, n) in byName {
            var i = NameTable.hash(k) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(names.count)
            names.append(k)
            nodes.append(n)
        }
    }

    /// Every (name, schema) pair.
    var entries: [(String, SchemaNode)] { Array(zip(names, nodes)) }

    static func hash(_ s: String) -> Int {
        // Over the contiguous bytes when the string has them (native and small strings): the UTF-8
        // view's iterator costs several times more per byte.
        if let h = s.utf8.withContiguousStorageIfAvailable({ hash(bytes: $0) }) { return h }
        return Array(s.utf8).withUnsafeBufferPointer { hash(bytes: $0) }
    }

    static func hash(bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The schema of the name spelt by `bytes` (UTF-8), as `self[name]`.
    subscript(bytes key: UnsafeBufferPointer<UInt8>) -> SchemaNode? {
        if names.isEmpty { return nil }
        var i = NameTable.hash(bytes: key) & mask
        while true {
            let s = slots[i]
            if s < 0 { return nil }
            if RunSupport.sameUTF8(names[Int(s)], key) { return nodes[Int(s)] }
            i = (i + 1) & mask
        }
    }

    /// The schema of property `key`. Names match by their code points (JSON Schema's rule), as the
    /// bytes lookup does: one probe loop for both.
    subscript(_ key: String) -> SchemaNode? {
        var key = key
        return key.withUTF8 { self[bytes: $0] }
    }
}

/// Literal prefixes → pattern indices, as a dense ASCII trie (no hashing on the hot path).
struct PrefixTrie {
    var next: [Int32] = Array(repeating: -1, count: 128)
    var terminals: [[Int]] = [[]]
    var isEmpty: Bool { terminals.count == 1 && terminals[0].isEmpty }

    mutating func insert(_ bytes: [UInt8], _ id: Int) {
        var n = 0
        for b in bytes {
            guard b < 128 else { return }
            let i = n * 128 + Int(b)
            if next[i] < 0 {
                next[i] = Int32(terminals.count)
                terminals.append([])
                next.append(contentsOf: repeatElement(-1, count: 128))
            }
            n = Int(next[i])
        }
        terminals[n].append(id)
    }

    /// Calls `found` with each pattern whose prefix starts `key` (its UTF-8 bytes).
    func forEachMatch(_ key: UnsafeBufferPointer<UInt8>, _ found: (Int) -> Void) {
        var n = 0
        for id in terminals[0] { found(id) }
        for b in key {
            guard b < 128 else { return }
            let m = next[n * 128 + Int(b)]
            if m < 0 { return }
            n = Int(m)
            for id in terminals[n] { found(id) }
        }
    }
}

extension RunSupport {
    /// The ASCII bytes of a UTF-8 text as a 128-bit set.
    static func byteSet(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        var p = (UInt64(0), UInt64(0))
        for b in bytes where b < 128 {
            if b < 64 { p.0 |= 1 << UInt64(b) } else { p.1 |= 1 << UInt64(b - 64) }
        }
        return p
    }

    /// Whether a string's UTF-8 bytes are `b`.
    static func sameUTF8(_ a: String, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var a = a
        return a.withUTF8 { x in
            // A plain loop: `elementsEqual` over two buffers took a sixth of `xdm validate`'s time.
            guard x.count == b.count else { return false }
            for i in 0..<x.count where x[i] != b[i] { return false }
            return true
        }
    }
}

extension Pattern {
    /// The same, of UTF-8 bytes.
    static func hasLineTerminator(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Fast path: no byte that could start one (every such byte is below 0x0E or is 0xE2).
        if !bytes.contains(where: { $0 < 0x0E || $0 == 0xE2 }) { return false }
        var prev2: UInt8 = 0
        var prev1: UInt8 = 0
        for b in bytes {
            if b == 0x0A || b == 0x0D { return true }
            if prev2 == 0xE2 && prev1 == 0x80 && (b == 0xA8 || b == 0xA9) { return true }
            prev2 = prev1
            prev1 = b
        }
        return false
    }
}
