// Invariants:
// 1. The table's arrays are immutable after `init`; lookups read them through pointers lent for the
//    call (`withUnsafeBufferPointer`), never kept.
// 2. A looked-up text is a buffer the caller lends for the call (the resolver's string-form pool, while
//    the pass is running); it is only read.
// The plain reference is `RuleIndex.EqualityAnchor.rulesByValue` (a `Dictionary`), which the index also
// uses for non-ASCII text; the oracle tests check the index never skips a matching rule.
/// A read-only hash table from byte strings to small integers, for the rule index's equalities.
///
/// The index has each event's value as lowercased ASCII bytes already (the slot's string form), so a
/// lookup here hashes and compares those bytes in place: no `String` is made, lowercased or hashed
/// with SipHash per event. Keys are ASCII; open addressing with linear probing over a power-of-two table
/// at most half full. A class: the index reads it per event, and a struct of six arrays would be
/// retained six times for that.
final class ByteKeyTable: Sendable {
    private let bytes: [UInt8]
    private let starts: [Int32]
    private let lengths: [Int32]
    private let hashes: [UInt64]
    /// Entry + 1 per bucket (0: empty).
    private let buckets: [Int32]
    private let mask: Int

    /// nil when some key is not ASCII (a `String` may equal it under canonical equivalence while
    /// its bytes differ: the caller keeps the `String` lookup for such tables).
    init?(keys: [String]) {
        var bytes: [UInt8] = []
        var starts: [Int32] = []
        var lengths: [Int32] = []
        var hashes: [UInt64] = []
        for k in keys {
            guard k.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            starts.append(Int32(bytes.count))
            lengths.append(Int32(k.utf8.count))
            bytes.append(contentsOf: k.utf8)
            hashes.append(k.utf8.withContiguousStorageIfAvailable(Self.hash) ?? Self.hash(UnsafeBufferPointer(start: nil, count: 0)))
        }
        var size = 4
        while size < keys.count * 2 { size <<= 1 }
        var buckets = [Int32](repeating: 0, count: size)
        for e in keys.indices {
            var b = Int(truncatingIfNeeded: hashes[e]) & (size - 1)
            while buckets[b] != 0 { b = (b + 1) & (size - 1) }
            buckets[b] = Int32(e + 1)
        }
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
        self.hashes = hashes
        self.buckets = buckets
        self.mask = size - 1
    }

    /// The position in `keys` of the key spelt by `text`, if any.
    func find(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        let h = Self.hash(text)
        var b = Int(truncatingIfNeeded: h) & mask
        return buckets.withUnsafeBufferPointer { buckets in
            bytes.withUnsafeBufferPointer { bytes in
                while true {
                    let e = Int(buckets[b]) - 1
                    if e < 0 { return nil }
                    if hashes[e] == h && Int(lengths[e]) == text.count {
                        let s = Int(starts[e])
                        var i = 0
                        while i < text.count && bytes[s + i] == text[i] { i += 1 }
                        if i == text.count { return e }
                    }
                    b = (b + 1) & mask
                }
            }
        }
    }

    /// Eight bytes at a time, mixed by multiplication (keys are short, tables small, input trusted
    /// only to be bytes: a bad spread costs probes, never correctness).
    @inline(__always)
    static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(text.count)
        guard let base = text.baseAddress else { return h }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= text.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < text.count {
            tail |= UInt64(text[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 29)
    }
}
