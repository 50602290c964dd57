import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// `KeySet` (most keys in 16 bytes) against the plain reference, a `Set<RecordKey>`: the same answers for
/// keys of every kind, those it packs and those it keeps as they are.
@Suite struct KeySetTests {
    @Test func answersAsASetOfTheKeysThemselves() {
        var rng = SeededGenerator(state: 11)
        // Few causes, so that keys repeat: RFC variant (packed when the ordinal is under 4), the other
        // variants (kept whole), and keys that are not a cause's.
        let causes: [(UInt64, UInt64)] = (0..<40).map { i in
            let hi = UInt64.random(in: 0...UInt64.max, using: &rng)
            let low62 = UInt64.random(in: 0...UInt64.max, using: &rng) & 0x3FFF_FFFF_FFFF_FFFF
            return (hi, low62 | UInt64(i % 4) << 62)
        }
        // Two causes that differ only in the bits the packing gives up.
        let twin = causes[2]
        let variants = causes + [(twin.0, twin.1 & 0x3FFF_FFFF_FFFF_FFFF), (twin.0, twin.1 | 0xC000_0000_0000_0000)]
        func key() -> RecordKey {
            if Int.random(in: 0..<10, using: &rng) == 0 { return RecordKey("k\(Int.random(in: 0..<20, using: &rng))") }
            let (hi, lo) = variants[Int.random(in: 0..<variants.count, using: &rng)]
            return .cause(hi, lo, Int.random(in: 0..<6, using: &rng))
        }
        var set = KeySet()
        var reference = Set<RecordKey>()
        for _ in 0..<5_000 {
            let k = key()
            #expect(set.contains(k) == reference.contains(k))
            let inserted = set.insert(k)
            #expect(inserted == reference.insert(k).inserted)
            #expect(set.count == reference.count)
        }
        // A packed key's two top bits hold its ordinal, and look like another variant's: yet these six
        // keys (three packed, three of the other variants kept whole) are six.
        var six = KeySet()
        for (ordinal, variant) in zip(0..<3, [UInt64(0b00), 0b01, 0b11]) {
            let packed = six.insert(.cause(1, 0x8000_0000_0000_0002, ordinal))
            let whole = six.insert(.cause(1, 0x0000_0000_0000_0002 | variant << 62, ordinal))
            #expect(packed && whole)
        }
        #expect(six.count == 6)
    }
}
