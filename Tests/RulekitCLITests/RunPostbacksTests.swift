import Foundation
import RuleKitCore
import RuleKitPostbacks
import RuleKitTestSupport
import Testing

/// `rulekit run --send-postbacks` against a real receiver on 127.0.0.1 (Fixtures/postback_receiver.py):
/// sent in order with their idempotency keys, retried on 503 and 429, dead-lettered on 400, kept in
/// `--data-dir`'s queue while the receiver is down and delivered by the next run; pii over http refused.
@Suite(.serialized) struct RunPostbacksTests {
    static let receiver = SharedCorpus.repositoryRoot.appendingPathComponent("Tests/RulekitCLITests/Fixtures/postback_receiver.py")

    static func rules(_ base: String, path: String = "hook") -> String {
        """
        rules:
          - id: big-purchase
            when: {key: amount, gt: 1000}
            then:
              - id: tell-partner
                type: pb
                detail:
                  templateurl: "\(base)/\(path)?amount={%amount%}"
                  templatebody: '{"amount": {%amount%}}'
                  timeout: 20
              - id: tell-partner-get
                type: pb
                detail: {templateurl: "\(base)/get?amount={%amount%}", timeout: 20}
              - id: plain-pii
                type: pii
                detail: {templateurl: "\(base)/pii"}

        """
    }

    static let events = """
        {"id":"e1","name":"buy","type":"t","source":"s","data":{"amount":1500}}
        {"id":"e2","name":"buy","type":"t","source":"s","data":{"amount":10}}
        {"id":"e3","name":"buy","type":"t","source":"s","data":{"amount":2000}}

        """

    static func setUp(_ rules: String) throws -> URL {
        let dir = Scratch.url("rk-pb-run-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try rules.write(to: dir.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        try events.write(to: dir.appendingPathComponent("events.jsonl"), atomically: true, encoding: .utf8)
        return dir
    }

    static func log(_ server: LocalServer) throws -> [Value] {
        let body = try HTTP.call(server.base.appendingPathComponent("_log")).body
        return try JSONReader.value(body).arrayValue ?? []
    }

    static func run(_ dir: URL, _ extra: [String] = []) throws -> CLIRunner.Output {
        try CLIRunner.run(
            // A generous wait (the last --postbacks-wait given wins): under the sanitizers on two cores a
            // receiver's answer can take seconds, and retries back off past the default 30 s.
            ["run", "--rules", dir.appendingPathComponent("rules.yaml").path, "--send-postbacks", "--postbacks-wait", "900"] + extra
                + [dir.appendingPathComponent("events.jsonl").path])
    }

    @Test func postbacksAreSentInOrderRetriedAndKeyedByTheirEvent() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        let server = try LocalServer(script: Self.receiver)
        defer { server.stop() }
        let dir = try Self.setUp(Self.rules(server.base.absoluteString, path: "_fail/1/503/hook"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = try Self.run(dir)
        #expect(first.status == 0, "\(first.transcript)")
        #expect(first.stderr.contains("a pii consequence (plain-pii) to a URL that is not https: not sent"))
        let seen = try Self.log(server)
        let hooks = seen.filter { $0["path"]?.stringValue?.contains("hook") == true }
        let gets = seen.filter { $0["path"]?.stringValue?.hasPrefix("/get") == true }
        #expect(hooks.count == 4 && gets.count == 2, "each hook once refused with 503, then delivered: \(seen)")
        #expect(hooks.allSatisfy { $0["method"] == "POST" && $0["contentType"] == "application/json" })
        #expect(gets.allSatisfy { $0["method"] == "GET" && $0["body"] == "" })
        #expect(hooks.first?["body"] == #"{"amount": 1500}"#)
        // One receiver, in order: e1's postbacks (its retry included) before e3's.
        let order = seen.compactMap { $0["path"]?.stringValue }
        #expect(order.firstIndex(of: "/get?amount=1500")! < order.firstIndex(of: "/_fail/1/503/hook?amount=2000")!)
        // The retry carried the same key; a second run of the same events sends the same keys.
        let keys = hooks.compactMap { $0["key"]?.stringValue }
        #expect(keys[0] == keys[1] && Set(keys).count == 2)
        let second = try Self.run(dir)
        #expect(second.status == 0, "\(second.transcript)")
        let again = try Self.log(server).filter { $0["path"]?.stringValue?.contains("hook") == true }.compactMap { $0["key"]?.stringValue }
        #expect(Set(again) == Set(keys), "the same events, the same idempotency keys")
    }

    @Test func theOutboundRulesSeeEachPostbackOnceAsItIsQueued() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        let server = try LocalServer(script: Self.receiver)
        defer { server.stop() }
        let outbound = """
              - id: label-partner-hits
                when: {key: ~type, eq: com.rulekit.eventType.outbound}
                then:
                  - mod:
                      body: {source: rulekit}
                      headers: {Content-Type: application/vnd.partner+json}

            """
        let dir = try Self.setUp(Self.rules(server.base.absoluteString) + outbound)
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try Self.run(dir)
        #expect(result.status == 0, "\(result.transcript)")
        let hooks = try Self.log(server).filter { $0["path"]?.stringValue?.hasPrefix("/hook") == true }
        #expect(hooks.count == 2, "\(hooks)")
        #expect(hooks.allSatisfy { $0["contentType"] == "application/vnd.partner+json" })
        let bodies = try hooks.map { try JSONReader.value($0["body"]?.stringValue ?? "") }
        #expect(bodies == [["amount": 1500, "source": "rulekit"], ["amount": 2000, "source": "rulekit"]])
    }

    @Test func aRefusedPostbackIsADeadLetterAndTheRunSaysSo() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        let server = try LocalServer(script: Self.receiver)
        defer { server.stop() }
        let dir = try Self.setUp(Self.rules(server.base.absoluteString, path: "_status/400/hook"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path
        let r = try Self.run(dir, ["--data-dir", data])
        #expect(r.status == 1 && r.stderr.contains("not delivered: HTTP 400"), "\(r.transcript)")
        do {
            let queue = try PostbackQueue(directory: data)
            #expect(try queue.deadLetters().count == 2 && queue.depth() == 0)
            let held = try CLIRunner.run(["postbacks", "status", "--dir", data])
            #expect(held.status == 2 && held.stderr.contains("in use by another process"), "a held queue is refused: \(held.transcript)")
        }
        #expect(try Self.log(server).filter { $0["path"]?.stringValue?.contains("hook") == true }.count == 2, "a 400 is not retried")
        // `rulekit postbacks` on the queue at rest: the dead letters listed (no body), retried, purged.
        let dead = try CLIRunner.run(["postbacks", "dead", "--dir", data])
        let lines = dead.stdout.split(separator: "\n").compactMap { try? JSONReader.value(String($0)) }
        #expect(dead.status == 0 && lines.count == 2, "\(dead.transcript)")
        #expect(lines.allSatisfy { $0["lastError"]?.stringValue?.contains("HTTP 400") == true })
        #expect(!dead.stdout.contains("amount\":"), "bodies are left out")
        #expect(try CLIRunner.run(["postbacks", "retry", "--dir", data]).stdout.contains("retried 2 dead letters"))
        let status = try CLIRunner.run(["postbacks", "status", "--dir", data])
        #expect(try JSONReader.value(status.stdout)["queued"] == .int(2), "\(status.transcript)")
        // The next run sends the retried hits first (400 again); its own hits have their keys, so are not queued twice.
        _ = try Self.run(dir, ["--data-dir", data])
        #expect(try CLIRunner.run(["postbacks", "purge", "--dir", data]).stdout.contains("purged 2 dead letters"))
        #expect(try CLIRunner.run(["postbacks", "status", "--dir", dir.path]).status == 2, "no queue there")
    }

    @Test func whatTheReceiverDoesNotTakeWaitsInTheQueueForTheNextRun() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        // A port nothing listens on: a server started and stopped.
        let gone = try LocalServer(script: Self.receiver)
        let downBase = gone.base.absoluteString
        gone.stop()
        let dir = try Self.setUp(Self.rules(downBase))
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path
        let r = try Self.run(dir, ["--data-dir", data, "--postbacks-wait", "1"])
        #expect(r.status == 1 && r.stderr.contains("not delivered yet"), "\(r.transcript)")
        #expect(try PostbackQueue(directory: data).depth() == 4)
        // The receiver comes back where it was: the next run (no new event) delivers what was queued.
        let back = try LocalServer(script: Self.receiver, arguments: ["--port", String(gone.port)])
        defer { back.stop() }
        let empty = dir.appendingPathComponent("none.jsonl")
        try "".write(to: empty, atomically: true, encoding: .utf8)
        let again = try CLIRunner.run([
            "run", "--rules", dir.appendingPathComponent("rules.yaml").path, "--send-postbacks", "--data-dir", data, empty.path,
        ])
        #expect(again.status == 0, "\(again.transcript)")
        #expect(try PostbackQueue(directory: data).depth() == 0)
        let seen = try Self.log(back)
        #expect(seen.count == 4 && Set(seen.compactMap { $0["key"]?.stringValue }).count == 4, "each queued hit once")
    }

    /// Receivers' secrets from files: each receiver's headers (and `*`'s) and an HMAC-SHA256 signature a
    /// receiver can check with the same key; a malformed headers file is exit 2 at its line, naming no value.
    @Test func headersAndSignaturesComeFromFiles() throws {
        guard LocalServer.isAvailable else {
            Issue.record("python3 is needed for the postback receiver")
            return
        }
        let server = try LocalServer(script: Self.receiver)
        defer { server.stop() }
        let dir = try Self.setUp(Self.rules(server.base.absoluteString))
        defer { try? FileManager.default.removeItem(at: dir) }
        let headers = dir.appendingPathComponent("headers.txt")
        let secret = dir.appendingPathComponent("secret.txt")
        try "# partners\n127.0.0.1:\(server.port) Authorization: Bearer t0ken\n* X-Partner: acme\nelse.test:443 X-Other: no\n"
            .write(to: headers, atomically: true, encoding: .utf8)
        try "sekrit\n".write(to: secret, atomically: true, encoding: .utf8)
        let r = try Self.run(dir, ["--postbacks-headers", headers.path, "--postbacks-secret", secret.path])
        #expect(r.status == 0, "\(r.transcript)")
        #expect(!r.transcript.contains("t0ken") && !r.transcript.contains("sekrit"), "secrets are never printed")
        let seen = try Self.log(server)
        #expect(seen.count == 4)
        for hit in seen {
            #expect(hit["authorization"] == "Bearer t0ken" && hit["partner"] == "acme")
            let key = Array((hit["key"]?.stringValue ?? "").utf8)
            let body = Array((hit["body"]?.stringValue ?? "").utf8)
            let expected = PostbackReceivers.signature(
                of: Postback(
                    key: String(decoding: key, as: UTF8.self), kind: .pb, url: "http://x.test/", body: String(decoding: body, as: UTF8.self)
                ),
                secret: Array("sekrit".utf8))
            #expect(hit["signature"]?.stringValue == expected)
        }
        try "127.0.0.1:\(server.port) Authorization Bearer t0ken\n".write(to: headers, atomically: true, encoding: .utf8)
        let bad = try Self.run(dir, ["--postbacks-headers", headers.path])
        #expect(bad.status == 2 && bad.stderr.contains("headers.txt:1:1") && !bad.stderr.contains("t0ken"), "\(bad.transcript)")
    }
}
