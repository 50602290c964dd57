/// A direct-mapped cache of recently made strings, keyed by their bytes.
///
/// Rules files repeat the same long scalars (event types, sources, key paths) thousands of times; a
/// string over 15 UTF-8 bytes costs a heap allocation, and its later release, every time. Reusing the
/// earlier `String` turns that into a retain. Short strings are stored inline by Swift and skip the cache.
/// Used by the YAML reader, and by the JSON reader for rules files (`JSONPull`).
package struct StringInterner {
    private var slots: [String?]
    private let mask: Int

    package init(slotCount: Int = 4096) {
        precondition(slotCount > 0 && slotCount & (slotCount - 1) == 0, "slot count must be a power of two")
        slots = Array(repeating: nil, count: slotCount)
        mask = slotCount - 1
    }

    package mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let n = bytes.count
        guard n > 15 && n <= 256 else { return String(decoding: bytes, as: UTF8.self) }
        // The slot comes from the length and three 8-byte words (start, middle, end), not every byte: a
        // collision only costs a new string, never a wrong one (the bytes are compared below).
        let raw = UnsafeRawBufferPointer(bytes)
        let first = raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let middle = raw.loadUnaligned(fromByteOffset: (n - 8) / 2, as: UInt64.self)
        let last = raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        var h = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ first) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ middle) &* 0x94D0_49BB_1331_11EB
        h = (h ^ last) &* 0x9E37_79B9_7F4A_7C15
        let slot = Int(truncatingIfNeeded: h >> 32) & mask
        if let s = slots[slot], s.utf8.count == n {
            let same = s.utf8.withContiguousStorageIfAvailable { Self.sameBytes($0, bytes) }
                ?? s.utf8.elementsEqual(bytes)
            if same { return s }
        }
        let s = String(decoding: bytes, as: UTF8.self)
        slots[slot] = s
        return s
    }

    /// Byte equality of two buffers of the same length, eight bytes at a time.
    static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = a.count
        let x = UnsafeRawBufferPointer(a), y = UnsafeRawBufferPointer(b)
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
