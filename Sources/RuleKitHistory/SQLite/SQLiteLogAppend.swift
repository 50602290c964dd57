// The log's append, its four values bound by hand: the one place RuleKitHistory calls libsqlite3 itself.
//
// Why: GRDB's `Statement.execute(arguments:)` boxed, converted and bound a record's four values at about
// 8,000 instructions a record (exclusivity checks and existential conversions per value): 30% of what a
// SQLite store cost serve over history in memory, and the append as a whole, SQLite's insert included, half
// (callgrind, serve with the history rules, 20,000 events: 15.4k instructions per event over memory before,
// 11.0k after). `appendPlain` is the same append through GRDB: the reference `SQLiteLogAppendTests`
// compares the two files against.
//
// Invariants this file relies on:
// 1. The statement is prepared on `db.sqliteConnection`, on the writer's queue and inside the caller's
//    transaction, and finalized before `append` returns (`defer`): no GRDB cache or other thread sees it.
// 2. Each text is bound with no destructor (`SQLITE_STATIC`) from inside `withCString`, and the statement
//    is stepped, reset and its bindings cleared inside that closure: SQLite never reads a string's bytes
//    after the closure has returned.
// 3. Texts are passed NUL-terminated with a length of -1, as GRDB binds them: SQLite reads up to the first
//    NUL, so a text holding one is cut there in the file exactly as GRDB's append cut it.
internal import GRDB
internal import GRDBSQLite
internal import RuleKitCore

extension SQLiteEventHistory {
    /// The log's insert, the same for both appends.
    static let appendSQL = "INSERT INTO history_log (identity, key, hash, ts) VALUES (?, ?, ?, ?)"

    /// Appends `records` to the log, in a transaction the caller opened; each one's identity and row.
    static func append(_ records: [HistoryRecord], _ db: Database) throws -> [(identity: String, seq: Int64)] {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed")
        }
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(connection, appendSQL, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw error(connection, prepared) }
        var seqs: [(identity: String, seq: Int64)] = []
        seqs.reserveCapacity(records.count)
        for r in records {
            let done = r.identity.withCString { identity in
                r.key.withCString { key -> Int32 in
                    var rc = sqlite3_bind_text(statement, 1, identity, -1, nil)
                    if rc == SQLITE_OK { rc = sqlite3_bind_text(statement, 2, key, -1, nil) }
                    if rc == SQLITE_OK { rc = sqlite3_bind_int64(statement, 3, Int64(r.hash)) }
                    if rc == SQLITE_OK { rc = sqlite3_bind_double(statement, 4, r.ms) }
                    if rc == SQLITE_OK { rc = sqlite3_step(statement) }
                    sqlite3_reset(statement)
                    sqlite3_clear_bindings(statement)
                    return rc
                }
            }
            guard done == SQLITE_DONE else { throw error(connection, done) }
            seqs.append((r.identity, sqlite3_last_insert_rowid(connection)))
        }
        return seqs
    }

    /// The same append through GRDB's arguments: the plain reference.
    static func appendPlain(_ records: [HistoryRecord], _ db: Database) throws -> [(identity: String, seq: Int64)] {
        let statement = try db.cachedStatement(sql: appendSQL)
        var seqs: [(identity: String, seq: Int64)] = []
        seqs.reserveCapacity(records.count)
        for r in records {
            try statement.execute(arguments: [r.identity, r.key, Int64(r.hash), r.ms])
            seqs.append((r.identity, db.lastInsertedRowID))
        }
        return seqs
    }

    private static func error(_ connection: OpaquePointer, _ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: appendSQL)
    }
}
