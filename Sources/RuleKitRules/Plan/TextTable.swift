/// A cache keyed by text that hashes the UTF-8 bytes (`ByteKeyTable.hash`) instead of running SipHash
/// over a `String`: the planner looks up a key text per matcher and a token string per consequence, and
/// a rule set repeats the same few thousand times.
///
/// Keys are told apart by their bytes, so two spellings of one text under canonical equivalence are two
/// entries: fit for caches only, where an entry is a result worked out from its key (a second entry
/// works out the same result).
struct TextTable<V> {
    private var values: [V] = []
    private var keys: [String] = []
    private var hashes: [UInt64] = []
    /// Entry + 1 per bucket (0: empty); a power of two at most half full.
    private var buckets = [Int32](repeating: 0, count: 64)

    static func hash(_ text: String) -> UInt64 {
        // In place: a native string's UTF-8 is contiguous (`withUTF8` would need a mutable copy).
        if let h = text.utf8.withContiguousStorageIfAvailable({ ByteKeyTable.hash($0) }) { return h }
        return Array(text.utf8).withUnsafeBufferPointer { ByteKeyTable.hash($0) }
    }

    subscript(text: String) -> V? {
        get {
            let h = Self.hash(text)
            let mask = buckets.count - 1
            var b = Int(truncatingIfNeeded: h >> 7) & mask
            while true {
                let e = Int(buckets[b]) - 1
                if e < 0 { return nil }
                if hashes[e] == h && keys[e] == text { return values[e] }
                b = (b + 1) & mask
            }
        }
        set {
            // Entries are only ever added (a cache is never told to forget).
            guard let v = newValue else { return }
            let h = Self.hash(text)
            var mask = buckets.count - 1
            var b = Int(truncatingIfNeeded: h >> 7) & mask
            while true {
                let e = Int(buckets[b]) - 1
                if e < 0 { break }
                if hashes[e] == h && keys[e] == text {
                    values[e] = v
                    return
                }
                b = (b + 1) & mask
            }
            values.append(v)
            keys.append(text)
            hashes.append(h)
            buckets[b] = Int32(values.count)
            guard values.count * 2 > buckets.count else { return }
            buckets = [Int32](repeating: 0, count: buckets.count * 2)
            mask = buckets.count - 1
            for e in hashes.indices {
                var b = Int(truncatingIfNeeded: hashes[e] >> 7) & mask
                while buckets[b] != 0 { b = (b + 1) & mask }
                buckets[b] = Int32(e + 1)
            }
        }
    }
}
