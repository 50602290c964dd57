import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// A PostgreSQL cluster of the test's own (`.ci/postgres.sh`), which it can take away and bring back.
final class PostgresCluster: @unchecked Sendable {
    let url: String
    let dir: String
    static let script = SharedCorpus.repositoryRoot.appendingPathComponent(".ci/postgres.sh").path

    init() throws {
        let out = try Self.run([Self.script])
        let parts = out.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        guard parts.count == 2 else { throw NSError(domain: "pg", code: 1, userInfo: [NSLocalizedDescriptionKey: out]) }
        (url, dir) = (parts[0], parts[1])
    }

    func pause() throws { _ = try Self.run([Self.script, "pause", dir]) }
    func resume() throws { _ = try Self.run([Self.script, "resume", dir]) }
    deinit { _ = try? Self.run([Self.script, "stop", dir]) }

    /// One number from `sql`.
    func count(_ sql: String) throws -> Int {
        let out = try Self.run(["/usr/bin/env", "psql", url, "-Atc", sql])
        guard let n = Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw NSError(domain: "pg", code: 2, userInfo: [NSLocalizedDescriptionKey: out])
        }
        return n
    }

    /// Runs `sql` (stopping at the first error).
    func execute(_ sql: String) throws {
        _ = try Self.run(["/usr/bin/env", "psql", url, "-v", "ON_ERROR_STOP=1", "-qc", sql])
    }

    /// How many (identity, hash) pairs the summary gets wrong: counted otherwise than the records are, or
    /// missing, or left over.
    func summaryDisagreements() throws -> Int {
        try count(
            """
            SELECT count(*) FROM (SELECT identity, hash, count(*) AS n, min(ts) AS lo, max(ts) AS hi FROM rulekit_history GROUP BY 1, 2) a
            FULL JOIN rulekit_history_summary s USING (identity, hash)
            WHERE a.n IS DISTINCT FROM s.n OR a.lo IS DISTINCT FROM s.lo OR a.hi IS DISTINCT FROM s.hi
            """)
    }

    static func run(_ args: [String]) throws -> String {
        // Output to a file, not a pipe: a server the script starts would hold a pipe open, and the
        // process would never be seen to end.
        let file = Scratch.url("rk-pg-out-\(UUID())")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: args[0].hasPrefix("/") ? args[0] : "/usr/bin/env")
        p.arguments = args[0].hasPrefix("/") ? Array(args.dropFirst()) : args
        let handle = try FileHandle(forWritingTo: file)
        p.standardOutput = handle
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try handle.close()
        guard p.terminationStatus == 0 else {
            throw NSError(domain: "pg", code: Int(p.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "\(args) failed"])
        }
        return try String(contentsOf: file, encoding: .utf8)
    }
}

/// History on PostgreSQL under faults (`docs/serving.md`, "History"): an outage neither stalls requests
/// nor loses or doubles a record answered 200; a restart replays the spool; a retried batch counts once;
/// two servers share one identity's history.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"] != nil, "set RULEKIT_TEST_POSTGRES (.ci/run does)"))
struct ServeHistoryFaultTests {
    /// Every visit is recorded once; a check asks how many visits its identity made.
    static let rules = """
        rules:
          - id: record-visit
            when: {key: ~type, eq: visit}
            then:
              - history: {operation: insert, content: {visit.page: "{%page%}"}}
          - id: count-visits
            when:
              all:
                - {key: ~type, eq: check}
                - history: {events: [{visit.page: home}], matcher: ge, value: 3}
            then:
              - add: {returning: true}

        """

    static func setUp() throws -> (rules: URL, dir: URL) {
        let dir = Scratch.url("rk-pg-fault-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let f = dir.appendingPathComponent("rules.yaml")
        try rules.write(to: f, atomically: true, encoding: .utf8)
        return (f, dir)
    }

    static func batch(_ who: String, ids: Range<Int>, type: String = "visit") -> String {
        ids.map { i in
            #"{"id":"\#(who)-\#(type)-\#(i)","name":"\#(type)","type":"\#(type)","source":"s","data":{"page":"home","xdm":{"identityMap":{"ECID":[{"id":"\#(who)"}]}}}}"#
        }.joined(separator: "\n")
    }

    static func serve(_ pg: PostgresCluster, _ setup: (rules: URL, dir: URL)) throws -> ServeProcess {
        try ServeProcess([
            "--rules", setup.rules.path, "--history", pg.url, "--identity", "xdm.identityMap.ECID.0.id", "--history-spool",
            setup.dir.appendingPathComponent("history.spool").path, "--history-timeout", "500",
        ])
    }

    static func metric(_ server: ServeProcess, _ name: String) throws -> Int? {
        let text = try HTTP.call(server.base.appendingPathComponent("metrics")).body
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") { return Int(line.dropFirst(name.count + 1)) }
        return nil
    }

    /// Waits (up to 30 s) until the breaker is closed and the spool empty.
    static func settled(_ server: ServeProcess) throws -> Bool {
        for _ in 0..<600 {
            if try metric(server, "rulekit_history_breaker_open") == 0, try metric(server, "rulekit_history_spool_records") == 0 {
                return true
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    @Test func anOutageUnderLoadNeitherStallsNorLosesNorDoublesARecord() throws {
        let pg = try PostgresCluster()
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.dir) }
        let server = try Self.serve(pg, setup)
        defer { #expect(server.stop() == 0) }
        #expect(try Self.settled(server))
        let url = server.base.appendingPathComponent("v1/events")
        let clock = ContinuousClock()
        var answered = 0
        var slowest = Duration.zero
        var n = 0
        func post() throws {
            let body = Self.batch("load", ids: n..<(n + 20))
            var reply: HTTP.Reply?
            let took = try clock.measure { reply = try HTTP.call(url, method: "POST", body: body) }
            slowest = max(slowest, took)
            if reply?.status == 200 { answered += 20 }
            n += 20
        }
        let start = clock.now
        while clock.now - start < .seconds(2) { try post() }
        try pg.pause()
        let down = clock.now
        while clock.now - down < .seconds(10) { try post() }
        try pg.resume()
        let up = clock.now
        while clock.now - up < .seconds(2) { try post() }
        print("history outage: \(answered) events answered 200, slowest request \(slowest)")
        // No request waited on the database for more than about its time-out.
        #expect(slowest < .milliseconds(1500), "slowest request \(slowest)")
        #expect(answered == n)
        #expect(try Self.settled(server))
        // Every record of every event answered 200, exactly once.
        #expect(try pg.count("SELECT count(*) FROM rulekit_history WHERE identity = 'load'") == answered)
        #expect(try pg.count("SELECT count(DISTINCT event_key) FROM rulekit_history WHERE identity = 'load'") == answered)
        #expect(try pg.count("SELECT version FROM rulekit_schema_version WHERE component = 'history'") == 5)
        #expect(try pg.summaryDisagreements() == 0)
    }

    /// A database of schema version 2 (records in the database's own collation, no summary) is brought to the
    /// current version when a server starts: the summary is filled from the records already there, the reads
    /// count from it, and identities and keys are compared byte for byte (version 4).
    @Test func aVersion2DatabaseGetsItsSummaryWhenAServerStarts() throws {
        let pg = try PostgresCluster()
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.dir) }
        do {
            let server = try Self.serve(pg, setup)
            defer { #expect(server.stop() == 0) }
            #expect(try Self.settled(server))
            let url = server.base.appendingPathComponent("v1/events")
            #expect(try HTTP.call(url, method: "POST", body: Self.batch("old", ids: 0..<2)).status == 200)
            #expect(try HTTP.call(url, method: "POST", body: Self.batch("other", ids: 0..<4)).status == 200)
        }
        let byteOrdered = """
            SELECT count(*) FROM information_schema.columns WHERE collation_name = 'C'
            AND (table_name, column_name) IN (('rulekit_history', 'identity'), ('rulekit_history', 'event_key'), ('rulekit_history_summary', 'identity'))
            """
        // A new database runs every step, the byte order last.
        #expect(try pg.count(byteOrdered) == 3)
        // Back to what a version-2 server left: the records alone, in the database's own collation.
        try pg.execute(
            """
            DROP TRIGGER rulekit_history_summary ON rulekit_history; DROP TRIGGER rulekit_history_forget ON rulekit_history;
            DROP TRIGGER rulekit_history_changed ON rulekit_history; DROP TRIGGER rulekit_history_clear ON rulekit_history;
            DROP TABLE rulekit_history_summary; UPDATE rulekit_schema_version SET version = 2 WHERE component = 'history';
            ALTER TABLE rulekit_history ALTER COLUMN identity TYPE TEXT COLLATE "default", ALTER COLUMN event_key TYPE TEXT COLLATE "default"
            """)
        #expect(try pg.count(byteOrdered) == 0)
        let server = try Self.serve(pg, setup)
        defer { #expect(server.stop() == 0) }
        #expect(try Self.settled(server))
        #expect(try pg.count("SELECT version FROM rulekit_schema_version WHERE component = 'history'") == 5)
        #expect(try pg.count(byteOrdered) == 3)
        #expect(try pg.summaryDisagreements() == 0)
        #expect(try pg.count("SELECT n FROM rulekit_history_summary WHERE identity = 'other'") == 4)
        let url = server.base.appendingPathComponent("v1/events")
        // Two visits are not three; a third is.
        #expect(!(try HTTP.call(url, method: "POST", body: Self.batch("old", ids: 0..<1, type: "check")).body.contains("returning")))
        #expect(try HTTP.call(url, method: "POST", body: Self.batch("old", ids: 2..<3)).status == 200)
        let check = try HTTP.call(url, method: "POST", body: Self.batch("old", ids: 1..<2, type: "check"))
        #expect(check.body.contains(#""returning":true"#))
        #expect(try pg.summaryDisagreements() == 0)
        // Records deleted, changed or emptied by hand leave the summary right.
        try pg.execute("DELETE FROM rulekit_history WHERE ctid IN (SELECT ctid FROM rulekit_history WHERE identity = 'other' LIMIT 1)")
        #expect(try pg.count("SELECT n FROM rulekit_history_summary WHERE identity = 'other'") == 3)
        try pg.execute(
            "UPDATE rulekit_history SET ts = ts + 1000, hash = hash + 1 WHERE ctid IN (SELECT ctid FROM rulekit_history WHERE identity = 'old' LIMIT 1)"
        )
        #expect(try pg.count("SELECT count(*) FROM rulekit_history_summary WHERE identity = 'old'") == 2)
        #expect(try pg.summaryDisagreements() == 0)
        try pg.execute("DELETE FROM rulekit_history WHERE identity = 'old'")
        #expect(try pg.count("SELECT count(*) FROM rulekit_history_summary WHERE identity = 'old'") == 0)
        #expect(try pg.summaryDisagreements() == 0)
        try pg.execute("TRUNCATE rulekit_history")
        #expect(try pg.count("SELECT count(*) FROM rulekit_history_summary") == 0)
    }

    @Test func aServerKilledDuringAnOutageReplaysItsSpoolAtTheNextStart() throws {
        let pg = try PostgresCluster()
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.dir) }
        let first = try Self.serve(pg, setup)
        #expect(try Self.settled(first))
        try pg.pause()
        let url = first.base.appendingPathComponent("v1/events")
        for k in 0..<5 {
            #expect(try HTTP.call(url, method: "POST", body: Self.batch("kill", ids: (k * 10)..<(k * 10 + 10))).status == 200)
        }
        #expect(try Self.metric(first, "rulekit_history_spool_records") == 50)
        first.kill()
        try pg.resume()
        let second = try Self.serve(pg, setup)
        defer { #expect(second.stop() == 0) }
        #expect(try Self.settled(second))
        #expect(try pg.count("SELECT count(*) FROM rulekit_history WHERE identity = 'kill'") == 50)
        // And what it replayed counts: a check now sees the visits.
        let check = try HTTP.call(
            second.base.appendingPathComponent("v1/events"), method: "POST", body: Self.batch("kill", ids: 0..<1, type: "check"))
        #expect(check.body.contains(#""returning":true"#))
    }

    @Test func aBatchPostedTwiceIsCountedOnce() throws {
        let pg = try PostgresCluster()
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.dir) }
        let server = try Self.serve(pg, setup)
        defer { #expect(server.stop() == 0) }
        let url = server.base.appendingPathComponent("v1/events")
        let body = Self.batch("twice", ids: 0..<2)
        #expect(try HTTP.call(url, method: "POST", body: body).status == 200)
        #expect(try HTTP.call(url, method: "POST", body: body).status == 200)
        #expect(try pg.count("SELECT count(*) FROM rulekit_history WHERE identity = 'twice'") == 2)
        #expect(try pg.summaryDisagreements() == 0)
        // Two visits are not three: the retry did not count.
        let check = try HTTP.call(url, method: "POST", body: Self.batch("twice", ids: 0..<1, type: "check"))
        #expect(!check.body.contains("returning"))
        // A batch of kept and new events: its write as new records fails on the kept keys, and the write
        // again keeps the new ones, once each; neither is a failure of the store.
        #expect(try HTTP.call(url, method: "POST", body: Self.batch("twice", ids: 0..<4)).status == 200)
        #expect(try pg.count("SELECT count(*) FROM rulekit_history WHERE identity = 'twice'") == 4)
        #expect(try pg.summaryDisagreements() == 0)
        #expect(try Self.metric(server, "rulekit_history_errors_total") == 0)
        #expect(try Self.metric(server, "rulekit_history_breaker_open") == 0)
    }

    @Test func twoServersShareOneIdentitysHistory() throws {
        let pg = try PostgresCluster()
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.dir) }
        let a = try Self.serve(pg, setup)
        var other = setup
        other.dir = setup.dir.appendingPathComponent("b")
        try FileManager.default.createDirectory(at: other.dir, withIntermediateDirectories: true)
        let b = try Self.serve(pg, other)
        defer {
            #expect(a.stop() == 0)
            #expect(b.stop() == 0)
        }
        #expect(try Self.settled(a) && Self.settled(b))
        // Batches for one identity on both servers at once: none lost, none doubled.
        let group = DispatchGroup()
        let statuses = Locked<[Int]>([])
        for (k, server) in [a, b, a, b, a, b].enumerated() {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                let reply = try? HTTP.call(
                    server.base.appendingPathComponent("v1/events"), method: "POST",
                    body: Self.batch("shared", ids: (k * 10)..<(k * 10 + 10)))
                statuses.withLock { $0.append(reply?.status ?? 0) }
            }
        }
        group.wait()
        #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 6))
        #expect(try pg.count("SELECT count(*) FROM rulekit_history WHERE identity = 'shared'") == 60)
        #expect(try pg.count("SELECT n FROM rulekit_history_summary WHERE identity = 'shared'") == 60)
        #expect(try pg.summaryDisagreements() == 0)
        // Once answered, every later block on either server sees them all (docs/serving.md).
        for server in [a, b] {
            let check = try HTTP.call(
                server.base.appendingPathComponent("v1/events"), method: "POST", body: Self.batch("shared", ids: 0..<1, type: "check"))
            #expect(check.body.contains(#""returning":true"#))
        }
    }
}
