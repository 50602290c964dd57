public import Foundation
// The outbound queue on disk (SQLite through GRDB, as the history): a hit is written before the event that
// made it is acknowledged, kept until its receiver answers, and moved to the dead letters — never dropped —
// when it cannot be delivered. Bounded in bytes: past the bound, `enqueue` refuses (serve answers 503).
internal import GRDB
public import RuleKitCore

/// A hit in the queue, with its delivery's state.
public struct QueuedPostback: Sendable, Equatable {
    /// Its place in the queue (the order of sending, per receiver).
    public var seq: Int64
    /// The hit.
    public var postback: Postback
    /// When it was queued, in seconds since 1970.
    public var queuedAt: Double
    /// Sends tried.
    public var attempts: Int
    /// Not before this time (seconds since 1970).
    public var nextAt: Double
    /// The last failure.
    public var lastError: String?

    /// What a dead letter is shown as (`rulekit postbacks dead`, serve's `GET /v1/postbacks/dead`): everything
    /// but the body, which may hold personal data.
    public var summary: ValueObject {
        [
            "key": .string(postback.key), "kind": .string(postback.kind.rawValue), "receiver": .string(postback.receiver),
            "method": .string(postback.method), "url": .string(postback.url), "attempts": .int(Int64(attempts)),
            "lastError": lastError.map(Value.string) ?? .null, "queuedAt": .double(queuedAt),
        ]
    }
}

/// The queue of one folder.
public final class PostbackQueue: Sendable {
    let db: DatabasePool
    /// A connection of its own for checkpoints: on the writer's, a checkpoint's fsyncs held every batch's
    /// commit waiting.
    let checkpointer: DatabaseQueue
    /// The file.
    public let path: String
    /// Most bytes the file may hold before `enqueue` refuses.
    public let maxBytes: Int
    /// The queue's one owner (the lines in memory hold only if no other process writes the file).
    private let lock: FileLock
    /// The lines in memory (`PostbackLines`): delivery reads no row in the steady state.
    let lines = Locked(PostbackLines())
    /// Hits a line mirrors in memory before it reads the rest from the file.
    let window: Int
    /// Held through a flush of delivered hits (`flush`).
    let flushing = Locked(())
    /// Batches waiting for the next group commit, and whether one is running.
    private let pending = Locked<(waiting: [PendingBatch], committing: Bool)>(([], false))
    /// Told after hits are queued (a delivery started steps their lines). An object, not a closure: a
    /// closure read out of a generic lock comes back wrapped in one more thunk each time.
    let listener = Locked<PostbackDelivery?>(nil)
    /// Delivered hits removed from the file in one transaction.
    static let deleteGroup = 128

    /// The queue is full: nothing of the call was queued.
    public struct Full: Error, CustomStringConvertible {
        /// What the caller says.
        public var description: String { "the postback queue is full" }
    }

    /// Opens (or makes) `directory/postbacks.sqlite`.
    ///
    /// - Parameters:
    ///   - directory: the folder.
    ///   - maxBytes: the bound on the file (default 256 MiB).
    /// - Throws: a `DiagnosticError` naming the file when it cannot be used.
    public convenience init(directory: String, maxBytes: Int = 256 << 20) throws(DiagnosticError) {
        try self.init(directory: directory, maxBytes: maxBytes, window: 4_096)
    }

    init(directory: String, maxBytes: Int, window: Int) throws(DiagnosticError) {
        path = PathText.join(directory, "postbacks.sqlite")
        self.maxBytes = maxBytes
        self.window = max(1, window)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        switch FileLock.take(
            path + ".lock", code: "postbacks.busy",
            busy: "the postback queue '\(path)' is in use by another process (a server or a run): one process sends a queue at a time")
        {
        case .success(let l): lock = l
        case .failure(let e): throw e
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var config = Configuration()
            // The checkpoint's connection and the writer can meet on SQLite's locks for a moment: wait, do
            // not fail (GRDB's default is an immediate SQLITE_BUSY, which a run took for an undelivered queue).
            config.busyMode = .timeout(10)
            // No checkpoint in a commit: it would fsync on the thread answering a batch. Delivery's loop
            // checkpoints (`checkpoint()`), off the batches' path.
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            }
            db = try DatabasePool(path: path, configuration: config)
            checkpointer = try DatabaseQueue(path: path, configuration: config)
            try db.write { db in
                // AUTOINCREMENT: a `seq` is never used twice, so a line's refill after `lastLoaded` misses nothing.
                for (table, key) in [("postbacks", "INTEGER PRIMARY KEY AUTOINCREMENT"), ("postback_dead", "INTEGER PRIMARY KEY")] {
                    try db.execute(
                        sql: """
                            CREATE TABLE IF NOT EXISTS \(table) (
                                seq \(key), key TEXT NOT NULL, kind TEXT NOT NULL, url TEXT NOT NULL, body TEXT,
                                content_type TEXT NOT NULL, timeout REAL NOT NULL, identity TEXT NOT NULL, receiver TEXT NOT NULL,
                                queued_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_at REAL NOT NULL DEFAULT 0,
                                last_error TEXT, dead_at REAL)
                            """)
                }
                try db.execute(sql: "CREATE UNIQUE INDEX IF NOT EXISTS postbacks_key ON postbacks (key)")
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS postbacks_receiver ON postbacks (receiver, seq)")
            }
            let known = try db.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT receiver FROM postbacks") }
            lines.withLock { l in
                for name in known { l.lines[name] = PostbackLine(complete: false) }
            }
        } catch {
            throw DiagnosticError(.error("postbacks.unreadable", "the postback queue '\(path)' cannot be used: \(error)"))
        }
    }

    /// Queues `hits` in one transaction, each key once (a hit already queued under its key is passed over).
    ///
    /// - Returns: how many were queued.
    /// - Throws: `Full` past the bound (nothing queued); the database's error.
    @discardableResult
    public func enqueue(_ hits: [Postback], now: Double = Date().timeIntervalSince1970) throws -> Int {
        guard !hits.isEmpty else { return 0 }
        return queued(
            try db.write { db in
                try checkBound(db)
                return mirror(try insert(hits, now: now, in: db)).count
            })
    }

    /// `enqueue` for async callers, with group commit: the task waits for the commit without holding its
    /// thread, and the batches that arrive while one commit runs share the next (a commit a batch cost serve
    /// a third of its throughput with one postback in every batch).
    ///
    /// - Returns: how many were queued.
    /// - Throws: `Full` past the bound (nothing of the group queued); the database's error.
    @discardableResult
    public func enqueue(_ hits: [Postback], now: Double = Date().timeIntervalSince1970) async throws -> Int {
        guard !hits.isEmpty else { return 0 }
        let n = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Int, any Error>) in
            let lead = pending.withLock { p in
                p.waiting.append(PendingBatch(hits: hits, now: now, done: c))
                if p.committing { return false }
                p.committing = true
                return true
            }
            if lead { commitPending() }
        }
        return queued(n)
    }

    /// Commits every batch waiting in one transaction, then the next group if more arrived meanwhile.
    private func commitPending() {
        let group = pending.withLock { p in
            defer { p.waiting = [] }
            return p.waiting
        }
        let write: @Sendable (Database) throws -> [Int] = { db in
            try self.checkBound(db)
            let added = try group.map { try self.insert($0.hits, now: $0.now, in: db) }
            _ = self.mirror(added.flatMap { $0 })
            return added.map(\.count)
        }
        let done: @Sendable (Database, Result<[Int], any Error>) -> Void = { [self] _, result in
            switch result {
            case .success(let counts): for (b, n) in zip(group, counts) { b.done.resume(returning: n) }
            case .failure(let error): for b in group { b.done.resume(throwing: error) }
            }
            let more = pending.withLock { p in
                if p.waiting.isEmpty { p.committing = false }
                return p.committing
            }
            if more { commitPending() }
        }
        db.asyncWrite(write, completion: done)
    }

    /// Refuses (`Full`) once the file holds `maxBytes`: checked before any row of a commit is written.
    private func checkBound(_ db: Database) throws {
        // A cached statement: it runs in every commit, and parsing it again each time showed in serve's profile.
        let statement = try db.cachedStatement(sql: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
        let bytes = try Int.fetchOne(statement) ?? 0
        guard bytes < maxBytes else { throw Full() }
    }

    /// Writes `hits` (a key queued already is passed over); the hits written.
    private func insert(_ hits: [Postback], now: Double, in db: Database) throws -> [QueuedPostback] {
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO postbacks (key, kind, url, body, content_type, timeout, identity, receiver, queued_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        var added: [QueuedPostback] = []
        for h in hits {
            try statement.execute(
                arguments: [h.key, h.kind.rawValue, h.url, h.body, h.contentType, h.timeout, h.identity, h.receiver, now])
            if db.changesCount == 1 {
                added.append(QueuedPostback(seq: db.lastInsertedRowID, postback: h, queuedAt: now, attempts: 0, nextAt: 0))
            }
        }
        return added
    }

    /// Puts hits written by this transaction on their lines in memory (once every row of it is written).
    private func mirror(_ added: [QueuedPostback]) -> [QueuedPostback] {
        let window = self.window
        lines.withLock { l in
            for hit in added { l.lines[hit.postback.receiver, default: PostbackLine()].append(hit, window: window) }
        }
        return added
    }

    /// Tells a started delivery that `n` hits were queued; `n`.
    private func queued(_ n: Int) -> Int {
        if n > 0 { listener.withLock { $0 }?.poke() }
        return n
    }

    /// `seq` failed and is tried again at `at`.
    public func retry(_ hit: QueuedPostback, error: String, at: Double) throws {
        try db.write { db in
            try db.execute(
                sql: "UPDATE postbacks SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE seq = ?",
                arguments: [at, error, hit.seq])
            // A row purged meanwhile (an erasure, an opt-out) is not put back.
            guard db.changesCount == 1 else { return }
            var again = hit
            again.attempts += 1
            again.nextAt = at
            again.lastError = error
            lines.withLock { l in l.lines[hit.postback.receiver]?.putBack(again) }
        }
    }

    /// `seq` cannot be delivered: it moves to the dead letters with its last error.
    public func kill(_ seq: Int64, error: String, now: Double = Date().timeIntervalSince1970) throws {
        try db.write { db in
            try db.execute(
                sql: """
                    INSERT INTO postback_dead (key, kind, url, body, content_type, timeout, identity, receiver, queued_at, attempts, next_at,
                        last_error, dead_at)
                    SELECT key, kind, url, body, content_type, timeout, identity, receiver, queued_at, attempts + 1, next_at, ?, ?
                    FROM postbacks WHERE seq = ?
                    """, arguments: [error, now, seq])
            try db.execute(sql: "DELETE FROM postbacks WHERE seq = ?", arguments: [seq])
        }
    }

    /// When the oldest hit waiting was queued (seconds since 1970; nil: none waits).
    public func oldestQueuedAt() throws -> Double? {
        try flush()
        return try db.read { db in try Double.fetchOne(db, sql: "SELECT min(queued_at) FROM postbacks") }
    }

    /// Dead letters kept.
    public func deadCount() throws -> Int { try db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM postback_dead") ?? 0 } }

    /// Hits waiting.
    public func depth() throws -> Int {
        try flush()
        return try db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM postbacks") ?? 0 }
    }

    /// Every hit waiting, in order.
    public func waiting() throws -> [QueuedPostback] {
        try flush()
        return try db.read { db in try Row.fetchAll(db, sql: "SELECT * FROM postbacks ORDER BY seq").map(Self.item) }
    }

    /// The dead letters, in the order they died (the first to die first).
    public func deadLetters() throws -> [QueuedPostback] {
        try db.read { db in try Row.fetchAll(db, sql: "SELECT * FROM postback_dead ORDER BY seq").map(Self.item) }
    }

    /// Puts every dead letter back in the queue (attempts from 0); how many.
    @discardableResult
    public func retryDeadLetters() throws -> Int {
        try db.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO postbacks (key, kind, url, body, content_type, timeout, identity, receiver, queued_at)
                    SELECT key, kind, url, body, content_type, timeout, identity, receiver, queued_at FROM postback_dead ORDER BY seq
                    """)
            let n = db.changesCount
            try db.execute(sql: "DELETE FROM postback_dead")
            let back = try String.fetchAll(db, sql: "SELECT DISTINCT receiver FROM postbacks")
            invalidate(adding: back)

            return n
        }
    }

    /// Removes every dead letter; how many.
    @discardableResult
    public func purgeDeadLetters() throws -> Int {
        try db.write { db in
            try db.execute(sql: "DELETE FROM postback_dead")
            return db.changesCount
        }
    }

    /// Removes every hit, queued or dead, made for `identity` (a person's erasure); how many.
    @discardableResult
    public func purge(identity: String) throws -> Int {
        try db.write { db in
            try db.execute(sql: "DELETE FROM postbacks WHERE identity = ?", arguments: [identity])
            var n = db.changesCount
            try db.execute(sql: "DELETE FROM postback_dead WHERE identity = ?", arguments: [identity])
            n += db.changesCount
            invalidate(adding: [])
            return n
        }
    }

    /// Removes every queued hit (privacy opted out); how many.
    @discardableResult
    public func clear() throws -> Int {
        try db.write { db in
            try db.execute(sql: "DELETE FROM postbacks")
            invalidate(adding: [])
            return db.changesCount
        }
    }

    /// Makes every line read the file again (after a change of many rows, under the writer).
    private func invalidate(adding receivers: [String]) {
        lines.withLock { l in
            for name in l.lines.keys { l.lines[name]?.invalidate() }
            for name in receivers where l.lines[name] == nil { l.lines[name] = PostbackLine(complete: false) }
        }
    }

    static func item(_ row: Row) -> QueuedPostback {
        let kind: String = row["kind"]
        return QueuedPostback(
            seq: row["seq"],
            postback: Postback(
                key: row["key"], kind: Postback.Kind(rawValue: kind) ?? .pb, url: row["url"], body: row["body"],
                contentType: row["content_type"],
                timeout: row["timeout"], identity: row["identity"]),
            queuedAt: row["queued_at"], attempts: row["attempts"], nextAt: row["next_at"], lastError: row["last_error"])
    }
}

/// A batch's hits waiting for a group commit.
struct PendingBatch: Sendable {
    var hits: [Postback]
    var now: Double
    var done: CheckedContinuation<Int, any Error>
}
