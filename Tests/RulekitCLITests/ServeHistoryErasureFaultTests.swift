import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// Erasures on PostgreSQL under faults: asked while the store is down (503, nothing changed; the records
/// spooled meanwhile do not come back once it returns), and asked of one server while another writes the
/// same identity (no record timestamped before the erasure survives it).
extension ServeHistoryFaultTests {
    static func serveWithAdmin(_ pg: PostgresCluster, _ setup: (rules: URL, dir: URL)) throws -> ServeProcess {
        let admins = setup.dir.appendingPathComponent("admins")
        try "admin\n".write(to: admins, atomically: true, encoding: .utf8)
        return try ServeProcess([
            "--rules", setup.rules.path, "--history", pg.url, "--identity", "xdm.identityMap.ECID.0.id", "--history-spool",
            setup.dir.appendingPathComponent("history.spool").path, "--history-timeout", "500", "--admin-token-file", admins.path,
        ])
    }

    static func erase(_ server: ServeProcess, _ who: String) throws -> HTTP.Reply {
        try HTTP.call(
            server.base.appendingPathComponent("v1/history/\(who)"), method: "DELETE", headers: ["Authorization": "Bearer admin"])
    }

    /// Records of `who` timestamped at or before one of its erasures: none may exist.
    static func survivors(_ pg: PostgresCluster, _ who: String) throws -> Int {
        try pg.count(
            """
            SELECT count(*) FROM rulekit_history h JOIN rulekit_history_tombstones t
                ON t.identity_digest = encode(sha256(convert_to(h.identity, 'UTF8')), 'hex')
            WHERE h.identity = '\(who)' AND h.ts <= t.at
            """)
    }

    @Test func anErasureWhileTheStoreIsDownIsA503AndTheSpoolDoesNotBringTheRecordsBack() throws {
        let pg = try PostgresCluster()
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.dir) }
        let server = try Self.serveWithAdmin(pg, setup)
        defer { #expect(server.stop() == 0) }
        #expect(try Self.settled(server))
        let url = server.base.appendingPathComponent("v1/events")
        #expect(try HTTP.call(url, method: "POST", body: Self.batch("gone", ids: 0..<2)).status == 200)
        try pg.pause()
        #expect(try HTTP.call(url, method: "POST", body: Self.batch("gone", ids: 2..<7)).status == 200)
        #expect(try Self.metric(server, "rulekit_history_spool_records") == 5)
        let down = try Self.erase(server, "gone")
        #expect(down.status == 503 && down.headers["retry-after"] != nil && down.body.contains("nothing was changed"), "\(down.body)")
        try pg.resume()
        // The client retries until the store answers; the records spooled before the erasure are then
        // erased or dropped on replay, whichever comes first.
        var answered = false
        for _ in 0..<300 where !answered {
            answered = try Self.erase(server, "gone").status == 200
            if !answered { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(answered)
        #expect(try Self.settled(server))
        #expect(try pg.count("SELECT count(*) FROM rulekit_history WHERE identity = 'gone'") == 0)
        #expect(try pg.summaryDisagreements() == 0)
        let check = try HTTP.call(url, method: "POST", body: Self.batch("gone", ids: 0..<1, type: "check"))
        #expect(check.status == 200 && !check.body.contains("returning"))
    }

    @Test func anErasureOnOneServerWhileAnotherWritesLeavesNothingBeforeIt() throws {
        let pg = try PostgresCluster()
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.dir) }
        let a = try Self.serve(pg, setup)
        var other = setup
        other.dir = setup.dir.appendingPathComponent("b")
        try FileManager.default.createDirectory(at: other.dir, withIntermediateDirectories: true)
        let b = try Self.serveWithAdmin(pg, other)
        defer {
            #expect(a.stop() == 0)
            #expect(b.stop() == 0)
        }
        #expect(try Self.settled(a) && Self.settled(b))
        let statuses = Locked<[Int]>([])
        let stop = Locked(false)
        let group = DispatchGroup()
        for worker in 0..<2 {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                var k = 0
                while !stop.withLock({ $0 }) {
                    let body = Self.batch("busy", ids: (worker * 100_000 + k * 20)..<(worker * 100_000 + k * 20 + 20))
                    let status = (try? HTTP.call(a.base.appendingPathComponent("v1/events"), method: "POST", body: body).status) ?? 0
                    statuses.withLock { $0.append(status) }
                    k += 1
                }
            }
        }
        Thread.sleep(forTimeInterval: 0.5)
        var erased: [Int] = []
        for _ in 0..<3 {
            let r = try Self.erase(b, "busy")
            #expect(r.status == 200, "\(r.body)")
            erased.append((try JSONReader.value(r.body))["deleted"]?.intValue.map(Int.init) ?? -1)
            Thread.sleep(forTimeInterval: 0.3)
        }
        stop.withLock { $0 = true }
        group.wait()
        #expect(try Self.settled(a))
        #expect(statuses.withLock { $0 }.allSatisfy { $0 == 200 }, "every batch answered")
        #expect(erased[0] > 0, "the load wrote records before the first erasure: \(erased)")
        #expect(try Self.survivors(pg, "busy") == 0)
        #expect(try pg.summaryDisagreements() == 0)
    }
}
