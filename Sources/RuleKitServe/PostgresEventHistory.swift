// Event history in PostgreSQL (through postgres-nio), shared by every `rulekit serve` of a fleet, one
// history per identity, read and written a block at a time (`BlockHistory`):
// - a block's identities are read in one statement (the newest records of each, among the hashes its
//   rules can ask);
// - a block's records are written in one multi-row statement (one transaction), each keyed by the event
//   that caused it: `ON CONFLICT DO NOTHING` on (identity, event_key) keeps a retried block, or a spool
//   replayed after a write whose answer was lost, from counting twice;
// - the table and its indexes are made by a migration at start (`ready()`), under an advisory lock so
//   that servers starting together migrate once, and the schema version is recorded.
// No thread waits on the database: the client runs in the service group, and every call is async.
internal import Foundation
internal import Logging
internal import PostgresNIO
internal import RuleKitCore
internal import RuleKitHub

/// History kept in a PostgreSQL table, per identity.
final class PostgresEventHistory: HistoryBackend {
    let client: PostgresClient
    private let migrated = Locked(false)
    private let logger = Logger(label: "rulekit.history")
    /// The schema version this build writes (`rulekit_schema_version`, component `history`).
    static let schemaVersion = 2
    /// The advisory lock the migration holds (any fixed number; the same on every server).
    static let migrationLock: Int64 = 0x52_4B_48_49_53_54

    init(url: URL) throws(DiagnosticError) {
        guard let host = url.host, let user = url.user, !user.isEmpty else {
            throw DiagnosticError(.error("serve.history", "a PostgreSQL history needs postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"))
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        var config = PostgresClient.Configuration(
            host: host, port: url.port ?? 5432, username: user, password: url.password, database: database.isEmpty ? nil : database,
            tls: .disable)
        config.options.connectTimeout = .seconds(1)
        client = PostgresClient(configuration: config)
    }

    // MARK: HistoryBackend

    func prefetch(identities: [String], hashes: Set<UInt32>?, timed: Set<UInt32>, limit: Int) async throws -> [HistorySlice] {
        guard !identities.isEmpty else { return [] }
        if let hashes, hashes.isEmpty { return [] }
        let statement = Prefetch(
            identities: identities, all: hashes == nil, hashes: (hashes ?? []).sorted().map { Int64($0) },
            timed: timed.sorted().map { Int64($0) }, limit: Int64(limit))
        var out: [HistorySlice] = []
        for try await slice in try await client.execute(statement) { out.append(slice) }
        return out
    }

    func commit(_ records: [HistoryRecord]) async throws {
        guard !records.isEmpty else { return }
        let statement = Insert(
            identities: records.map(\.identity), hashes: records.map { Int64($0.hash) }, times: records.map(\.ms),
            keys: records.map { $0.key.isEmpty ? EventID.next().text : $0.key })
        for try await _ in try await client.execute(statement) {}
    }

    /// A block's read, prepared once per connection: per identity (an equality on the question index's
    /// first column, whatever the table's statistics say: a plan made while the table was empty stays good
    /// as it grows), the counts per hash, and for the timed hashes the newest times, as an array.
    struct Prefetch: PostgresPreparedStatement {
        static let name = "rulekit_history_prefetch_v3"
        static let sql = """
            SELECT i.id, a.hash, a.n, a.lo, a.hi,
                CASE WHEN a.hash = ANY($4::int8[]) THEN (
                    SELECT array_agg(ts ORDER BY ts) FROM (
                        SELECT ts FROM rulekit_history r WHERE r.identity = i.id AND r.hash = a.hash
                        ORDER BY ts DESC LIMIT $5) newest)
                END
            FROM unnest($1::text[]) AS i(id)
            CROSS JOIN LATERAL (
                SELECT hash, count(*)::int8 AS n, min(ts) AS lo, max(ts) AS hi FROM rulekit_history
                WHERE identity = i.id AND ($2::bool OR hash = ANY($3::int8[]))
                GROUP BY hash) a
            """
        typealias Row = HistorySlice
        let identities: [String]
        let all: Bool
        let hashes: [Int64]
        let timed: [Int64]
        let limit: Int64

        func makeBindings() throws -> PostgresBindings {
            var b = PostgresBindings(capacity: 5)
            b.append(identities)
            b.append(all)
            b.append(hashes)
            b.append(timed)
            b.append(limit)
            return b
        }

        func decodeRow(_ row: PostgresRow) throws -> HistorySlice {
            let (identity, hash, n, lo, hi, times) = try row.decode((String, Int64, Int64, Double, Double, [Double]?).self)
            return HistorySlice(
                identity: identity, hash: UInt32(truncatingIfNeeded: hash), count: Int(n), oldest: lo, newest: hi, times: times)
        }
    }

    /// A block's records in one statement; a key already kept is passed over (exactly once).
    struct Insert: PostgresPreparedStatement {
        static let name = "rulekit_history_insert_v2"
        static let sql = """
            INSERT INTO rulekit_history (identity, hash, ts, event_key)
            SELECT * FROM unnest($1::text[], $2::int8[], $3::float8[], $4::text[])
            ON CONFLICT DO NOTHING
            """
        typealias Row = Void
        let identities: [String]
        let hashes: [Int64]
        let times: [Double]
        let keys: [String]

        func makeBindings() throws -> PostgresBindings {
            var b = PostgresBindings(capacity: 4)
            b.append(identities)
            b.append(hashes)
            b.append(times)
            b.append(keys)
            return b
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// Migrates once, then answers a cheap query: the database is there.
    func ready() async throws {
        if migrated.withLock({ $0 }) {
            try await client.query("SELECT 1")
            return
        }
        try await migrate()
        migrated.withLock { $0 = true }
    }

    /// Brings the table to `schemaVersion`: 1 made the table and its question index; 2 keys each record
    /// (`event_key`, unique per identity) for exactly-once writes. Tables made before versions were
    /// recorded are taken as version 1.
    func migrate() async throws {
        let logger = self.logger
        let from: Int = try await client.withTransaction(logger: logger) { c in
            try await c.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await c.query(
                "CREATE TABLE IF NOT EXISTS rulekit_schema_version (component TEXT PRIMARY KEY, version INT NOT NULL)",
                logger: logger)
            var version = 0
            for try await v in try await c.query(
                "SELECT version FROM rulekit_schema_version WHERE component = 'history'", logger: logger
            ).decode(Int.self) {
                version = v
            }
            if version < 1 {
                try await c.query(
                    "CREATE TABLE IF NOT EXISTS rulekit_history (identity TEXT NOT NULL, hash BIGINT NOT NULL, ts DOUBLE PRECISION NOT NULL)",
                    logger: logger)
                try await c.query(
                    "CREATE INDEX IF NOT EXISTS rulekit_history_identity_hash_ts ON rulekit_history (identity, hash, ts)", logger: logger)
            }
            if version < 2 {
                try await c.query("ALTER TABLE rulekit_history ADD COLUMN IF NOT EXISTS event_key TEXT", logger: logger)
                try await c.query(
                    "CREATE UNIQUE INDEX IF NOT EXISTS rulekit_history_identity_key ON rulekit_history (identity, event_key)",
                    logger: logger)
            }
            if version < Self.schemaVersion {
                try await c.query(
                    """
                    INSERT INTO rulekit_schema_version (component, version) VALUES ('history', \(Self.schemaVersion))
                    ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version
                    """, logger: logger)
            }
            return version
        }
        if from < Self.schemaVersion {
            logger.info("history database migrated", metadata: ["from": "\(from)", "to": "\(Self.schemaVersion)"])
        } else {
            logger.info("history database ready", metadata: ["version": "\(from)"])
        }
    }

    /// Runs the client until its task is cancelled (after the history is flushed at shutdown).
    func run() async {
        await client.run()
    }
}
