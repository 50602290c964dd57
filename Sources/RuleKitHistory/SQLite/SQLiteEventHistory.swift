public import Foundation
internal import GRDB
public import RuleKitCore

/// Event history in a SQLite database file (through GRDB): events recorded by the hash of their masked
/// data, as the reference records them, searched by hash and time window.
///
/// The file is the history's durable home; the questions are answered from an index of it in memory
/// (`InMemoryEventHistory`: per identity and hash, the sorted times), built from the file at open and
/// kept with every write. The file is a log: records are appended in the order they were made, so a
/// write touches the last page or two of one table, however many identities it holds. Why: when the
/// table was clustered by identity (and before that, indexed by it), every record landed on a random
/// page, and SQLite writes each page a transaction touches to its log again: serve with the history rules
/// spent most of its time there (40–45k events/s; 104–150k with the writes left out). The price is
/// memory: some 60 bytes per record kept (the time, the key, the identity's series), bounded by
/// `retention`; and one process at a time (the index would not see another's writes): a second open of
/// the file, from this process or another, is refused with a clear error (`FILE.lock`, `flock`).
///
/// Why GRDB: a well-kept Swift layer over the system SQLite that gives WAL mode, a connection pool that is
/// safe to share across threads, typed errors and migrations, where hand-written libsqlite3 calls would
/// add a second C folder to the package. One statement is bound by hand (`SQLiteLogAppend.swift`, against
/// GRDB's append as its reference): the log's insert, run per record, where GRDB's argument conversion
/// was 30% of the store's cost on the server. WAL with `synchronous=NORMAL`: a committed insert survives
/// the process being killed at any point. A file that cannot be opened or is corrupt is reported by `open`;
/// `FailingEventHistory` then answers the reference's error value (count -1) so the engine goes on.
///
/// It is also a `HistoryBackend` (`rulekit run --data-dir`, `rulekit serve --history sqlite:FILE`): a
/// block's history read from the index and its records written in one transaction, each key once among
/// the records kept (the index remembers the keys of at least the newest `retention` records).
public final class SQLiteEventHistory: EventHistoryStore, IndexedHistoryBackend {
    let pool: DatabasePool
    let checkpointer: Checkpointer
    /// Every record of the file, by identity and hash, with their keys; journaled: records the hubs make
    /// on it wait there until a block's write (`BlockHistory`).
    public let index: InMemoryEventHistory
    /// Most records kept (oldest pruned first), or nil for no limit.
    public let retention: Int?
    /// Each identity's rows in the file: what an erasure deletes, by the primary key.
    let rows: RowsByIdentity
    private let inserts = Locked(0)
    private let lock: FileLock

    /// Opens (or creates) the history in `directory/file`, and reads it into memory.
    ///
    /// - Parameters:
    ///   - directory: the folder (made when missing).
    ///   - file: the file's name.
    ///   - retention: the most records kept (nil: no limit).
    /// - Returns: the history, or why the file cannot be used.
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
        let lock: FileLock
        switch FileLock.take(
            path + ".lock", code: "history.busy",
            busy:
                "event history '\(path)' is in use by another process (or opened twice): a SQLite history is kept by one process at a time; use PostgreSQL to share one"
        )
        {
        case .success(let l): lock = l
        case .failure(let e): return .failure(e)
        }
        do {
            var config = Configuration()
            // Reads through a memory map (opening reads the whole log once). The writer's cache is 16 MB:
            // a migration from an earlier layout moves every record in one transaction.
            // No automatic checkpoint: it runs inside the commit that crosses the bound, and every write
            // queued behind that commit waits for it (serve's p99: `docs/performance.md`).
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
            try pool.write { db in
                try migrate(db)
                try db.execute(sql: "DELETE FROM history_tombstones WHERE at < ?", arguments: [HistoryErasure.tombstoneCutoff])
            }
            // A corrupt file can open; reading it is what fails.
            let index = InMemoryEventHistory(rememberedKeys: max(retention ?? 0, 500_000), keyed: true, journaled: true)
            let rows = RowsByIdentity(keyedAs: index)
            try pool.read { db in
                try loadTombstones(db, into: index)
                try load(db, into: index, rows: rows)
            }
            let checkpointer = Checkpointer(try DatabaseQueue(path: path))
            return .success(
                SQLiteEventHistory(pool: pool, checkpointer: checkpointer, index: index, rows: rows, retention: retention, lock: lock))
        } catch {
            return .failure(
                DiagnosticError(
                    .error(
                        "history.unreadable",
                        "event history '\(path)' cannot be used: \(reason(error))", at: SourceLocation(file: path, line: 1, column: 1))))
        }
    }

    init(pool: DatabasePool, checkpointer: Checkpointer, index: InMemoryEventHistory, rows: RowsByIdentity, retention: Int?, lock: FileLock)
    {
        self.pool = pool
        self.checkpointer = checkpointer
        self.index = index
        self.rows = rows
        self.retention = retention
        self.lock = lock
    }

    /// The table, made or brought up to date: `history_log`, one row per record in the order they were
    /// made (`seq`, the rowid: appends only, and retention deletes from the front). Earlier layouts move
    /// over in that order: the table clustered by identity and key (`history`), and before it the rowid
    /// table `events`, whose records made an event at a time had no key and get one from their row.
    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS history_log (
                    seq INTEGER PRIMARY KEY, identity TEXT NOT NULL, key TEXT NOT NULL, hash INTEGER NOT NULL, ts REAL NOT NULL)
                """)
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS history_tombstones (
                    identity_digest TEXT NOT NULL, at REAL NOT NULL, hashes TEXT, from_ms REAL, to_ms REAL)
                """)
        if try db.tableExists("history") {
            try db.execute(
                sql: """
                    INSERT INTO history_log (identity, key, hash, ts) SELECT identity, key, hash, ts FROM history ORDER BY seq;
                    DROP TABLE history;
                    """)
        }
        guard try db.tableExists("events") else { return }
        let columns = Set(try db.columns(in: "events").map(\.name))
        let identity = columns.contains("identity") ? "identity" : "''"
        let key = columns.contains("key") ? "coalesce(key, 'row/' || rowid)" : "'row/' || rowid"
        // Each identity and key once (the first row of it), as the earlier layouts kept them.
        try db.execute(
            sql: """
                INSERT INTO history_log (identity, key, hash, ts)
                    SELECT i, k, h, t FROM (
                        SELECT \(identity) AS i, \(key) AS k, hash AS h, ts AS t, min(rowid) AS r FROM events GROUP BY i, k)
                    ORDER BY r;
                DROP TABLE events;
                """)
    }

    /// Reads every erasure's tombstone into `index` (records they cover are not kept there, whenever they
    /// come).
    static func loadTombstones(_ db: Database, into index: InMemoryEventHistory) throws {
        for row in try Row.fetchAll(db, sql: "SELECT identity_digest, at, hashes, from_ms, to_ms FROM history_tombstones") {
            let text: String? = row[2]
            let hashes = text.map { Set($0.split(separator: ",").compactMap { UInt32($0) }) }
            index.buryDigest(HistoryErasure(identity: row[0], hashes: hashes, from: row[3], to: row[4], at: row[1]))
        }
    }

    /// Reads every record into `index`, in the order they were made.
    static func load(_ db: Database, into index: InMemoryEventHistory, rows: RowsByIdentity) throws {
        let cursor = try Row.fetchCursor(db, sql: "SELECT identity, key, hash, ts, seq FROM history_log ORDER BY seq")
        var chunk: [HistoryRecord] = []
        var seqs: [(identity: String, seq: Int64)] = []
        chunk.reserveCapacity(4_096)
        seqs.reserveCapacity(4_096)
        while let row = try cursor.next() {
            let h: Int64 = row[2]
            let identity: String = row[0]
            chunk.append(HistoryRecord(identity: identity, hash: UInt32(truncatingIfNeeded: h), ms: row[3], key: row[1]))
            seqs.append((identity, row[4]))
            if chunk.count == 4_096 {
                index.keep(chunk)
                rows.add(seqs)
                chunk.removeAll(keepingCapacity: true)
                seqs.removeAll(keepingCapacity: true)
            }
        }
        index.keep(chunk)
        rows.add(seqs)
    }

    /// Runs raw SQL in a write transaction (tests make files of earlier layouts with it).
    func execute(_ sql: String) throws {
        try pool.write { db in try db.execute(sql: sql) }
    }

    /// Records one event's hash at `timestamp`, under `HistoryIdentity.current`; false when the write
    /// failed.
    public func record(hash: UInt32, timestamp: Date) -> Bool {
        record([(hash, timestamp)])
    }

    /// Inserts many records in one transaction (benchmarks, imports), under `HistoryIdentity.current`.
    ///
    /// - Parameter records: hashes and times.
    /// - Returns: false when the transaction failed (nothing recorded).
    public func record(_ records: [(UInt32, Date)]) -> Bool {
        let identity = HistoryIdentity.current ?? ""
        let made = records.map {
            HistoryRecord(identity: identity, hash: $0.0, ms: $0.1.timeIntervalSince1970 * 1000, key: EventID.next().text)
        }.filter { !index.buried($0) }
        do {
            let (index, rows) = (self.index, self.rows)
            try pool.writeWithoutTransaction { db in
                var seqs: [(identity: String, seq: Int64)] = []
                try checkpointer.commit(db) { db in seqs = try Self.append(made, db) }
                index.keep(made)
                rows.add(seqs)
            }
            wrote(made.count)
            return true
        } catch {
            return false
        }
    }

    /// Counts `n` records written: the log's checkpoint, and retention every thousand.
    private func wrote(_ n: Int) {
        guard n > 0 else { return }
        checkpointer.wrote(n)
        if let retention,
            inserts.withLock({ c -> Bool in
                let before = c / 1000
                c += n
                return c / 1000 != before
            })
        {
            prune(keeping: retention)
        }
    }

    /// Deletes all but the newest `n` records, from the file and then from the index.
    func prune(keeping n: Int) {
        let rows = self.rows
        let gone = try? pool.write { db in
            let gone = try Row.fetchAll(
                db, sql: "DELETE FROM history_log WHERE seq <= (SELECT max(seq) FROM history_log) - ? RETURNING identity, hash, ts, seq",
                arguments: [n]
            ).map { row -> (identity: String, hash: UInt32, ms: Double, seq: Int64) in
                let h: Int64 = row[1]
                return (row[0], UInt32(truncatingIfNeeded: h), row[2], row[3])
            }
            rows.remove(gone.map { ($0.identity, $0.seq) })
            return gone
        }
        if let gone, !gone.isEmpty { index.remove(gone.map { ($0.identity, $0.hash, $0.ms) }) }
    }

    /// Counts the records of `hash` within the window, among those of `HistoryIdentity.current`.
    public func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult {
        index.query(hash: hash, from: from, to: to, after: after)
    }

    // MARK: HistoryBackend

    /// Per identity and hash among `hashes` (every hash when nil): the count, oldest and newest, and the
    /// newest `limit` times of the `timed` hashes; from the index, which holds every record written.
    public func prefetch(identities: [String], hashes: Set<UInt32>?, timed: Set<UInt32>, limit: Int) async throws -> [HistorySlice] {
        try await index.prefetch(identities: identities, hashes: hashes, timed: timed, limit: limit)
    }

    /// Writes `records` in one transaction, passing over a key already written (or twice in `records`);
    /// the index keeps the new ones once the transaction has committed.
    public func commit(_ records: [HistoryRecord]) async throws {
        guard !records.isEmpty else { return }
        let (checkpointer, index, rows) = (self.checkpointer, self.index, self.rows)
        let keyed = records.map {
            $0.key.isEmpty ? HistoryRecord(identity: $0.identity, hash: $0.hash, ms: $0.ms, key: EventID.next().text) : $0
        }
        // On the writer's queue, one write at a time: what the index says to write is still so when the
        // transaction has committed.
        let written = try await pool.writeWithoutTransaction { db -> Int in
            let plan = index.toWrite(keyed)
            guard !plan.isEmpty else { return 0 }
            var seqs: [(identity: String, seq: Int64)] = []
            try checkpointer.commit(db) { db in seqs = try Self.append(plan.map(\.record), db) }
            // Each identity's key made once, for the index and the rows.
            let whos = plan.map { index.who($0.record.identity) }
            index.written(plan, whos: whos)
            rows.add(zip(whos, seqs).map { ($0, $1.seq) })
            return plan.count
        }
        wrote(written)
    }

    /// Records kept.
    public var count: Int { index.count }
}

extension SQLiteEventHistory: HistoryExporting {
    /// The identity's records from the file, oldest first, with their keys.
    public func export(identity: String) async throws -> [HistoryRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT key, hash, ts FROM history_log WHERE identity = ? ORDER BY ts, seq", arguments: [identity])
                .map {
                    let h: Int64 = $0[1]
                    return HistoryRecord(identity: identity, hash: UInt32(truncatingIfNeeded: h), ms: $0[2], key: $0[0])
                }
        }
    }

    /// Erases from the file (the rows and the tombstone in one transaction, on the writer's queue: no write
    /// of the index's journal can come between), then from the index, which drops later records it covers.
    /// The rows are found by their `seq` (`rows`), never by scanning the log.
    public func erase(_ erasure: HistoryErasure) async throws -> Int {
        if let hashes = erasure.hashes, hashes.isEmpty { return 0 }
        let (checkpointer, index, rows) = (self.checkpointer, self.index, self.rows)
        var condition = "identity = ? AND ts <= ?"
        var arguments: StatementArguments = [erasure.identity, erasure.at]
        if let from = erasure.from {
            condition += " AND ts >= ?"
            arguments += [from]
        }
        if let to = erasure.to {
            condition += " AND ts <= ?"
            arguments += [to]
        }
        // Numbers only (the hashes, and below the rows): written into the statement.
        if let hashes = erasure.hashes { condition += " AND hash IN (\(hashes.sorted().map { String($0) }.joined(separator: ",")))" }
        let hashesText = erasure.hashes.map { $0.sorted().map { String($0) }.joined(separator: ",") }
        let (filter, filterArguments) = (condition, arguments)
        return try await pool.writeWithoutTransaction { db -> Int in
            var gone: [(identity: String, seq: Int64)] = []
            let known = rows.of(erasure.identity)
            try checkpointer.commit(db) { db in
                var start = 0
                while start < known.count {
                    let chunk = known[start..<min(start + 10_000, known.count)]
                    start += chunk.count
                    let seqs = chunk.map { String($0) }.joined(separator: ",")
                    let deleted = try Int64.fetchAll(
                        db, sql: "DELETE FROM history_log WHERE seq IN (\(seqs)) AND \(filter) RETURNING seq", arguments: filterArguments)
                    gone += deleted.map { (erasure.identity, $0) }
                }
                try db.execute(
                    sql: "INSERT INTO history_tombstones (identity_digest, at, hashes, from_ms, to_ms) VALUES (?, ?, ?, ?, ?)",
                    arguments: [erasure.identityDigest, erasure.at, hashesText, erasure.from, erasure.to])
            }
            rows.remove(gone)
            index.bury(erasure)
            return gone.count
        }
    }

    /// Records, identities, oldest and newest, from the file.
    public func stats() async throws -> HistoryStats {
        try await pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), count(DISTINCT identity), min(ts), max(ts) FROM history_log")
            return HistoryStats(records: row?[0] ?? 0, identities: row?[1] ?? 0, oldest: row?[2], newest: row?[3])
        }
    }
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
    ///
    /// - Parameter reason: why the database could not be opened.
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

extension BlockHistory {
    /// The history of one process that reads a stream (`rulekit run --data-dir`): `DIR/history.sqlite`,
    /// indexed in this process and written a block at a time, with no spool — a write the file refuses ends
    /// the run rather than forgetting history — and a minute's time limit.
    ///
    /// - Parameter directory: the folder of `history.sqlite` (made when missing).
    /// - Returns: the block history over the file.
    /// - Throws: a `DiagnosticError` naming the folder or file when it cannot hold history.
    public static func localFile(directory: String) throws(DiagnosticError) -> BlockHistory {
        let store: SQLiteEventHistory
        switch SQLiteEventHistory.open(directory: directory) {
        case .success(let s): store = s
        case .failure(let e): throw e
        }
        var options = Options()
        options.spoolCapacity = 0
        options.timeout = .seconds(60)
        return try BlockHistory(backend: store, options: options)
    }
}
