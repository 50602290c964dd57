/// Open addressing over numbered entries, for the planner's tables: the caller keeps the entries (in
/// arrays, in insertion order) and their 64-bit hashes; this keeps the buckets. Linear probing over a
/// power-of-two table at most half full.
struct ProbeTable {
    private(set) var hashes: [UInt64] = []
    /// Entry + 1 per bucket (0: empty).
    private var buckets = [Int32](repeating: 0, count: 64)

    /// The entry with hash `h` that `same` accepts, or nil and the bucket a new entry of that hash takes.
    func find(_ h: UInt64, _ same: (Int) -> Bool) -> (entry: Int?, bucket: Int) {
        let mask = buckets.count - 1
        var b = Int(truncatingIfNeeded: h >> 7) & mask
        while true {
            let e = Int(buckets[b]) - 1
            if e < 0 { return (nil, b) }
            if hashes[e] == h && same(e) { return (e, b) }
            b = (b + 1) & mask
        }
    }

    /// Records the next entry (number `hashes.count`) with hash `h` at `bucket`, from `find`.
    mutating func insert(_ h: UInt64, at bucket: Int) {
        hashes.append(h)
        buckets[bucket] = Int32(hashes.count)
        guard hashes.count * 2 > buckets.count else { return }
        buckets = [Int32](repeating: 0, count: buckets.count * 2)
        let mask = buckets.count - 1
        for e in hashes.indices {
            var b = Int(truncatingIfNeeded: hashes[e] >> 7) & mask
            while buckets[b] != 0 { b = (b + 1) & mask }
            buckets[b] = Int32(e + 1)
        }
    }
}

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
    private var table = ProbeTable()

    static func hash(_ text: String) -> UInt64 {
        // In place: a native string's UTF-8 is contiguous (`withUTF8` would need a mutable copy).
        if let h = text.utf8.withContiguousStorageIfAvailable({ ByteKeyTable.hash($0) }) { return h }
        return Array(text.utf8).withUnsafeBufferPointer { ByteKeyTable.hash($0) }
    }

    subscript(text: String) -> V? {
        get { table.find(Self.hash(text)) { keys[$0] == text }.entry.map { values[$0] } }
        set {
            // Entries are only ever added (a cache is never told to forget).
            guard let v = newValue else { return }
            let h = Self.hash(text)
            // The closure reads `keys` in place: a local copy would still share the array when it is
            // appended to below, and copy it whole.
            let (found, bucket) = table.find(h) { self.keys[$0] == text }
            if let e = found {
                values[e] = v
                return
            }
            values.append(v)
            keys.append(text)
            table.insert(h, at: bucket)
        }
    }
}
