/// A direct-mapped cache of recently made strings, keyed by their bytes.
///
/// Rules files repeat the same long scalars (event types, sources, key paths) thousands of times; a
/// string over 15 UTF-8 bytes costs a heap allocation, and its later release, every time. Reusing the
/// earlier `String` turns that into a retain. Short strings are stored inline by Swift and skip the cache.
struct StringInterner {
    private var slots: [String?]
    private let mask: Int

    init(slotCount: Int = 4096) {
        precondition(slotCount > 0 && slotCount & (slotCount - 1) == 0, "slot count must be a power of two")
        slots = Array(repeating: nil, count: slotCount)
        mask = slotCount - 1
    }

    mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.count > 15 && bytes.count <= 256 else { return String(decoding: bytes, as: UTF8.self) }
        var h: UInt32 = 2_166_136_261
        for b in bytes { h = (h ^ UInt32(b)) &* 16_777_619 }
        let slot = Int(h) & mask
        if let s = slots[slot], s.utf8.count == bytes.count {
            let same = s.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? s.utf8.elementsEqual(bytes)
            if same { return s }
        }
        let s = String(decoding: bytes, as: UTF8.self)
        slots[slot] = s
        return s
    }
}
