import Foundation
import Testing

@testable import RuleKitCore

/// `EventHistoryHash` as the reference defines it (launch-rules-reference §5: FNV-1a over the sorted
/// `key:value` texts of the flattened data): pinned values computed elsewhere, and the hash against the
/// plain spelling of those texts for data of every kind.
@Suite struct EventHistoryHashTests {
    /// The definition, spelled out: each pair's text made whole, then hashed.
    static func spelled(_ data: ValueObject, mask: [String]? = nil) -> UInt32 {
        var flat: [(String, Value)] = []
        EventHistoryHash.flatten(.object(data), prefix: nil, into: &flat)
        if let mask { flat = flat.filter { mask.contains($0.0) } }
        flat.sort { $0.0 < $1.0 }
        var h: UInt32 = 2_166_136_261
        for (k, v) in flat {
            for b in "\(k):\(EventHistoryHash.describe(v))".utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        }
        return flat.isEmpty ? 0 : h
    }

    @Test func pinnedValues() {
        // FNV-1a 32 of "hx.seen:com.adobe.eventType.edge", computed with Python.
        #expect(EventHistoryHash.hash(["hx.seen": "com.adobe.eventType.edge"]) == 2_772_900_013)
        #expect(EventHistoryHash.hash(["hx": ["seen": "com.adobe.eventType.edge"]]) == 2_772_900_013, "nested keys flatten to dotted ones")
        // Of "a.0:1a.1.b:truec:<null>é:ü": sorted keys, arrays by index, null and non-ASCII text.
        let mixed: ValueObject = ["é": "ü", "c": .null, "a": .array([.int(1), .object(["b": .bool(true)])])]
        #expect(EventHistoryHash.hash(mixed) == 3_892_474_668)
        #expect(EventHistoryHash.hash(nil) == 0)
        #expect(EventHistoryHash.hash([:]) == 0)
        #expect(EventHistoryHash.hash(["n": .int(3)]) == EventHistoryHash.hash(["n": "3"]), "3 and \"3\" hash the same")
    }

    @Test func theHashIsTheSpelledTexts() {
        let values: [Value] = [
            "", "text", "ünïcödé ✓", "a:b", .int(0), .int(-42), .int(Int64.max), .double(1.5), .double(-0.25),
            .double(1e300), .bool(false), .bool(true), .null, .array([]), .object([:]),
            .array(["x", .int(2), .array([.bool(true)])]), .object(["k": .object(["deep": "v"]), "e\u{301}": "combining"]),
        ]
        let keys = ["a", "B", "é", "e\u{301}", "a.b", "z", "0", "key with space", "ß"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var data = ValueObject()
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let k = keys.randomElement(using: &rng) ?? "a"
                data[k] = values.randomElement(using: &rng) ?? .null
            }
            #expect(EventHistoryHash.hash(data) == Self.spelled(data), "\(data)")
            let mask = keys.filter { _ in Bool.random(using: &rng) } + ["k.deep", "a.b"]
            #expect(EventHistoryHash.hash(data, mask: mask) == Self.spelled(data, mask: mask), "\(data) \(mask)")
        }
    }
}
