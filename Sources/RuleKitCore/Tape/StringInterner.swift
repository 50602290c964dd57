// Invariants: the interner reads the bytes it is given (a buffer lent by the reader for the call) and
// keeps only the `String`s it made from them; it keeps no pointer.
/// A direct-mapped cache of recently made strings, keyed by their bytes.
///
/// Rules files repeat the same long scalars (event types, sources, key paths) thousands of times; a
/// string over 15 UTF-8 bytes costs a heap allocation, and its later release, every time. Reusing the
/// earlier `String` turns that into a retain. Short strings (15 bytes or fewer) are stored inline by
/// Swift, so they cost no allocation, but making one still validates and decodes its bytes: keys such as
/// `type` and `definition` recur in every rule, and a second small cache keyed by the bytes themselves
/// (two words) hands back the earlier one instead.
/// Used by the YAML reader, and by the JSON reader for rules files.
package struct StringInterner {
    private var slots: [String?]
    private let mask: Int
    /// Short strings by their bytes packed into two words (the length in the top byte of the second).
    private var shortWords: [(UInt64, UInt64)]
    private var shortStrings: [String]
    private static let shortSlots = 1024

    package init(slotCount: Int = 4096) {
        precondition(slotCount > 0 && slotCount & (slotCount - 1) == 0, "slot count must be a power of two")
        slots = Array(repeating: nil, count: slotCount)
        mask = slotCount - 1
        // Word (0, 0) is never a key: every short key has its nonzero length in the second word.
        shortWords = Array(repeating: (0, 0), count: Self.shortSlots)
        shortStrings = Array(repeating: "", count: Self.shortSlots)
    }

    /// Makes `strings` the ones handed back for their bytes (until a colliding string takes a slot). A
    /// string made from a literal is never reference counted: an event type shared this way costs no
    /// atomic operation each time an event is copied, compared or freed, on whichever thread.
    package mutating func adopt(_ strings: [String]) {
        for var s in strings where s.utf8.count > 15 && s.utf8.count <= 256 {
            let slot = s.withUTF8 { longSlot($0) }
            slots[slot] = s
        }
    }

    package mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let n = bytes.count
        if n <= 15 {
            guard n > 0 else { return "" }
            var w0: UInt64 = 0
            var w1 = UInt64(n) << 56
            for i in 0..<min(n, 8) { w0 |= UInt64(bytes[i]) << (8 * UInt64(i)) }
            var i = 8
            while i < n {
                w1 |= UInt64(bytes[i]) << (8 * UInt64(i - 8))
                i += 1
            }
            let slot =
                Int(truncatingIfNeeded: ((w0 ^ (w1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> 40)
                & (Self.shortSlots - 1)
            if shortWords[slot] == (w0, w1) { return shortStrings[slot] }
            let s = String(decoding: bytes, as: UTF8.self)
            shortWords[slot] = (w0, w1)
            shortStrings[slot] = s
            return s
        }
        guard n <= 256 else { return String(decoding: bytes, as: UTF8.self) }
        let slot = longSlot(bytes)
        if let s = slots[slot], s.utf8.count == n {
            let same =
                s.utf8.withContiguousStorageIfAvailable { Self.sameBytes($0, bytes) }
                ?? s.utf8.elementsEqual(bytes)
            if same { return s }
        }
        let s = String(decoding: bytes, as: UTF8.self)
        slots[slot] = s
        return s
    }

    /// The slot of a string of 16 to 256 bytes.
    @inline(__always)
    private func longSlot(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let n = bytes.count
        // The slot comes from the length and three 8-byte words (start, middle, end), not every byte: a
        // collision only costs a new string, never a wrong one (the bytes are compared).
        let raw = UnsafeRawBufferPointer(bytes)
        let first = raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let middle = raw.loadUnaligned(fromByteOffset: (n - 8) / 2, as: UInt64.self)
        let last = raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        var h = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ first) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ middle) &* 0x94D0_49BB_1331_11EB
        h = (h ^ last) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 32) & mask
    }

    /// Byte equality of two buffers of the same length, eight bytes at a time.
    static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = a.count
        let x = UnsafeRawBufferPointer(a)
        let y = UnsafeRawBufferPointer(b)
        var i = 0
        while i + 8 <= n {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self) != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i += 8
        }
        while i < n {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }
}
