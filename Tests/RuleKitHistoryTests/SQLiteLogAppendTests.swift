import Foundation
import GRDB
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// The log's append bound by hand (`SQLiteEventHistory.append`) against the same append through GRDB's
/// arguments (`appendPlain`, the reference): the same rows, of the same SQLite types and byte lengths (a text
/// cut at a NUL as GRDB cuts it), the same row numbers handed back, and an error, not a crash, when SQLite
/// refuses.
@Suite struct SQLiteLogAppendTests {
    static func records() -> [HistoryRecord] {
        var rng = SystemRandomNumberGenerator()
        let identities = ["", "ada", "ünïcödé ✓", "e\u{301}", "with\u{0}nul", String(repeating: "long-", count: 400), "ECID-0042"]
        var out: [HistoryRecord] = []
        for i in 0..<300 {
            let identity = identities.randomElement(using: &rng) ?? ""
            let key = i % 7 == 0 ? "text key \(i) \u{0}é" : HistoryRecord.key(cause: UUID(), ordinal: i % 3)
            let hash = [UInt32.max, 0, 1, UInt32.random(in: 0...UInt32.max, using: &rng)][i % 4]
            let ms = [1_700_000_000_123.5, -0.25, 0, Double.random(in: 0...2e12, using: &rng)][i % 4]
            out.append(HistoryRecord(identity: identity, hash: hash, ms: ms, key: key))
        }
        return out
    }

    static func rows(_ queue: DatabaseQueue) throws -> [[DatabaseValue]] {
        let sql = """
            SELECT seq, identity, key, hash, ts, typeof(identity), typeof(key), typeof(hash), typeof(ts), length(CAST(identity AS BLOB))
            FROM history_log ORDER BY seq
            """
        let rows: [Row] = try queue.read { db in try Row.fetchAll(db, sql: sql) }
        return rows.map { (row: Row) -> [DatabaseValue] in Array(row.databaseValues) }
    }

    @Test func theHandBoundAppendWritesWhatGRDBWrites() throws {
        let records = Self.records()
        var written: [[(identity: String, seq: Int64)]] = []
        var files: [[[DatabaseValue]]] = []
        for append in [SQLiteEventHistory.append, SQLiteEventHistory.appendPlain] {
            let queue = try DatabaseQueue()
            try queue.write { db in try SQLiteEventHistory.migrate(db) }
            // Two transactions, as two blocks write them.
            var seqs: [(identity: String, seq: Int64)] = []
            for part in [records[..<120], records[120...]] {
                try queue.inTransaction { db in
                    seqs += try append(Array(part), db)
                    return .commit
                }
            }
            written.append(seqs)
            files.append(try Self.rows(queue))
        }
        #expect(files[0].count == records.count)
        #expect(files[0] == files[1], "the same rows, of the same types")
        #expect(written[0].map(\.seq) == written[1].map(\.seq))
        #expect(written[0].map(\.identity) == records.map(\.identity))
        // Texts up to a NUL, as GRDB binds them (length -1).
        func cut(_ s: String) -> String? { String(s.split(separator: "\u{0}", omittingEmptySubsequences: false).first ?? "") }
        #expect(files[0].map { String.fromDatabaseValue($0[1]) } == records.map { cut($0.identity) })
        #expect(files[0].map { String.fromDatabaseValue($0[2]) } == records.map { cut($0.key) })
        #expect(files[0].map { Int64.fromDatabaseValue($0[3]) } == records.map { Int64($0.hash) })
        #expect(files[0].map { Double.fromDatabaseValue($0[4]) } == records.map(\.ms))
    }

    @Test func aRefusedAppendThrowsAndWritesNothing() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try SQLiteEventHistory.migrate(db)
            try db.execute(
                sql: "CREATE TRIGGER refuse BEFORE INSERT ON history_log WHEN NEW.hash = 7 BEGIN SELECT RAISE(ABORT, 'no sevens'); END")
        }
        let records = [HistoryRecord(identity: "a", hash: 1, ms: 1, key: "k1"), HistoryRecord(identity: "a", hash: 7, ms: 2, key: "k2")]
        #expect(throws: DatabaseError.self) {
            try queue.inTransaction { db in
                _ = try SQLiteEventHistory.append(records, db)
                return .commit
            }
        }
        #expect(try Self.rows(queue).isEmpty, "the transaction rolled back")
        do {
            try queue.inTransaction { db in
                _ = try SQLiteEventHistory.append(records, db)
                return .commit
            }
        } catch let error as DatabaseError {
            #expect(error.message == "no sevens")
        }
        // The connection is still usable: the statement was finalized and no binding left behind.
        try queue.inTransaction { db in
            _ = try SQLiteEventHistory.append([records[0]], db)
            return .commit
        }
        #expect(try Self.rows(queue).count == 1)
    }
}
