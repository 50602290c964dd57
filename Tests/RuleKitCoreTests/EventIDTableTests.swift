import Foundation
import RuleKitTestSupport
import Testing

@testable import RuleKitCore

/// The hub's id table against a `Dictionary` (the plain reference): random inserts, updates, lookups and
/// removals, with ids that share their first half (the mix must still tell them apart) and runs long
/// enough that backward-shift removal moves entries across the table's end.
struct EventIDTableTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithADictionary(_ seed: UInt64) {
        var rng = SeededGenerator(state: seed)
        var table = EventIDTable()
        var reference: [UUID: Int] = [:]
        // A small pool of ids, so the same ids come back to be updated, removed and added again.
        let pool = (0..<300).map { k -> UUID in
            k % 3 == 0 ? EventID.make(0x1234, UInt64(k)) : EventID.make(rng.next(), rng.next())
        }
        for step in 0..<20_000 {
            let id = pool[Int(rng.next() % UInt64(pool.count))]
            switch rng.next() % 5 {
            case 0, 1:
                table[id] = step
                reference[id] = step
            case 4:
                // The one-probe counter (the memory store's ordinals) against read-then-write.
                let before = reference[id] ?? 0
                #expect(table.postIncrement(id) == before)
                reference[id] = before + 1
            case 2:
                table[id] = nil
                reference[id] = nil
            default:
                #expect(table[id] == reference[id])
            }
            if step % 5_000 == 4_999 {
                #expect(table.count == reference.count)
                for id in pool { #expect(table[id] == reference[id]) }
            }
        }
        for id in pool { table[id] = nil }
        #expect(table.isEmpty && pool.allSatisfy { table[$0] == nil })
    }

    /// A table filled far past its first size and emptied again finds nothing it no longer holds.
    @Test func growsAndEmpties() {
        var table = EventIDTable()
        let ids = (0..<10_000).map { _ in EventID.next() }
        for (n, id) in ids.enumerated() { table[id] = n }
        #expect(table.count == ids.count)
        for (n, id) in ids.enumerated() where n % 2 == 0 { table[id] = nil }
        for (n, id) in ids.enumerated() { #expect(table[id] == (n % 2 == 0 ? nil : n)) }
        for id in ids { table[id] = nil }
        #expect(table.isEmpty)
    }
}
