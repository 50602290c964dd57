// The keys of records kept once (exactly once by cause): half the memory of a set of whole keys.
internal import RuleKitCore

/// The keys of records, in two sets: most keys in 16 bytes, every other as it is. A key whose cause carries
/// the RFC variant bits (`10`, the two top bits of its ninth byte: every id RuleKit makes, and every UUID
/// clients send as such) and whose ordinal is under 4 (a cause rarely makes more than one record) is kept
/// as the cause's 128 bits with the ordinal in place of those two bits. Exact: among such keys the variant
/// bits are the same, so the two bits they give up are free, and no key of the other kind is ever looked
/// for among these. A set of a million keys is half the size (32 MB against 64) and a look-up touches
/// half the memory.
struct KeySet: Sendable {
    private struct Compact: Hashable, Sendable {
        var hi: UInt64
        var lo: UInt64
    }

    private var compact: Set<Compact> = []
    private var wide: Set<RecordKey> = []

    var count: Int { compact.count + wide.count }
    /// How many keys fit before the compact set grows.
    var capacity: Int { compact.capacity }

    mutating func reserveCapacity(_ n: Int) {
        compact.reserveCapacity(n)
    }

    private static func compact(_ k: RecordKey) -> Compact? {
        guard case .cause(let hi, let lo, let ordinal) = k, ordinal >= 0, ordinal < 4, lo >> 62 == 0b10 else { return nil }
        return Compact(hi: hi, lo: (lo & 0x3FFF_FFFF_FFFF_FFFF) | UInt64(ordinal) << 62)
    }

    func contains(_ k: RecordKey) -> Bool {
        if let c = Self.compact(k) { return compact.contains(c) }
        return wide.contains(k)
    }

    /// Whether `k` was new (and is now kept).
    mutating func insert(_ k: RecordKey) -> Bool {
        if let c = Self.compact(k) { return compact.insert(c).inserted }
        return wide.insert(k).inserted
    }
}
