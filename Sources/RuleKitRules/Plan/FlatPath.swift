// A flattened key path, cut once into the steps the plain walk reads (`FlatWalk.swift`).
//
// Invariants:
// 1. `unsafeSteps`, and each step's `keyBytes`, are memory this object allocates in `init`, writes once,
//    and frees in `deinit`; nothing else writes them. The object is immutable, so sharing it across threads is safe (`@unchecked Sendable`).
// 2. A pointer to the steps is used only while the path is alive: plans keep their paths (the slot table
//    holds every key it reads), and walks borrow the steps for one call.
internal import RuleKitCore

/// A key of the reference's flattened map (`a.b.0.c`), prepared for lookups without flattening.
///
/// The reference flattens the whole event data into a dictionary of dotted keys on every evaluation;
/// RuleKit walks the value tree instead. The common case (each dot a nesting step) is a direct walk over
/// pre-split segments; keys that themselves contain dots fall back to trying every split, which finds
/// exactly the leaves the flattened map would hold under this key.
public final class FlatPath: @unchecked Sendable, Hashable {
    // @unchecked: `unsafeSteps` is memory this immutable object owns, written once in init.
    /// The path as written.
    public let raw: String
    let segments: [String]
    /// Each segment read as an array index (flatten writes indexes as plain decimals), or nil.
    let indexes: [Int?]

    /// Each segment's UTF-8 bytes, and whether all are ASCII (for `end(ofDottedKey:from:)`).
    let segmentBytes: [[UInt8]]
    let asciiSegments: Bool

    /// One step of the plain walk: the segment, its UTF-8 count when ASCII (else -1: see
    /// `UnsafeObjectView.find`) and its array index (-1 when none).
    struct Step {
        let key: String
        let asciiCount: Int
        let arrayIndex: Int
        /// The key's UTF-8 bytes, in memory the path owns (for walks over tapes, whose keys are bytes).
        let keyBytes: UnsafeBufferPointer<UInt8>
        /// The tag tapes keep on the key's node (`JSONTape.keyTag`), computed once here.
        let keyTag: UInt32
    }
    /// The segments as steps, in memory the path owns: the resolver's walk reads nothing else, and reads
    /// it through a pointer (no reference counting per step). Valid while the path lives.
    let unsafeSteps: UnsafeBufferPointer<Step>

    /// Cuts `raw` into its lookup steps, once.
    ///
    /// - Parameter raw: the path text.
    public init(_ raw: String) {
        self.raw = raw
        self.segments = raw.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        self.segmentBytes = segments.map { Array($0.utf8) }
        self.asciiSegments = raw.utf8.allSatisfy { $0 < 0x80 }
        self.indexes = segments.map { s in
            guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            if s.utf8.count > 1 && s.utf8.first == 0x30 { return nil }
            return Int(s)
        }
        let steps = UnsafeMutableBufferPointer<Step>.allocate(capacity: segments.count)
        _ = steps.initialize(
            from: zip(segments, indexes).map {
                let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: $0.utf8.count)
                _ = bytes.initialize(from: $0.utf8)
                return Step(
                    key: $0, asciiCount: $0.utf8.allSatisfy { $0 < 0x80 } ? $0.utf8.count : -1, arrayIndex: $1 ?? -1,
                    keyBytes: UnsafeBufferPointer(bytes), keyTag: JSONTape.keyTag(UnsafeBufferPointer(bytes)))
            })
        self.unsafeSteps = UnsafeBufferPointer(steps)
    }

    deinit {
        for step in unsafeSteps { UnsafeMutableBufferPointer(mutating: step.keyBytes).deallocate() }
        UnsafeMutableBufferPointer(mutating: unsafeSteps).deinitialize().deallocate()
    }

    /// Equal when written alike.
    public static func == (a: FlatPath, b: FlatPath) -> Bool { a.raw == b.raw }
    /// Hashes the text.
    public func hash(into h: inout Hasher) { h.combine(raw) }

    /// If `key` spells segments `from`, `from+1`, ... joined by dots, the segment after it.
    func end(ofDottedKey key: String, from: Int) -> Int? {
        // ASCII key and path (shared states' "lifecycle.sessionTimeout" keys, on every event): bytes.
        if asciiSegments {
            var key = key
            let byBytes: Int?? = key.withUTF8 { k in
                if k.contains(where: { $0 >= 0x80 }) { return .none }
                var p = 0
                var j = from
                while j < segmentBytes.count {
                    let seg = segmentBytes[j]
                    guard p + seg.count <= k.count else { return .some(nil) }
                    for i in seg.indices where k[p + i] != seg[i] { return .some(nil) }
                    p += seg.count
                    j += 1
                    if p == k.count { return .some(j) }
                    guard k[p] == 0x2E else { return .some(nil) }
                    p += 1
                }
                return .some(nil)
            }
            if let found = byBytes { return found }
        }
        var j = from
        var rest = Substring(key)
        while j < segments.count {
            let seg = segments[j]
            guard rest.hasPrefix(seg) else { return nil }
            rest = rest.dropFirst(seg.count)
            j += 1
            if rest.isEmpty { return j }
            guard rest.first == "." else { return nil }
            rest = rest.dropFirst()
        }
        return nil
    }
}
