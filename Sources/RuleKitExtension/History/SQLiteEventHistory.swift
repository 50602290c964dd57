public import Foundation
internal import GRDB
public import RuleKitCore
public import RuleKitHub

/// Event history in a SQLite database file (through GRDB): events recorded by the hash of their masked
/// data, as the reference records them, searched by hash and time window.
///
/// Why GRDB: a well-kept Swift layer over the system SQLite that gives WAL mode, a connection pool that is
/// safe to share across threads, typed errors and migrations, where hand-written libsqlite3 calls would
/// add a second C folder to the package. WAL with `synchronous=NORMAL`: a committed insert survives the
/// process being killed at any point. A file that cannot be opened or is corrupt is reported by `open`;
/// `FailingEventHistory` then answers the reference's error value (count -1) so the engine goes on.
///
/// It is also a `HistoryBackend` (`rulekit run --data-dir`, `rulekit serve --history sqlite:FILE`): a
/// block's history read in one query and its records written in one transaction, each key once (the
/// table's primary key is identity and key).
public final class SQLiteEventHistory: EventHistoryStore, HistoryBackend {
    let pool: DatabasePool
    let checkpointer: Checkpointer
    /// Most records kept (oldest pruned first), or nil for no limit.
    public let retention: Int?
    private let inserts = Locked(0)
    /// The number of the last record made.
    private let seq: Locked<Int64>

    /// Opens (or creates) the history in `directory/file`.
    public static func open(
        directory: String, file: String = "history.sqlite", retention: Int? = 1_000_000
    ) -> Result<SQLiteEventHistory, DiagnosticError> {
        let path = PathText.join(directory, file)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            // Not a file position: the folder itself cannot be made (a part of its path is a file, no
            // permission), said in the system's words rather than Foundation's error dump.
            return .failure(
                DiagnosticError(.error("history.unreadable", "cannot use '\(directory)' as a data folder: \(reason(error))")))
        }
        do {
            var config = Configuration()
            // Reads through a memory map: a block's read touches the records of hundreds of identities,
            // which pread page by page spent more time in the kernel than in SQLite. The readers' caches
            // keep SQLite's default size: a reader's cache is emptied at each read after another
            // connection wrote, so a 64 MB cache on every connection cost more than it saved (serve with
            // SQLite history: 25.0k → 27.4k events/s, means of five alternating rounds; a page not cached
            // is read from the map without a system call). The writer's is 16 MB: a block of `run`
            // (1,024 events, each record on the page of its identity) dirties more pages than the
            // default ~500, and SQLite then wrote pages to the log mid-transaction and read them back
            // (`run --data-dir`: 12% less wall time, six alternating pairs; 64 MB gained nothing more,
            // 4 MB lost 3%; serve unchanged, its groups are smaller).
            // No automatic checkpoint: it runs inside the commit that crosses the bound, and every write
            // queued behind that commit waits for it (serve's p99 at half load: 70–75 ms, 9.6 ms without).
            // `Checkpointer` copies the log back on a connection of its own instead.
            config.prepareDatabase { db in
                try db.execute(
                    sql: """
                        PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 1073741824;
                        PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864
                        """)
                if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -16384") }
            }
            let pool = try DatabasePool(path: path, configuration: config)
            try pool.write { db in try migrate(db) }
            // A corrupt file can open; reading it is what fails.
            let last = try pool.read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM history") } ?? 0
            let checkpointer = Checkpointer(try DatabaseQueue(path: path))
            return .success(SQLiteEventHistory(pool: pool, checkpointer: checkpointer, retention: retention, lastSeq: last))
        } catch {
            return .failure(
                DiagnosticError(
                    .error(
                        "history.unreadable",
                        "event history '\(path)' cannot be used: \(reason(error))", at: SourceLocation(file: path, line: 1, column: 1))))
        }
    }

    init(pool: DatabasePool, checkpointer: Checkpointer, retention: Int?, lastSeq: Int64) {
        self.pool = pool
        self.checkpointer = checkpointer
        self.retention = retention
        seq = Locked(lastSeq)
    }

    /// The table, made or brought up to date. Records live in one B-tree clustered by identity and key
    /// (`WITHOUT ROWID`): a block's read finds each identity's records together, with their hashes and
    /// times, and a key is kept once. The earlier layout (a rowid table with an index by identity, hash
    /// and time, and a second, unique one by identity and key) put every record on a random page of two
    /// indexes, and every page a block touched was written again: a third of a run's history time.
    /// `seq` numbers records in the order they were made, for retention (its index only ever grows at
    /// its end).
    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS history (
                    identity TEXT NOT NULL, key TEXT NOT NULL, hash INTEGER NOT NULL, ts REAL NOT NULL, seq INTEGER NOT NULL,
                    PRIMARY KEY (identity, key)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS history_seq ON history (seq);
                """)
        // A history of an earlier version: its records move over (those made an event at a time, with no
        // key, get one from their row), in the order they were made.
        guard try db.tableExists("events") else { return }
        let columns = Set(try db.columns(in: "events").map(\.name))
        let identity = columns.contains("identity") ? "identity" : "''"
        let key = columns.contains("key") ? "coalesce(key, 'row/' || rowid)" : "'row/' || rowid"
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO history (identity, key, hash, ts, seq)
                    SELECT \(identity), \(key), hash, ts, rowid FROM events ORDER BY rowid;
                DROP TABLE events;
                """)
    }

    /// Runs raw SQL in a write transaction (tests make files of earlier layouts with it).
    func execute(_ sql: String) throws {
        try pool.write { db in try db.execute(sql: sql) }
    }

    /// The next record number.
    private func nextSeq(_ n: Int = 1) -> Int64 {
        seq.withLock { s in
            defer { s &+= Int64(n) }
            return s &+ 1
        }
    }

    /// Records one event's hash at `timestamp`, under `HistoryIdentity.current`; false when the write
    /// failed.
    public func record(hash: UInt32, timestamp: Date) -> Bool {
        let identity = HistoryIdentity.current ?? ""
        do {
            let seq = nextSeq()
            try write(records: 1) { db in
                try db.execute(
                    sql: "INSERT INTO history (identity, key, hash, ts, seq) VALUES (?, ?, ?, ?, ?)",
                    arguments: [identity, EventID.next().text, Int64(hash), timestamp.timeIntervalSince1970 * 1000, seq])
            }
            if let retention,
                inserts.withLock({
                    $0 += 1
                    return $0 % 1000 == 0
                })
            {
                prune(keeping: retention)
            }
            return true
        } catch {
            return false
        }
    }

    /// Inserts many records in one transaction (benchmarks, imports), under `HistoryIdentity.current`.
    public func record(_ records: [(UInt32, Date)]) -> Bool {
        let identity = HistoryIdentity.current ?? ""
        do {
            var n = nextSeq(records.count)
            try write(records: records.count) { db in
                let stmt = try db.makeStatement(sql: "INSERT INTO history (identity, key, hash, ts, seq) VALUES (?, ?, ?, ?, ?)")
                for (h, t) in records {
                    try stmt.execute(arguments: [identity, EventID.next().text, Int64(h), t.timeIntervalSince1970 * 1000, n])
                    n &+= 1
                }
            }
            return true
        } catch {
            return false
        }
    }

    /// Runs `body` in a write transaction (with the checkpoint's second pass when due) and counts `records`
    /// toward the next pass.
    private func write(records: Int, _ body: (Database) throws -> Void) throws {
        try pool.writeWithoutTransaction { db in try checkpointer.commit(db, body) }
        checkpointer.wrote(records)
    }

    func prune(keeping n: Int) {
        try? pool.write { db in
            try db.execute(sql: "DELETE FROM history WHERE seq <= (SELECT max(seq) FROM history) - ?", arguments: [n])
        }
    }

    /// Counts the records of `hash` within the window, among those of `HistoryIdentity.current`; the error
    /// value when the read failed.
    public func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult {
        var sql = "SELECT count(*), min(ts), max(ts) FROM history WHERE identity = ? AND hash = ?"
        var args: [any DatabaseValueConvertible] = [HistoryIdentity.current ?? "", Int64(hash)]
        if let from {
            sql += " AND ts >= ?"
            args.append(from.timeIntervalSince1970 * 1000)
        }
        if let to {
            sql += " AND ts <= ?"
            args.append(to.timeIntervalSince1970 * 1000)
        }
        if let after {
            sql += " AND ts >= ?"
            args.append(after.timeIntervalSince1970 * 1000)
        }
        do {
            let row = try pool.read { db in try Row.fetchOne(db, sql: sql, arguments: StatementArguments(args)) }
            guard let row else { return EventHistoryResult(count: 0) }
            let count: Int = row[0]
            let oldest: Double? = row[1]
            let newest: Double? = row[2]
            return EventHistoryResult(
                count: count, oldest: oldest.map { Date(timeIntervalSince1970: $0 / 1000) },
                newest: newest.map { Date(timeIntervalSince1970: $0 / 1000) })
        } catch {
            return .databaseError
        }
    }

    // MARK: HistoryBackend

    /// Per identity and hash among `hashes` (every hash when nil): the count, oldest and newest, and the
    /// newest `limit` times of the `timed` hashes; in one read transaction.
    public func prefetch(identities: [String], hashes: Set<UInt32>?, timed: Set<UInt32>, limit: Int) async throws -> [HistorySlice] {
        guard !identities.isEmpty else { return [] }
        let hashList = hashes.map { $0.sorted().map { Int64($0) } }
        if let hashList, hashList.isEmpty { return [] }
        return try await pool.read { db in
            var out: [HistorySlice] = []
            // One statement for the block's identities (in chunks within SQLite's limit on variables).
            let times = try db.cachedStatement(sql: "SELECT ts FROM history WHERE identity = ? AND hash = ? ORDER BY ts DESC LIMIT ?")
            var start = 0
            while start < identities.count {
                var chunk = Array(identities[start..<min(identities.count, start + 2_048)])
                start += chunk.count
                // The list is padded to a power of two with its last identity (a value twice in an IN
                // list matches once), so a few statements, each prepared once, serve every block: parsing
                // and planning a new one was 8% of a block's read.
                var width = 8
                while width < chunk.count { width *= 2 }
                chunk += repeatElement(chunk[chunk.count - 1], count: width - chunk.count)
                var sql = "SELECT identity, hash, count(*), min(ts), max(ts) FROM history WHERE identity IN ("
                sql += Array(repeating: "?", count: width).joined(separator: ",") + ")"
                if let hashList { sql += " AND hash IN (\(Array(repeating: "?", count: hashList.count).joined(separator: ",")))" }
                sql += " GROUP BY identity, hash"
                var args: [any DatabaseValueConvertible] = chunk
                if let hashList { args += hashList.map { $0 as any DatabaseValueConvertible } }
                let statement = try db.cachedStatement(sql: sql)
                for row in try Row.fetchAll(statement, arguments: StatementArguments(args)) {
                    let identity: String = row[0]
                    let h: Int64 = row[1]
                    let hash = UInt32(truncatingIfNeeded: h)
                    var slice = HistorySlice(identity: identity, hash: hash, count: row[2], oldest: row[3], newest: row[4])
                    if timed.contains(hash) {
                        slice.times = try Double.fetchAll(times, arguments: [identity, h, limit]).reversed()
                    }
                    out.append(slice)
                }
            }
            return out
        }
    }

    /// Writes `records` in one transaction; a key already kept is passed over.
    public func commit(_ records: [HistoryRecord]) async throws {
        guard !records.isEmpty else { return }
        let first = nextSeq(records.count)
        let checkpointer = self.checkpointer
        try await pool.writeWithoutTransaction { db in
            try checkpointer.commit(db) { db in
                let statement = try db.cachedStatement(
                    sql: "INSERT OR IGNORE INTO history (identity, key, hash, ts, seq) VALUES (?, ?, ?, ?, ?)")
                var n = first
                for r in records {
                    try statement.execute(arguments: [r.identity, r.key.isEmpty ? EventID.next().text : r.key, Int64(r.hash), r.ms, n])
                    n &+= 1
                }
            }
        }
        checkpointer.wrote(records.count)
        if let retention,
            inserts.withLock({ n -> Bool in
                let before = n / 1000
                n += records.count
                return n / 1000 != before
            })
        {
            prune(keeping: retention)
        }
    }

    /// Records kept.
    public var count: Int { (try? pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM history") ?? 0 }) ?? -1 }
}

/// Copies a history's write-ahead log back into its file in two passes, so that no commit pays for the copy
/// and the log still starts over.
///
/// 1. In the background, on a connection of its own: a passive checkpoint waits for no writer and no
///    writer waits for it. Started once some 4,096 records were written since the last (a page and a
///    half each: a log of some 24 MB, so that a page written many times is copied once), and repeated
///    while more than 256 pages were written during the pass before. The log stays under
///    `journal_size_limit`, so starting it over does not cut the file: a cut of 100–270 MB took 20–60 ms
///    inside a commit.
/// 2. On the writer, after the next commit once that pass ended (`finish`): the few pages written during
///    the pass, with no writer able to add more. The checkpoint is then complete, and the next transaction
///    starts the log over. A background pass alone never completes under steady writes, and the log grew
///    without bound (640 MB in six seconds of serve).
///
/// A checkpoint that fails (the file busy or gone) leaves the log as it is; the next one copies it.
final class Checkpointer: Sendable {
    private let queue: DatabaseQueue
    private let state = Locked<(since: Int, running: Bool, finish: Bool)>((0, false, false))
    /// Records written between two checkpoints.
    static let every = 4_096
    /// Most pages the writer's pass is left to copy, as far as the background passes can tell.
    static let left = 256
    /// Checkpoints done (tests).
    let done = Locked(0)

    init(_ queue: DatabaseQueue) {
        self.queue = queue
    }

    /// Counts `records` written; starts a checkpoint when enough were and none is under way.
    func wrote(_ records: Int) {
        let start = state.withLock { s -> Bool in
            s.since += records
            guard s.since >= Self.every, !s.running else { return false }
            s.since = 0
            s.running = true
            return true
        }
        guard start else { return }
        let queue = self.queue
        let state = self.state
        let done = self.done
        // A thread of its own at a lower priority: the copy yields the cores to the hubs (on a global
        // queue's thread, a changed priority would outlive the pass).
        let thread = Thread {
            #if canImport(Glibc)
                // Linux: `who` 0 is the calling thread, not the process.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            #endif
            // Again while the writers added many pages during the pass: the writer's own pass then has
            // little left to copy. A pass counts the log as it stood when the pass began, so the pages
            // added during one show as the growth of the log the next pass sees.
            var copied = false
            var seen: Int?
            for _ in 0..<8 {
                guard let pass = try? queue.writeWithoutTransaction({ db in try db.checkpoint(.passive) }) else { break }
                copied = true
                defer { seen = pass.walFrameCount }
                if let seen, pass.walFrameCount >= seen, pass.walFrameCount - seen <= Self.left { break }
            }
            if copied { done.withLock { $0 += 1 } }
            state.withLock { s in
                s.running = false
                s.finish = copied
            }
        }
        thread.start()
    }

    /// Runs `body` in a transaction on the writer's connection `db`, then the second pass when it is due:
    /// every write of the history goes through here.
    func commit(_ db: Database, _ body: (Database) throws -> Void) throws {
        try db.inTransaction {
            try body(db)
            return .commit
        }
        finish(db)
    }

    /// The second pass, when the first has ended since: `db` is the writer's connection, outside any
    /// transaction.
    private func finish(_ db: Database) {
        let due = state.withLock { s -> Bool in
            defer { s.finish = false }
            return s.finish
        }
        guard due else { return }
        _ = try? db.checkpoint(.passive)
    }
}

/// The history of a database that could not be opened: every query answers the reference's error value
/// and nothing is recorded, so rules with historical conditions evaluate as on a device whose database
/// failed.
public final class FailingEventHistory: EventHistoryStore {
    /// Why the database could not be opened.
    public let reason: String

    /// A history that fails for `reason`.
    public init(reason: String) {
        self.reason = reason
    }

    /// Records nothing: always false.
    public func record(hash: UInt32, timestamp: Date) -> Bool { false }
    /// Always the reference's error value.
    public func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult { .databaseError }
}

/// The shortest true account of a file-system error: the POSIX reason when Foundation wraps one.
func reason(_ error: any Error) -> String {
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? any Error {
        let posix = underlying as NSError
        if posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))).lowercased() }
    }
    if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))).lowercased() }
    return "\(error)"
}
