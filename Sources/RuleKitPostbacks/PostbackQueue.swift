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
}

/// The queue of one folder.
public final class PostbackQueue: Sendable {
    private let db: DatabasePool
    /// The file.
    public let path: String
    /// Most bytes the file may hold before `enqueue` refuses.
    public let maxBytes: Int
    /// The receivers with hits waiting: a head is then found by an index seek per receiver, where a
    /// `GROUP BY receiver` read every hit queued for every head (quadratic in the queue's depth).
    private let receivers = Locked<Set<String>>([])

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
    public init(directory: String, maxBytes: Int = 256 << 20) throws(DiagnosticError) {
        path = PathText.join(directory, "postbacks.sqlite")
        self.maxBytes = maxBytes
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var config = Configuration()
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            db = try DatabasePool(path: path, configuration: config)
            try db.write { db in
                for table in ["postbacks", "postback_dead"] {
                    try db.execute(
                        sql: """
                            CREATE TABLE IF NOT EXISTS \(table) (
                                seq INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, url TEXT NOT NULL, body TEXT,
                                content_type TEXT NOT NULL, timeout REAL NOT NULL, identity TEXT NOT NULL, receiver TEXT NOT NULL,
                                queued_at REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_at REAL NOT NULL DEFAULT 0,
                                last_error TEXT, dead_at REAL)
                            """)
                }
                try db.execute(sql: "CREATE UNIQUE INDEX IF NOT EXISTS postbacks_key ON postbacks (key)")
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS postbacks_receiver ON postbacks (receiver, seq)")
            }
            let known = try db.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT receiver FROM postbacks") }
            receivers.withLock { $0 = Set(known) }
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
        return try db.write { db in
            let pages = try Int.fetchOne(db, sql: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()") ?? 0
            guard pages < maxBytes else { throw Full() }
            let statement = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO postbacks (key, kind, url, body, content_type, timeout, identity, receiver, queued_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            var n = 0
            for h in hits {
                try statement.execute(
                    arguments: [h.key, h.kind.rawValue, h.url, h.body, h.contentType, h.timeout, h.identity, h.receiver, now])
                n += db.changesCount
            }
            receivers.withLock { r in for h in hits { r.insert(h.receiver) } }
            return n
        }
    }

    /// Each receiver's head (its oldest hit), due or not; a receiver whose line is empty is forgotten.
    func heads() throws -> [QueuedPostback] {
        let names = receivers.withLock { $0 }
        guard !names.isEmpty else { return [] }
        let found = try db.read { db in
            try names.map { name in
                (name, try Row.fetchOne(db, sql: "SELECT * FROM postbacks WHERE receiver = ? ORDER BY seq LIMIT 1", arguments: [name]))
            }
        }
        var out: [QueuedPostback] = []
        for (name, row) in found {
            if let row { out.append(Self.item(row)) } else { forget(name) }
        }
        return out.sorted { $0.seq < $1.seq }
    }

    /// Forgets `receiver` unless a hit to it was queued meanwhile (checked under the writer).
    private func forget(_ receiver: String) {
        try? db.write { db in
            if try Int.fetchOne(db, sql: "SELECT 1 FROM postbacks WHERE receiver = ? LIMIT 1", arguments: [receiver]) == nil {
                receivers.withLock { _ = $0.remove(receiver) }
            }
        }
    }

    /// The head of each receiver's line that is due at `now` (one per receiver: sent in order, one at a time).
    public func due(now: Double = Date().timeIntervalSince1970) throws -> [QueuedPostback] {
        try heads().filter { $0.nextAt <= now }
    }

    /// The earliest time any head is due (nil: the queue is empty).
    public func nextDue() throws -> Double? {
        try heads().map(\.nextAt).min()
    }

    /// `seq` was delivered: it leaves the queue.
    public func delivered(_ seq: Int64) throws {
        try db.write { db in try db.execute(sql: "DELETE FROM postbacks WHERE seq = ?", arguments: [seq]) }
    }

    /// `seq` failed and is tried again at `at`.
    public func retry(_ seq: Int64, error: String, at: Double) throws {
        try db.write { db in
            try db.execute(
                sql: "UPDATE postbacks SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE seq = ?", arguments: [at, error, seq])
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
        try db.read { db in try Double.fetchOne(db, sql: "SELECT min(queued_at) FROM postbacks") }
    }

    /// Dead letters kept.
    public func deadCount() throws -> Int { try db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM postback_dead") ?? 0 } }

    /// Hits waiting.
    public func depth() throws -> Int { try db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM postbacks") ?? 0 } }

    /// Every hit waiting, in order.
    public func waiting() throws -> [QueuedPostback] {
        try db.read { db in try Row.fetchAll(db, sql: "SELECT * FROM postbacks ORDER BY seq").map(Self.item) }
    }

    /// The dead letters, oldest first.
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
            receivers.withLock { r in for b in back { r.insert(b) } }
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
            return n
        }
    }

    /// Removes every queued hit (privacy opted out); how many.
    @discardableResult
    public func clear() throws -> Int {
        try db.write { db in
            try db.execute(sql: "DELETE FROM postbacks")
            return db.changesCount
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
