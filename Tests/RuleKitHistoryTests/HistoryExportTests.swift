import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// Every store answers what it keeps of one identity, and its figures, from the same records.
@Suite struct HistoryExportTests {
    static let records = [
        HistoryRecord(identity: "ada", hash: 7, ms: 3_000, key: "e1/0"),
        HistoryRecord(identity: "ada", hash: 9, ms: 1_000, key: "e2/0"),
        HistoryRecord(identity: "bob", hash: 7, ms: 2_000, key: "e3/0"),
    ]

    func check(_ store: some HistoryBackend & HistoryExporting, keys: Bool) async throws {
        try await store.commit(Self.records)
        let ada = try await store.export(identity: "ada")
        #expect(ada.map(\.ms) == [1_000, 3_000], "oldest first")
        #expect(ada.map(\.hash) == [9, 7])
        if keys { #expect(ada.map(\.key) == ["e2/0", "e1/0"]) }
        #expect(try await store.export(identity: "nobody").isEmpty)
        let stats = try await store.stats()
        #expect(stats == HistoryStats(records: 3, identities: 2, oldest: 1_000, newest: 3_000))
    }

    @Test func memory() async throws {
        try await check(InMemoryEventHistory(keyed: true), keys: false)
    }

    @Test func sqlite() async throws {
        let dir = Scratch.url("rk-export-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventHistory.open(directory: dir).get()
        try await check(store, keys: true)
    }
}
