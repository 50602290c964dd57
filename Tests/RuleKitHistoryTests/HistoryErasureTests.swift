import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// A person's history erased on every store: what the erasure covers goes, its tombstone drops the same
/// records sent again (a retried batch, a spool replayed, a journal written late), and what it does not
/// cover — another identity, another mask, a later record — stays.
@Suite(.serialized) struct HistoryErasureTests {
    static let now = (Date().timeIntervalSince1970 * 1000).rounded()
    static let records = [
        HistoryRecord(identity: "ada", hash: 7, ms: 1_000, key: "a1/0"),
        HistoryRecord(identity: "ada", hash: 9, ms: 2_000, key: "a2/0"),
        HistoryRecord(identity: "ada", hash: 7, ms: 3_000, key: "a3/0"),
        HistoryRecord(identity: "bob", hash: 7, ms: 1_500, key: "b1/0"),
    ]
    static var ada: [HistoryRecord] { records.filter { $0.identity == "ada" } }

    func check(_ store: some HistoryBackend & HistoryExporting) async throws {
        try await store.commit(Self.records)
        // A mask and a window: ada's records of hash 7 from 2,000 on.
        #expect(try await store.erase(HistoryErasure(identity: "ada", hashes: [7], from: 2_000, at: Self.now)) == 1)
        #expect(try await store.export(identity: "ada").map(\.ms) == [1_000, 2_000])
        // The whole identity.
        #expect(try await store.erase(HistoryErasure(identity: "ada", at: Self.now)) == 2)
        #expect(try await store.export(identity: "ada").isEmpty)
        #expect(try await store.export(identity: "bob").count == 1)
        // The same records sent again (new keys, as a spool replayed into a store that forgot them): dropped.
        try await store.commit(Self.ada.map { HistoryRecord(identity: $0.identity, hash: $0.hash, ms: $0.ms, key: $0.key + "x") })
        #expect(try await store.export(identity: "ada").isEmpty)
        // A record after the erasure is the person's new history.
        try await store.commit([HistoryRecord(identity: "ada", hash: 7, ms: Self.now + 1, key: "later/0")])
        #expect(try await store.export(identity: "ada").map(\.ms) == [Self.now + 1])
        // An identity it never knew: 0, the same answer every time.
        #expect(try await store.erase(HistoryErasure(identity: "nobody", at: Self.now)) == 0)
        #expect(try await store.erase(HistoryErasure(identity: "nobody", at: Self.now)) == 0)
        // The summary a block reads agrees.
        let slices = try await store.prefetch(identities: ["ada", "bob"], hashes: nil, timed: [], limit: 10)
        #expect(slices.map(\.count).reduce(0, +) == 2)
    }

    @Test func aTombstoneNamesItsIdentityBySHA256() {
        // FIPS 180-2's example, and PostgreSQL's `encode(sha256(…), 'hex')` spelling (lower-case hex).
        #expect(HistoryErasure.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(HistoryErasure.digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// A tombstone past its lifetime (90 days) is dropped when the file is opened again; a younger one stays.
    @Test func sqliteDropsTombstonesPastTheirLifetime() async throws {
        let dir = Scratch.url("rk-erase-age-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let now = Date().timeIntervalSince1970 * 1000
        let old = now - HistoryErasure.tombstoneLifetime - 86_400_000
        do {
            let store = try SQLiteEventHistory.open(directory: dir).get()
            #expect(try await store.erase(HistoryErasure(identity: "old", at: old)) == 0)
            #expect(try await store.erase(HistoryErasure(identity: "young", at: now)) == 0)
        }
        let store = try SQLiteEventHistory.open(directory: dir).get()
        try await store.commit([
            HistoryRecord(identity: "old", hash: 1, ms: old - 1, key: "o/0"),
            HistoryRecord(identity: "young", hash: 1, ms: now - 1, key: "y/0"),
        ])
        #expect(try await store.export(identity: "old").count == 1, "the old tombstone is gone")
        #expect(try await store.export(identity: "young").isEmpty, "the young one still drops what it covers")
    }

    @Test func memory() async throws {
        try await check(InMemoryEventHistory(keyed: true))
    }

    @Test func sqliteKeepsItsTombstonesAcrossARestartAndDropsJournaledRecords() async throws {
        let dir = Scratch.url("rk-erase-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let store = try SQLiteEventHistory.open(directory: dir).get()
            try await check(store)
            // A record made on a hub before the erasure, still in the journal when it comes: never written.
            let cause = UUID()
            HistoryIdentity.$current.withValue("cy") {
                _ = store.index.record(hash: 5, timestamp: Date(timeIntervalSince1970: 4), cause: cause)
            }
            #expect(try await store.erase(HistoryErasure(identity: "cy", at: Self.now)) == 0)
            try await store.commit(store.index.takePending())
            #expect(try await store.export(identity: "cy").isEmpty)
        }
        // Reopened: the tombstones still drop what they cover.
        let again = try SQLiteEventHistory.open(directory: dir).get()
        #expect(try await again.export(identity: "ada").map(\.ms) == [Self.now + 1])
        try await again.commit([HistoryRecord(identity: "ada", hash: 9, ms: 2_000, key: "again/0")])
        #expect(try await again.export(identity: "ada").map(\.ms) == [Self.now + 1])
    }

    /// SQLite erases a person's rows by their `seq` (kept in memory, `RowsByIdentity`), not by scanning the
    /// log: against the plain scan (`DELETE … WHERE identity = ?`, the reference) on a copy of the same file,
    /// through writes, retention's pruning, a reopen and erasures of every shape, the same rows go.
    @Test func sqliteErasesByRowAsAScanWould() async throws {
        let dir = Scratch.url("rk-erase-rows-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SystemRandomNumberGenerator()
        func batch(_ n: Int, from start: Int) -> [HistoryRecord] {
            (0..<n).map { i in
                HistoryRecord(
                    identity: "p\(Int.random(in: 0..<20, using: &rng))", hash: UInt32.random(in: 1...3, using: &rng),
                    ms: Double(start + i), key: "k\(start + i)/0")
            }
        }
        let erasures = [
            HistoryErasure(identity: "p1", at: 1e9), HistoryErasure(identity: "p2", hashes: [2], at: 1e9),
            HistoryErasure(identity: "p3", from: 3_000, to: 3_600, at: 1e9),
            HistoryErasure(identity: "p4", hashes: [1, 3], to: 3_200, at: 1e9),
        ]
        var written = 0
        do {
            let store = try SQLiteEventHistory.open(directory: dir, retention: 2_000).get()
            for _ in 0..<5 {
                try await store.commit(batch(700, from: written))
                written += 700
            }
        }
        // Reopened: the rows are read back with the records.
        let store = try SQLiteEventHistory.open(directory: dir, retention: 2_000).get()
        try await store.commit(batch(300, from: written))
        let reference = try SQLiteEventHistory.open(directory: dir + "-ref", retention: nil).get()
        defer { try? FileManager.default.removeItem(atPath: dir + "-ref") }
        for p in 0..<20 { try await reference.commit(try await store.export(identity: "p\(p)")) }
        #expect(reference.count == store.count && store.count == 2_000 + 300, "retention pruned the first writes")
        #expect(store.rows.count == store.count, "every row of the file is known")
        for e in erasures {
            let gone = try await store.erase(e)
            var sql = "DELETE FROM history_log WHERE identity = '\(e.identity)' AND ts <= \(e.at)"
            if let f = e.from { sql += " AND ts >= \(f)" }
            if let t = e.to { sql += " AND ts <= \(t)" }
            if let h = e.hashes { sql += " AND hash IN (\(h.map(String.init).joined(separator: ",")))" }
            let before = try await reference.export(identity: e.identity).count
            try reference.execute(sql)
            let after = try await reference.export(identity: e.identity).count
            #expect(gone == before - after, "\(e)")
            #expect(try await store.export(identity: e.identity) == reference.export(identity: e.identity), "\(e)")
        }
        #expect(store.rows.count == store.count)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"] != nil, "set RULEKIT_TEST_POSTGRES (.ci/run does)"))
    func postgreSQL() async throws {
        let url = try #require(URL(string: ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"] ?? ""))
        let store = try PostgresEventHistory(url: url)
        let client = Task { await store.run() }
        defer { client.cancel() }
        try await store.ready()
        // Identities of this run only: the database is shared with other tests.
        let run = UUID().uuidString
        func mine(_ r: HistoryRecord) -> HistoryRecord {
            HistoryRecord(identity: r.identity + run, hash: r.hash, ms: r.ms, key: r.key + run)
        }
        try await store.commit(Self.records.map(mine))
        #expect(try await store.erase(HistoryErasure(identity: "ada" + run, hashes: [7], from: 2_000, at: Self.now)) == 1)
        #expect(try await store.export(identity: "ada" + run).map(\.ms) == [1_000, 2_000])
        #expect(try await store.erase(HistoryErasure(identity: "ada" + run, at: Self.now)) == 2)
        try await store.commit(
            Self.ada.map { HistoryRecord(identity: $0.identity + run, hash: $0.hash, ms: $0.ms, key: $0.key + "again" + run) })
        #expect(try await store.export(identity: "ada" + run).isEmpty)
        #expect(try await store.export(identity: "bob" + run).count == 1)
        let slices = try await store.prefetch(identities: ["ada" + run], hashes: nil, timed: [], limit: 10)
        #expect(slices.isEmpty, "the summary forgot the erased records")
        #expect(try await store.erase(HistoryErasure(identity: "nobody" + run, at: Self.now)) == 0)
    }
}
