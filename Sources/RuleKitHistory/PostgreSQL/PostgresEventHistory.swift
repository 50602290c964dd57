// Event history in PostgreSQL (through postgres-nio), shared by every `rulekit serve` of a fleet, one
// history per identity, read and written a block at a time (`BlockHistory`):
// - a block's identities are read in one statement: per identity and hash its rules can ask, the count,
//   oldest and newest from a summary table a trigger keeps in each insert's transaction, and the newest
//   times of the hashes asked within windows;
// - a block's records are written in one multi-row statement (one transaction), each keyed by the event
//   that caused it: the unique index on (identity, event_key) keeps a retried block, or a spool replayed
//   after a write whose answer was lost, from counting twice (a block with a key kept already is written
//   again with `ON CONFLICT DO NOTHING`);
// - the table and its indexes are made by a migration at start (`ready()`), under an advisory lock so
//   that servers starting together migrate once, and the schema version is recorded.
// No thread waits on the database: the client runs in the service group, and every call is async.
internal import Foundation
internal import Logging
internal import PostgresNIO
internal import RuleKitCore
internal import ServiceLifecycle

/// History kept in a PostgreSQL table, per identity.
final class PostgresEventHistory: HistoryBackend, Service {
    let client: PostgresClient
    private let migrated = Locked(false)
    /// The migration under way, if any: it runs to its end even when a caller stops waiting for it (a
    /// summary built from a large table may take longer than the history's time-out).
    private let migration = Locked<Task<Void, any Error>?>(nil)
    private let logger = Logger(label: "rulekit.history")
    /// The schema version this build writes (`rulekit_schema_version`, component `history`).
    static let schemaVersion = 5
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
        // Each statement's plan made once per connection, for any arguments. Left to choose, PostgreSQL plans
        // a block's read anew for the arguments it is given, from the table's statistics; on a table made
        // at start and filling, they say "small" until autovacuum's first ANALYZE (a minute or more), and
        // the plan may scan the whole summary for each read, comparing every row with the block's
        // identities: half of the database's samples in a profiled run of serve's benchmark. The generic
        // plan looks each identity up in the summary's primary key whatever the table's size.
        config.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")]
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

    /// Writes a block's records: as new ones first, and only if one of them is kept already (a unique
    /// violation, which undoes that statement whole) again, passing over what is kept. `ON CONFLICT`
    /// looks each row's key up in the unique index before inserting it, and the insert looks it up again:
    /// paid on every block for the few that are retries (`docs/performance.md`).
    func commit(_ records: [HistoryRecord]) async throws {
        guard !records.isEmpty else { return }
        let rows = Rows(
            identities: records.map(\.identity), hashes: records.map { Int64($0.hash) }, times: records.map(\.ms),
            keys: records.map { $0.key.isEmpty ? EventID.next().text : $0.key })
        do {
            for try await _ in try await client.execute(InsertNew(rows: rows)) {}
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == PostgresError.Code.uniqueViolation.raw {
            for try await _ in try await client.execute(Insert(rows: rows)) {}
        }
    }

    /// A block's records, as the four arrays the inserts bind.
    struct Rows {
        let identities: [String]
        let hashes: [Int64]
        let times: [Double]
        let keys: [String]

        func bindings() -> PostgresBindings {
            var b = PostgresBindings(capacity: 4)
            b.append(identities)
            b.append(hashes)
            b.append(times)
            b.append(keys)
            return b
        }
    }

    /// A block's read, prepared once per connection: per identity and hash, the count, oldest and newest
    /// from the summary (`rulekit_history_summary`, one row each, kept by a trigger in the transaction of
    /// every insert): a lookup whatever the history's length, where counting the records themselves
    /// fetched each of them; and for the timed hashes the newest times, as an array (the question index).
    struct Prefetch: PostgresPreparedStatement {
        static let name = "rulekit_history_prefetch_v4"
        static let sql = """
            SELECT s.identity, s.hash, s.n, s.lo, s.hi,
                CASE WHEN s.hash = ANY($4::int8[]) THEN (
                    SELECT array_agg(ts ORDER BY ts) FROM (
                        SELECT ts FROM rulekit_history r WHERE r.identity = s.identity AND r.hash = s.hash
                        ORDER BY ts DESC LIMIT $5) newest)
                END
            FROM rulekit_history_summary s
            WHERE s.identity = ANY($1::text[]) AND ($2::bool OR s.hash = ANY($3::int8[]))
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
            // Cell by cell, each `decode` specialized here for its type: the tuple form
            // (`row.decode((String, Int64, …).self)`) went through parameter packs whose generic metadata was
            // looked up per column of every row (callgrind: 1.8k of serve's 108k instructions per event).
            var cells = row.makeIterator()
            func next<T: PostgresDecodable>(_: T.Type) throws -> T {
                guard let cell = cells.next() else {
                    throw DiagnosticError(.error("serve.history", "a PostgreSQL history read returned too few columns"))
                }
                return try cell.decode(T.self)
            }
            let identity = try next(String.self)
            let hash = try next(Int64.self)
            let n = try next(Int64.self)
            let lo = try next(Double.self)
            let hi = try next(Double.self)
            let times = try next(Optional<[Double]>.self)
            return HistorySlice(
                identity: identity, hash: UInt32(truncatingIfNeeded: hash), count: Int(n), oldest: lo, newest: hi, times: times)
        }
    }

    /// The inserts' filter: rows no tombstone covers (one InitPlan, no digest computed, while none exists).
    static let notErased = """
        WHERE NOT EXISTS (SELECT 1 FROM rulekit_history_tombstones) OR NOT EXISTS (
            SELECT 1 FROM rulekit_history_tombstones t
            WHERE t.identity_digest = encode(sha256(convert_to(u.identity, 'UTF8')), 'hex') AND u.ts <= t.at
                AND (t.hashes IS NULL OR u.hash = ANY(t.hashes))
                AND u.ts >= coalesce(t.from_ms, '-infinity') AND u.ts <= coalesce(t.to_ms, 'infinity'))
        """

    /// A block's records in one statement, all of them new: a key already kept fails it whole.
    struct InsertNew: PostgresPreparedStatement {
        static let name = "rulekit_history_insert_new_v2"
        static let sql = """
            INSERT INTO rulekit_history (identity, hash, ts, event_key)
            SELECT * FROM unnest($1::text[], $2::int8[], $3::float8[], $4::text[]) AS u(identity, hash, ts, event_key)
            \(PostgresEventHistory.notErased)
            """
        typealias Row = Void
        let rows: Rows

        func makeBindings() throws -> PostgresBindings { rows.bindings() }
        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// A block's records in one statement; a key already kept is passed over (exactly once).
    struct Insert: PostgresPreparedStatement {
        static let name = "rulekit_history_insert_v3"
        static let sql = """
            INSERT INTO rulekit_history (identity, hash, ts, event_key)
            SELECT * FROM unnest($1::text[], $2::int8[], $3::float8[], $4::text[]) AS u(identity, hash, ts, event_key)
            \(PostgresEventHistory.notErased)
            ON CONFLICT DO NOTHING
            """
        typealias Row = Void
        let rows: Rows

        func makeBindings() throws -> PostgresBindings { rows.bindings() }
        func decodeRow(_ row: PostgresRow) throws {}
    }

    /// Migrates once, then answers a cheap query: the database is there. A caller that stops waiting (a
    /// time-out) leaves the migration running; the next call waits for the same one.
    func ready() async throws {
        if migrated.withLock({ $0 }) {
            try await client.query("SELECT 1")
            return
        }
        let task = migration.withLock { m -> Task<Void, any Error> in
            if let m { return m }
            let t = Task { try await self.migrate() }
            m = t
            return t
        }
        do {
            try await task.value
        } catch {
            migration.withLock { if $0 == task { $0 = nil } }
            throw error
        }
        migrated.withLock { $0 = true }
    }

    /// Brings the table to `schemaVersion`: 1 made the table and its question index; 2 keys each record
    /// (`event_key`, unique per identity) for exactly-once writes; 3 adds the summary a block's read
    /// counts from (`rulekit_history_summary`) and the trigger that keeps it; 4 compares identities and keys
    /// byte for byte (`COLLATE "C"`); 5 keeps erasures' tombstones (`rulekit_history_tombstones`), which the
    /// inserts read. Tables made before versions were recorded are taken as version 1.
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
            if version < 3 {
                // The summary: one row per identity and hash, kept by a statement trigger from the rows an
                // insert actually added (its transition table: a key passed over adds nothing), in the
                // insert's own transaction, so a read sees the summary and the records agree. Rows are
                // upserted in one order (identity, hash), so two servers' inserts never wait on each other
                // in a cycle. Made while this transaction holds the table (the trigger's lock waits for
                // inserts under way, and holds new ones), then filled from what the table holds.
                try await c.query(
                    """
                    CREATE TABLE IF NOT EXISTS rulekit_history_summary (
                        identity TEXT NOT NULL, hash BIGINT NOT NULL, n BIGINT NOT NULL, lo DOUBLE PRECISION NOT NULL,
                        hi DOUBLE PRECISION NOT NULL, PRIMARY KEY (identity, hash))
                    """, logger: logger)
                try await c.query(
                    """
                    CREATE OR REPLACE FUNCTION rulekit_history_summarize() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        INSERT INTO rulekit_history_summary AS s (identity, hash, n, lo, hi)
                            SELECT identity, hash, count(*), min(ts), max(ts) FROM added GROUP BY identity, hash ORDER BY identity, hash
                        ON CONFLICT (identity, hash) DO UPDATE
                            SET n = s.n + EXCLUDED.n, lo = least(s.lo, EXCLUDED.lo), hi = greatest(s.hi, EXCLUDED.hi);
                        RETURN NULL;
                    END $$
                    """, logger: logger)
                // Records deleted or changed by hand (an operator's retention, a fix): their pairs are
                // counted again from the table; a table emptied empties the summary.
                try await c.query(
                    """
                    CREATE OR REPLACE FUNCTION rulekit_history_recount(ids TEXT[], hs BIGINT[]) RETURNS void LANGUAGE sql AS $$
                        DELETE FROM rulekit_history_summary s USING unnest(ids, hs) AS k(identity, hash)
                            WHERE s.identity = k.identity AND s.hash = k.hash;
                        INSERT INTO rulekit_history_summary (identity, hash, n, lo, hi)
                            SELECT h.identity, h.hash, count(*), min(h.ts), max(h.ts) FROM rulekit_history h
                            JOIN (SELECT DISTINCT * FROM unnest(ids, hs) AS k(identity, hash)) k ON h.identity = k.identity AND h.hash = k.hash
                            GROUP BY 1, 2 ORDER BY 1, 2
                        ON CONFLICT (identity, hash) DO UPDATE SET n = EXCLUDED.n, lo = EXCLUDED.lo, hi = EXCLUDED.hi;
                    $$
                    """, logger: logger)
                try await c.query(
                    """
                    CREATE OR REPLACE FUNCTION rulekit_history_forget() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        PERFORM rulekit_history_recount(array_agg(identity), array_agg(hash)) FROM gone;
                        RETURN NULL;
                    END $$
                    """, logger: logger)
                try await c.query(
                    """
                    CREATE OR REPLACE FUNCTION rulekit_history_recount_changed() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        PERFORM rulekit_history_recount(array_agg(identity), array_agg(hash))
                            FROM (SELECT identity, hash FROM gone UNION SELECT identity, hash FROM added) k;
                        RETURN NULL;
                    END $$
                    """, logger: logger)
                try await c.query(
                    """
                    CREATE OR REPLACE FUNCTION rulekit_history_clear() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        TRUNCATE rulekit_history_summary;
                        RETURN NULL;
                    END $$
                    """, logger: logger)
                for (name, when, function) in [
                    (
                        "rulekit_history_summary", "AFTER INSERT ON rulekit_history REFERENCING NEW TABLE AS added",
                        "rulekit_history_summarize"
                    ),
                    ("rulekit_history_forget", "AFTER DELETE ON rulekit_history REFERENCING OLD TABLE AS gone", "rulekit_history_forget"),
                    (
                        "rulekit_history_changed", "AFTER UPDATE ON rulekit_history REFERENCING OLD TABLE AS gone NEW TABLE AS added",
                        "rulekit_history_recount_changed"
                    ),
                    ("rulekit_history_clear", "AFTER TRUNCATE ON rulekit_history", "rulekit_history_clear"),
                ] {
                    try await c.query(PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(name) ON rulekit_history"), logger: logger)
                    try await c.query(
                        PostgresQuery(unsafeSQL: "CREATE TRIGGER \(name) \(when) FOR EACH STATEMENT EXECUTE FUNCTION \(function)()"),
                        logger: logger)
                }
                try await c.query(
                    """
                    INSERT INTO rulekit_history_summary AS s (identity, hash, n, lo, hi)
                        SELECT identity, hash, count(*), min(ts), max(ts) FROM rulekit_history GROUP BY identity, hash
                    ON CONFLICT (identity, hash) DO UPDATE SET n = EXCLUDED.n, lo = EXCLUDED.lo, hi = EXCLUDED.hi
                    """, logger: logger)
            }
            if version < 4 {
                // Identities and keys are ids, not words: compared byte for byte, every B-tree step of an insert,
                // of its key check and of its summary upsert is a memcmp, where the database's own collation
                // (C.UTF-8, ICU en-US, ...) compared by locale (`docs/performance.md`). The indexes are rebuilt;
                // the rows stay. The
                // steps above stay as they were written: a new database runs them all, and this one last.
                try await c.query(
                    """
                    ALTER TABLE rulekit_history ALTER COLUMN identity TYPE TEXT COLLATE "C", ALTER COLUMN event_key TYPE TEXT COLLATE "C"
                    """, logger: logger)
                try await c.query(#"ALTER TABLE rulekit_history_summary ALTER COLUMN identity TYPE TEXT COLLATE "C""#, logger: logger)
            }
            if version < 5 {
                try await c.query(
                    """
                    CREATE TABLE IF NOT EXISTS rulekit_history_tombstones (
                        identity_digest TEXT COLLATE "C" NOT NULL, at DOUBLE PRECISION NOT NULL, hashes BIGINT[],
                        from_ms DOUBLE PRECISION, to_ms DOUBLE PRECISION)
                    """, logger: logger)
                try await c.query(
                    "CREATE INDEX IF NOT EXISTS rulekit_history_tombstones_digest ON rulekit_history_tombstones (identity_digest)",
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
        // Tombstones past their lifetime go at every start (no server depends on them any more).
        try await client.query("DELETE FROM rulekit_history_tombstones WHERE at < \(HistoryErasure.tombstoneCutoff)", logger: logger)
        if from < Self.schemaVersion {
            logger.info("history database migrated", metadata: ["from": "\(from)", "to": "\(Self.schemaVersion)"])
        } else {
            logger.info("history database ready", metadata: ["version": "\(from)"])
        }
    }

    /// Runs the client until its task is cancelled (after the history is flushed at shutdown): the store's
    /// lifecycle `Service`.
    func run() async {
        await client.run()
    }
}

extension PostgresEventHistory: HistoryExporting {
    /// The identity's records, oldest first, with their keys (through the identity's index).
    public func export(identity: String) async throws -> [HistoryRecord] {
        var out: [HistoryRecord] = []
        let rows = try await client.query(
            "SELECT hash, ts, event_key FROM rulekit_history WHERE identity = \(identity) ORDER BY ts, event_key", logger: logger)
        for try await (hash, ts, key) in rows.decode((Int64, Double, String?).self) {
            out.append(HistoryRecord(identity: identity, hash: UInt32(truncatingIfNeeded: hash), ms: ts, key: key ?? ""))
        }
        return out
    }

    /// Erases in one transaction that holds off every insert (`SHARE ROW EXCLUSIVE`: an insert under way
    /// finishes first, a later one waits and then reads the tombstone), so a record is either erased or
    /// dropped on write — never written after the erasure. The summary follows through its trigger.
    public func erase(_ erasure: HistoryErasure) async throws -> Int {
        if let hashes = erasure.hashes, hashes.isEmpty { return 0 }
        let logger = self.logger
        let hashes = erasure.hashes.map { $0.sorted().map(Int64.init) }
        return try await client.withTransaction(logger: logger) { c in
            try await c.query("LOCK TABLE rulekit_history IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            try await c.query(
                """
                INSERT INTO rulekit_history_tombstones (identity_digest, at, hashes, from_ms, to_ms)
                VALUES (\(erasure.identityDigest), \(erasure.at), \(hashes), \(erasure.from), \(erasure.to))
                """, logger: logger)
            var gone = 0
            for try await n in try await c.query(
                """
                WITH gone AS (
                    DELETE FROM rulekit_history WHERE identity = \(erasure.identity) AND ts <= \(erasure.at)
                        AND (\(hashes)::int8[] IS NULL OR hash = ANY(\(hashes)::int8[]))
                        AND ts >= coalesce(\(erasure.from)::float8, '-infinity') AND ts <= coalesce(\(erasure.to)::float8, 'infinity')
                    RETURNING 1)
                SELECT count(*)::int8 FROM gone
                """, logger: logger
            ).decode(Int64.self) {
                gone = Int(n)
            }
            return gone
        }
    }

    /// Records, identities, oldest and newest, from the summary the writes keep.
    public func stats() async throws -> HistoryStats {
        let rows = try await client.query(
            "SELECT coalesce(sum(n), 0)::int8, count(DISTINCT identity), min(lo), max(hi) FROM rulekit_history_summary", logger: logger)
        for try await (n, identities, lo, hi) in rows.decode((Int64, Int64, Double?, Double?).self) {
            return HistoryStats(records: Int(n), identities: Int(identities), oldest: lo, newest: hi)
        }
        return HistoryStats(records: 0, identities: 0, oldest: nil, newest: nil)
    }
}
