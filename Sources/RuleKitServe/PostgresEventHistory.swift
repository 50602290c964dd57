// Event history in PostgreSQL (through postgres-nio), shared by every `rulekit serve` of a fleet, one
// history per identity.
//
// The engine asks history questions synchronously, on the hub's queue (a GCD thread, never a Swift
// concurrency or NIO thread), so each query waits, with a time-out, for its answer from the client's
// event loop. When the database is unreachable:
// - a query answers the reference's error value (count -1): the engine goes on, as on a device whose
//   database failed;
// - a record goes to a bounded local spool, replayed in order when the database answers again. A record
//   that finds the spool full is dropped and counted (`rulekit_history_spool_dropped_total`); so is, at
//   shutdown, whatever the database does not take within the flush time-out. Queries do not see spooled
//   records until they are replayed.
internal import Foundation
internal import Logging
internal import PostgresNIO
internal import RuleKitCore
internal import RuleKitHub
internal import ServiceLifecycle

/// History kept in a PostgreSQL table, per identity, with a local spool for outages.
final class PostgresEventHistory: EventHistoryStore, Service {
    struct Record: Sendable {
        var identity: String
        var hash: Int64
        var ms: Double
    }

    let client: PostgresClient
    let capacity: Int
    let metrics: ServeMetrics
    private let spool = Locked<[Record]>([])
    private let schemaReady = Locked(false)
    private let logger = Logger(label: "rulekit.history")
    /// How long one query or insert may wait for the database before it counts as unreachable.
    static let timeout: DispatchTimeInterval = .seconds(2)

    init(url: URL, spoolCapacity: Int, metrics: ServeMetrics) throws(DiagnosticError) {
        guard let host = url.host, let user = url.user, !user.isEmpty else {
            throw DiagnosticError(.error("serve.history", "a PostgreSQL history needs postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"))
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        var config = PostgresClient.Configuration(
            host: host, port: url.port ?? 5432, username: user, password: url.password, database: database.isEmpty ? nil : database,
            tls: .disable)
        config.options.connectTimeout = .seconds(2)
        client = PostgresClient(configuration: config)
        capacity = spoolCapacity
        self.metrics = metrics
    }

    /// Records waiting in the spool.
    var spooled: Int { spool.withLock { $0.count } }

    // MARK: EventHistoryStore

    /// Records under `HistoryIdentity.current`; when the database does not answer, spools the record (true)
    /// or, with the spool full, drops it (false).
    func record(hash: UInt32, timestamp: Date) -> Bool {
        let r = Record(identity: HistoryIdentity.current ?? "", hash: Int64(hash), ms: timestamp.timeIntervalSince1970 * 1000)
        // Records keep their order: while older ones wait in the spool, a new one waits behind them.
        if spool.withLock({ $0.isEmpty }), schemaReady.withLock({ $0 }), wait({ try await self.insert([r]) }) != nil { return true }
        metrics.historyErrors.increment()
        return spool.withLock { s in
            guard s.count < capacity else {
                metrics.historyDropped.increment()
                return false
            }
            s.append(r)
            metrics.historySpooled.increment()
            return true
        }
    }

    /// Counts the records of `hash` under `HistoryIdentity.current`; the reference's error value when the
    /// database does not answer.
    func query(hash: UInt32, from: Date?, to: Date?, after: Date?) -> EventHistoryResult {
        let identity = HistoryIdentity.current ?? ""
        let low = [from, after].compactMap { $0?.timeIntervalSince1970 }.max().map { $0 * 1000 } ?? -1e300
        let high = to.map { $0.timeIntervalSince1970 * 1000 } ?? 1e300
        guard schemaReady.withLock({ $0 }),
            let answer = wait({ () async throws -> EventHistoryResult in
                let rows = try await self.client.query(
                    """
                    SELECT count(*)::int8, min(ts), max(ts) FROM rulekit_history
                    WHERE identity = \(identity) AND hash = \(Int64(hash)) AND ts >= \(low) AND ts <= \(high)
                    """)
                for try await (count, oldest, newest) in rows.decode((Int64, Double?, Double?).self) {
                    return EventHistoryResult(
                        count: Int(count), oldest: oldest.map { Date(timeIntervalSince1970: $0 / 1000) },
                        newest: newest.map { Date(timeIntervalSince1970: $0 / 1000) })
                }
                return EventHistoryResult(count: 0)
            })
        else {
            metrics.historyErrors.increment()
            return .databaseError
        }
        return answer
    }

    /// Runs `body` on the cooperative pool and waits for it, up to `timeout`; nil on an error or time-out.
    private func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<T?>(nil)
        let task = Task {
            defer { done.signal() }
            if let v = try? await body() { result.withLock { $0 = v } }
        }
        if done.wait(timeout: .now() + Self.timeout) == .timedOut {
            task.cancel()
            return nil
        }
        return result.withLock { $0 }
    }

    /// Inserts the records in one statement: all of them or none (a replay never writes one twice).
    func insert(_ records: [Record]) async throws {
        let identities = records.map(\.identity)
        let hashes = records.map(\.hash)
        let times = records.map(\.ms)
        try await client.query(
            """
            INSERT INTO rulekit_history (identity, hash, ts)
            SELECT * FROM UNNEST(\(identities)::text[], \(hashes)::int8[], \(times)::float8[])
            """)
    }

    // MARK: Service

    /// Runs the client, makes the table when the database first answers, and replays the spool; at a
    /// graceful shutdown, flushes the spool (for up to five seconds) and stops.
    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    await self.maintain()
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
            // Shutting down: what the spool still holds gets one more chance.
            let deadline = ContinuousClock.now + .seconds(5)
            while spooled > 0 && ContinuousClock.now < deadline {
                await maintain()
                if spooled > 0 { try? await Task.sleep(for: .milliseconds(200)) }
            }
            let lost = spooled
            if lost > 0 {
                metrics.historyDropped.increment(by: Int64(lost))
                logger.error("history records lost at shutdown: the database did not take them", metadata: ["records": "\(lost)"])
            }
            group.cancelAll()
        }
    }

    /// Makes the table if needed, then replays the spool in order while the database takes it.
    func maintain() async {
        if !schemaReady.withLock({ $0 }) {
            do {
                try await client.query(
                    "CREATE TABLE IF NOT EXISTS rulekit_history (identity TEXT NOT NULL, hash BIGINT NOT NULL, ts DOUBLE PRECISION NOT NULL)"
                )
                try await client.query(
                    "CREATE INDEX IF NOT EXISTS rulekit_history_identity_hash_ts ON rulekit_history (identity, hash, ts)")
                schemaReady.withLock { $0 = true }
                metrics.historyReady.record(1)
                logger.info("history database ready")
            } catch {
                return
            }
        }
        while let batch = spool.withLock({ s -> [Record]? in s.isEmpty ? nil : Array(s.prefix(500)) }) {
            do {
                try await insert(batch)
                spool.withLock { $0.removeFirst(batch.count) }
            } catch {
                return
            }
        }
    }
}
