// A UUID read from its canonical text (36 bytes: hex digits, hyphens at offsets 8, 13, 18 and 23), as input
// events spell their ids: one pass over the string's bytes where they are kept.
//
// Invariants:
// 1. The bytes are read only through the buffer `withContiguousStorageIfAvailable` lends for the call, at
//    offsets below 36 once its count is checked to be 36.
// 2. The hex table has 256 entries: every byte value indexes it.
// The plain reference is Foundation's `UUID(uuidString:)`: on a canonical text both give the same UUID
// (`EventIDTests`, and the fuzz-json target, compare them); a string not kept contiguously is read by
// the same rules through its `utf8` view.
public import struct Foundation.UUID

extension EventID {
    /// The UUID a canonical text spells: 36 characters, hyphens at offsets 8, 13, 18 and 23 and hex digits
    /// (either case) elsewhere; nil for any other text. On these texts it is `UUID(uuidString:)`, which on
    /// Linux reads them with `sscanf`: a sixth of `rulekit run`'s time over small events that carry ids.
    /// Other texts are left to `UUID(uuidString:)` itself, which reads some of them too (a space, a sign
    /// or `0x` within a group), so that every text keeps the id it had.
    public static func canonical(_ text: String) -> UUID? {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return nil }
        let read = utf8.withContiguousStorageIfAvailable { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var reader = CanonicalUUIDReader()
            for i in 0..<36 { reader.take(bytes[i]) }
            return reader.uuid
        }
        if let read { return read }
        var reader = CanonicalUUIDReader()
        for c in utf8 { reader.take(c) }
        return reader.uuid
    }
}

/// The state of one read: the 32 digits so far, and whether any byte was out of place.
private struct CanonicalUUIDReader {
    private var hi: UInt64 = 0
    private var lo: UInt64 = 0
    private var offset = 0
    /// Nonzero once a byte was not what its offset needs (the high bits of a table entry, or a hyphen's
    /// place holding another byte).
    private var bad: UInt8 = 0

    private static let hyphens: UInt64 = 1 << 8 | 1 << 13 | 1 << 18 | 1 << 23

    /// Each byte's hex value, or 0xFF.
    private static let hex: [UInt8] = (0..<256).map { c -> UInt8 in
        switch c {
        case 0x30...0x39: UInt8(c - 0x30)
        case 0x61...0x66: UInt8(c - 0x61 + 10)
        case 0x41...0x46: UInt8(c - 0x41 + 10)
        default: 0xFF
        }
    }

    mutating func take(_ c: UInt8) {
        defer { offset += 1 }
        guard offset < 36 else {
            bad = 0xFF
            return
        }
        if Self.hyphens & (1 << UInt64(offset)) != 0 {
            bad |= c ^ UInt8(ascii: "-")
            return
        }
        let v = Self.hex[Int(c)]
        bad |= v & 0xF0
        if offset < 18 { hi = hi << 4 | UInt64(v & 0xF) } else { lo = lo << 4 | UInt64(v & 0xF) }
    }

    /// The UUID read, if all 36 bytes were in place.
    var uuid: UUID? { bad == 0 && offset == 36 ? EventID.uuid(hi, lo) : nil }
}
