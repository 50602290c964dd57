import Foundation
import RuleKitCore
import RuleKitPostbacks
import RuleKitTestSupport
import Testing

/// `rulekit serve --postbacks DIR` against a real receiver: hits queued before the batch is answered and
/// delivered by the server; through a `kill -9` with the receiver down, every hit arrives once after the
/// restart; an opted-out batch queues nothing; a person's erasure takes their queued hits.
@Suite(.serialized) struct ServePostbacksTests {
    static func batch(_ ids: Range<Int>, who: String = "ada", amount: Int = 1500) -> String {
        ids.map { i in
            #"{"id":"pb-\#(who)-\#(i)","name":"buy","type":"t","source":"s","data":{"amount":\#(amount),"xdm":{"identityMap":{"ECID":[{"id":"\#(who)"}]}}}}"#
        }.joined(separator: "\n")
    }

    static func serve(_ dir: URL, extra: [String] = []) throws -> ServeProcess {
        try ServeProcess(
            [
                "--rules", dir.appendingPathComponent("rules.yaml").path, "--history", "memory", "--identity", "xdm.identityMap.ECID.0.id",
                "--postbacks", dir.appendingPathComponent("queue").path,
            ] + extra)
    }

    static func metric(_ server: ServeProcess, _ name: String, token: String? = nil) throws -> Double? {
        let text = try HTTP.call(
            server.base.appendingPathComponent("metrics"), headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        ).body
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") { return Double(line.dropFirst(name.count + 1)) }
        return nil
    }

    static func post(_ server: ServeProcess, _ body: String) throws -> HTTP.Reply {
        try HTTP.call(server.base.appendingPathComponent("v1/events"), method: "POST", body: body)
    }

    @Test func aBatchsPostbacksAreDelivered() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        let receiver = try LocalServer(script: RunPostbacksTests.receiver)
        defer { receiver.stop() }
        let dir = try RunPostbacksTests.setUp(RunPostbacksTests.rules(receiver.base.absoluteString))
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try Self.serve(dir)
        defer { #expect(server.stop() == 0) }
        let r = try Self.post(server, Self.batch(0..<3))
        #expect(r.status == 200 && r.body.contains(#""type":"pb""#), "the consequence events are still answered")
        #expect(ServeContractTests.eventually { ((try? Self.metric(server, "rulekit_postbacks_delivered_total")) ?? 0) == 6 })
        let seen = try RunPostbacksTests.log(receiver)
        #expect(seen.count == 6 && Set(seen.compactMap { $0["key"]?.stringValue }).count == 6)
        #expect(try Self.metric(server, "rulekit_postbacks_queued") == 0)
        #expect(try Self.metric(server, "rulekit_postbacks_refused_total") == 3, "the pii to http, once per event")
        let ready = try JSONReader.value(try HTTP.call(server.base.appendingPathComponent("readyz")).body)
        #expect(ready["postbacks"]?["depth"] == 0)
        // An opted-out batch queues nothing.
        let envelope = #"{"events":[\#(Self.batch(10..<11))],"states":{"com.adobe.module.configuration":{"global.privacy":"optedout"}}}"#
        #expect(try Self.post(server, envelope).status == 200)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try RunPostbacksTests.log(receiver).count == 6)
    }

    @Test func deadLettersAreListedRetriedAndPurgedByAnAdmin() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        let receiver = try LocalServer(script: RunPostbacksTests.receiver)
        defer { receiver.stop() }
        // Each hit of `tell-partner` is refused (400) the first time its key is sent, then taken.
        let dir = try RunPostbacksTests.setUp(RunPostbacksTests.rules(receiver.base.absoluteString, path: "_fail/1/400/hook"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let admins = dir.appendingPathComponent("admins")
        let ingest = dir.appendingPathComponent("ingest")
        try "admin\n".write(to: admins, atomically: true, encoding: .utf8)
        try "ingest\n".write(to: ingest, atomically: true, encoding: .utf8)
        let server = try Self.serve(dir, extra: ["--admin-token-file", admins.path, "--auth-token-file", ingest.path])
        defer { #expect(server.stop() == 0) }
        let dead = server.base.appendingPathComponent("v1/postbacks/dead")
        let admin = ["Authorization": "Bearer admin"]
        let r = try HTTP.call(
            server.base.appendingPathComponent("v1/events"), method: "POST", body: Self.batch(0..<2),
            headers: ["Authorization": "Bearer ingest"])
        #expect(r.status == 200)
        #expect(ServeContractTests.eventually { ((try? Self.metric(server, "rulekit_postbacks_dead_letters", token: "ingest")) ?? 0) == 2 })
        #expect(try HTTP.call(dead).status == 401)
        #expect(try HTTP.call(dead, headers: ["Authorization": "Bearer ingest"]).status == 403, "an ingest token is not an admin's")
        let listed = try HTTP.call(dead, headers: admin)
        #expect(listed.status == 200)
        let lines = try listed.body.split(separator: "\n").map { try JSONReader.value(String($0)) }
        #expect(lines.count == 2 && lines.allSatisfy { $0["lastError"]?.stringValue?.contains("HTTP 400") == true })
        #expect(lines.allSatisfy { $0["body"] == nil && $0["key"]?.stringValue?.isEmpty == false }, "no body is shown")
        // Sent again: the receiver takes each key the second time.
        let retried = try HTTP.call(server.base.appendingPathComponent("v1/postbacks/dead/retry"), method: "POST", headers: admin)
        #expect(retried.status == 200)
        #expect(try JSONReader.value(retried.body)["retried"] == 2)
        #expect(
            ServeContractTests.eventually { ((try? Self.metric(server, "rulekit_postbacks_delivered_total", token: "ingest")) ?? 0) == 4 })
        #expect(try Self.metric(server, "rulekit_postbacks_dead_letters", token: "ingest") == 0)
        let keys = try RunPostbacksTests.log(receiver).filter { $0["path"]?.stringValue?.contains("hook") == true }.compactMap {
            $0["key"]?.stringValue
        }
        #expect(keys.count == 4 && Set(keys).count == 2, "each refused hit sent again under its key")
        let purged = try HTTP.call(dead, method: "DELETE", headers: admin)
        #expect(purged.status == 200)
        #expect(try JSONReader.value(purged.body)["purged"] == 0)
        #expect(try HTTP.call(dead, method: "PUT", headers: admin).status == 405)
    }

    @Test func hitsQueuedWhileTheReceiverIsDownArriveAfterAKill() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        let gone = try LocalServer(script: RunPostbacksTests.receiver)
        gone.stop()
        let dir = try RunPostbacksTests.setUp(RunPostbacksTests.rules(gone.base.absoluteString))
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try Self.serve(dir)
        #expect(try Self.post(first, Self.batch(0..<2)).status == 200)
        #expect(try Self.post(first, Self.batch(0..<1, who: "bob")).status == 200)
        #expect(try Self.metric(first, "rulekit_postbacks_queued") == 6)
        // A person's erasure takes their queued hits (an admin token is needed for it).
        let admins = dir.appendingPathComponent("admins")
        try "admin\n".write(to: admins, atomically: true, encoding: .utf8)
        first.kill()
        let second = try Self.serve(dir, extra: ["--admin-token-file", admins.path])
        let erased = try HTTP.call(
            second.base.appendingPathComponent("v1/history/bob"), method: "DELETE", headers: ["Authorization": "Bearer admin"])
        #expect(erased.status == 200)
        #expect(try Self.metric(second, "rulekit_postbacks_queued") == 4, "bob's two hits purged")
        second.kill()
        // The receiver comes back; a third server delivers what the killed ones queued, each key once.
        let back = try LocalServer(script: RunPostbacksTests.receiver, arguments: ["--port", String(gone.port)])
        defer { back.stop() }
        let third = try Self.serve(dir)
        defer { #expect(third.stop() == 0) }
        #expect(ServeContractTests.eventually(seconds: 30) { ((try? Self.metric(third, "rulekit_postbacks_queued")) ?? -1) == 0 })
        let seen = try RunPostbacksTests.log(back)
        #expect(seen.count == 4 && Set(seen.compactMap { $0["key"]?.stringValue }).count == 4, "\(seen)")
        #expect(seen.allSatisfy { $0["path"]?.stringValue?.contains("amount=1500") == true })
    }
}
