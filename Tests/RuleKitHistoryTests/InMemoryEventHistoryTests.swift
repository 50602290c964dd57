import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// The memory store keys its series by 128 bits of two keyed hashes of the identity, not by its text: many
/// identities that differ by one character (and the empty one) are kept apart in every read, against a
/// plain dictionary of `(identity, hash)` → times.
@Suite struct InMemoryEventHistoryTests {
    @Test(arguments: [5, 6] as [UInt64])
    func identitiesStayApart(_ seed: UInt64) async throws {
        var rng = SeededGenerator(state: seed)
        let store = InMemoryEventHistory(keyed: true)
        let identities = [""] + (0..<1_500).map { "user-\($0)" } + (0..<500).map { "user-\($0) " }
        var reference: [String: [UInt32: [Double]]] = [:]
        var records: [HistoryRecord] = []
        for n in 0..<12_000 {
            let identity = identities[Int(rng.next() % UInt64(identities.count))]
            let hash = UInt32(rng.next() % 4)
            let ms = Double(rng.next() % 100_000)
            records.append(HistoryRecord(identity: identity, hash: hash, ms: ms, key: "c\(n)/0"))
            reference[identity, default: [:]][hash, default: []].append(ms)
        }
        try await store.commit(records)
        for identity in identities.prefix(400) + identities.suffix(100) {
            for hash in 0..<UInt32(4) {
                let times = reference[identity]?[hash] ?? []
                let all = HistoryIdentity.$current.withValue(identity) { store.query(hash: hash, from: nil, to: nil, after: nil) }
                #expect(all.count == times.count, "\(identity) \(hash)")
                let window = HistoryIdentity.$current.withValue(identity) {
                    store.query(hash: hash, from: Date(timeIntervalSince1970: 20), to: Date(timeIntervalSince1970: 60), after: nil)
                }
                #expect(window.count == times.filter { $0 >= 20_000 && $0 <= 60_000 }.count, "\(identity) \(hash) window")
                let upTo = HistoryIdentity.$current.withValue(identity) {
                    store.query(hash: hash, from: nil, to: Date(timeIntervalSince1970: 50), after: nil)
                }
                #expect(upTo.count == times.filter { $0 <= 50_000 }.count, "\(identity) \(hash) up to")
                #expect(upTo.oldest == times.min().map { Date(timeIntervalSince1970: $0 / 1000) } || upTo.count == 0)
            }
            let exported = try await store.export(identity: identity)
            #expect(exported.count == reference[identity]?.values.reduce(0) { $0 + $1.count } ?? 0, "\(identity)")
        }
        let stats = try await store.stats()
        #expect(stats.records == records.count && stats.identities == reference.count)
        let slices = try await store.prefetch(identities: ["user-7", "user-7 "], hashes: nil, timed: [], limit: 0)
        for s in slices { #expect(s.count == reference[s.identity]?[s.hash]?.count, "\(s.identity) \(s.hash)") }
        // An erasure of one identity leaves its neighbour ("user-7 ") whole.
        let gone = try await store.erase(HistoryErasure(identity: "user-7", at: 100_000))
        #expect(gone == reference["user-7"]?.values.reduce(0) { $0 + $1.count } ?? 0)
        #expect(try await store.export(identity: "user-7").isEmpty)
        #expect(try await store.export(identity: "user-7 ").count == reference["user-7 "]?.values.reduce(0) { $0 + $1.count } ?? 0)
    }
}
