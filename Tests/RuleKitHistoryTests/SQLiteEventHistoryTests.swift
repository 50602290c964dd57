import Foundation
import RuleKitCore
import RuleKitRules
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// Event history in a real SQLite file, through the hub and the rules extension.
@Suite struct SQLiteEventHistoryTests {
    static func directory() -> String {
        Scratch.url("rk-history-\(UUID())").path
    }

    @Test func recordsPersistAcrossReopeningAndAnswerWindows() throws {
        let dir = Self.directory()
        let now = Date()
        do {
            let store = try SQLiteEventHistory.open(directory: dir).get()
            #expect(store.record(hash: 42, timestamp: now.addingTimeInterval(-60)))
            #expect(store.record(hash: 42, timestamp: now))
            #expect(store.record(hash: 7, timestamp: now))
        }
        let again = try SQLiteEventHistory.open(directory: dir).get()
        #expect(again.query(hash: 42, from: nil, to: nil, after: nil).count == 2)
        #expect(again.query(hash: 42, from: now.addingTimeInterval(-10), to: nil, after: nil).count == 1)
        let r = again.query(hash: 42, from: nil, to: nil, after: nil)
        #expect(abs((r.newest ?? .distantPast).timeIntervalSince(now)) < 0.01)
        #expect(again.query(hash: 99, from: nil, to: nil, after: nil).count == 0)
    }

    /// The index in memory is the one view of the file: a second open while the first is alive, in this
    /// process or another, is refused (it would not see the first one's writes); once the first is gone,
    /// the file opens again.
    @Test func aHistoryFileIsKeptByOneOpenAtATime() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let first = try SQLiteEventHistory.open(directory: dir).get()
            guard case .failure(let e) = SQLiteEventHistory.open(directory: dir) else {
                Issue.record("a second open of a history in use succeeded")
                return
            }
            #expect(e.diagnostics[0].code == "history.busy")
            #expect(e.diagnostics[0].message.contains("history.sqlite"))
            #expect(first.record(hash: 1, timestamp: Date()))
        }
        let again = try SQLiteEventHistory.open(directory: dir).get()
        #expect(again.count == 1)
    }

    /// A key written again after a reopen (a client retrying a batch across a restart) is kept once: the
    /// keys are read back with the records. Retention deletes from the file and the index alike.
    @Test func keysAndRetentionHoldAcrossReopening() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let records = (0..<10).map { HistoryRecord(identity: $0 % 2 == 0 ? "ada" : "bob", hash: 3, ms: Double($0), key: "k\($0)") }
        do {
            let store = try SQLiteEventHistory.open(directory: dir).get()
            try await store.commit(records)
        }
        do {
            let store = try SQLiteEventHistory.open(directory: dir, retention: 4).get()
            #expect(store.count == 10)
            try await store.commit(records + [HistoryRecord(identity: "ada", hash: 3, ms: 10, key: "k10")])
            #expect(store.count == 11)
            store.prune(keeping: 4)
            // The newest four: 7, 8, 9, 10.
            let slices = try await store.prefetch(identities: ["ada", "bob"], hashes: nil, timed: [3], limit: 100)
            #expect(slices.flatMap { $0.times ?? [] }.sorted() == [7, 8, 9, 10])
        }
        let store = try SQLiteEventHistory.open(directory: dir).get()
        let slices = try await store.prefetch(identities: ["ada", "bob"], hashes: nil, timed: [3], limit: 100)
        #expect(slices.flatMap { $0.times ?? [] }.sorted() == [7, 8, 9, 10])
        #expect(
            Set(slices) == [
                HistorySlice(identity: "ada", hash: 3, count: 2, oldest: 8, newest: 10, times: [8, 10]),
                HistorySlice(identity: "bob", hash: 3, count: 2, oldest: 7, newest: 9, times: [7, 9]),
            ])
    }

    /// Checkpoints run off the commits and the log still starts over: under steady writes and reads, the
    /// log file stays near the checkpoint's size instead of growing with every record (a background
    /// checkpoint alone never completes while writes go on).
    @Test func theLogStartsOverUnderSteadyWrites() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteEventHistory.open(directory: dir, retention: nil).get()
        let wal = PathText.join(dir, "history.sqlite-wal")
        let identities = (0..<6000).map { "id-\($0)" }
        let blocks = 65_536 / 500
        // Four writers and a reader at once, as a loaded service has them: the writer is never idle.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for w in 0..<4 {
                group.addTask {
                    var rng = SystemRandomNumberGenerator()
                    for b in stride(from: w, to: blocks, by: 4) {
                        let records = (0..<500).map { i in
                            HistoryRecord(
                                identity: identities[Int.random(in: 0..<identities.count, using: &rng)], hash: 7,
                                ms: Double(b * 500 + i), key: "k\(b)-\(i)")
                        }
                        try await store.commit(records)
                        _ = try await store.prefetch(identities: Array(identities.prefix(50)), hashes: [7], timed: [], limit: 10)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(store.count == blocks * 500)
        #expect(store.checkpointer.done.withLock { $0 } > 0)
        // The file keeps the log's largest size. Measured: 14 MiB alone, 45 MiB in a CI run with the machine
        // loaded besides; 110 MiB when the log never starts over (no checkpoint, or the background pass
        // alone).
        let size = (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(size < 60 << 20, "the log is \(size >> 20) MiB")
    }

    @Test func retentionKeepsTheNewestRecords() throws {
        let store = try SQLiteEventHistory.open(directory: Self.directory(), retention: 500).get()
        for i in 0..<2000 { _ = store.record(hash: UInt32(i % 3), timestamp: Date()) }
        #expect(store.count <= 1500)
        #expect(store.count >= 500)
    }

    @Test func aFileOfTheEarliestLayoutMovesItsRecordsOverOnOpen() async throws {
        let dir = Self.directory()
        do {
            let made = try SQLiteEventHistory.open(directory: dir).get()
            // The first layout: a rowid table, keys only on block writes.
            try made.execute(
                """
                DROP TABLE history_log;
                CREATE TABLE events (hash INTEGER NOT NULL, ts REAL NOT NULL, identity TEXT NOT NULL DEFAULT '', key TEXT);
                INSERT INTO events (hash, ts, identity, key) VALUES (7, 1000, 'ada', 'e1/0'), (7, 2000, 'ada', 'e2/0'),
                    (7, 3000, 'ada', NULL), (7, 4000, 'ada', NULL), (9, 5000, 'bob', 'e3/0'), (9, 6000, 'bob', 'e3/0');
                """)
        }
        do {
            let store = try SQLiteEventHistory.open(directory: dir).get()
            #expect(store.count == 5)
            let slices = try await store.prefetch(identities: ["ada", "bob"], hashes: nil, timed: [7], limit: 10)
            let ada = slices.first { $0.identity == "ada" && $0.hash == 7 }
            #expect(ada?.count == 4)
            #expect(ada?.times == [1000, 2000, 3000, 4000])
            #expect(slices.first { $0.identity == "bob" } == HistorySlice(identity: "bob", hash: 9, count: 1, oldest: 5000, newest: 5000))
            // Keys moved over are kept once; a retried write of one of them adds nothing.
            try await store.commit([HistoryRecord(identity: "ada", hash: 7, ms: 9000, key: "e1/0")])
            #expect(store.count == 5)
        }
        // Retention goes on in the order the records were made.
        let pruned = try SQLiteEventHistory.open(directory: dir, retention: 2).get()
        pruned.prune(keeping: 2)
        let left = try await pruned.prefetch(identities: ["ada", "bob"], hashes: nil, timed: [7, 9], limit: 10)
        #expect(left.flatMap { $0.times ?? [] }.sorted() == [4000, 5000])
    }

    /// The layout before the log: one table clustered by identity and key, numbered by `seq`.
    @Test func aFileClusteredByIdentityMovesItsRecordsOverInTheirOrder() async throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let made = try SQLiteEventHistory.open(directory: dir).get()
            try made.execute(
                """
                DROP TABLE history_log;
                CREATE TABLE history (
                    identity TEXT NOT NULL, key TEXT NOT NULL, hash INTEGER NOT NULL, ts REAL NOT NULL, seq INTEGER NOT NULL,
                    PRIMARY KEY (identity, key)) WITHOUT ROWID;
                CREATE INDEX history_seq ON history (seq);
                INSERT INTO history VALUES ('bob', 'k1', 5, 100, 1), ('ada', 'k2', 5, 200, 2), ('ada', 'k3', 6, 300, 3);
                """)
        }
        let store = try SQLiteEventHistory.open(directory: dir, retention: 2).get()
        #expect(store.count == 3)
        store.prune(keeping: 2)
        let slices = try await store.prefetch(identities: ["ada", "bob"], hashes: nil, timed: [], limit: 10)
        #expect(
            Set(slices) == [
                HistorySlice(identity: "ada", hash: 5, count: 1, oldest: 200, newest: 200),
                HistorySlice(identity: "ada", hash: 6, count: 1, oldest: 300, newest: 300),
            ])
        try await store.commit([HistoryRecord(identity: "ada", hash: 6, ms: 400, key: "k3")])
        #expect(store.count == 2)
    }

    @Test func aCorruptFileIsReportedAndHistoryAnswersTheErrorValue() throws {
        let dir = Self.directory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: dir + "/history.sqlite"))
        guard case .failure(let e) = SQLiteEventHistory.open(directory: dir) else {
            Issue.record("a corrupt file opened")
            return
        }
        #expect(e.diagnostics[0].message.contains("history.sqlite"))
        let failing = FailingEventHistory(reason: e.description)
        #expect(failing.query(hash: 1, from: nil, to: nil, after: nil).count == -1)
    }
}
