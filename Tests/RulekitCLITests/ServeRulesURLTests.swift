import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// A serve fleet on one rules URL: two servers poll a real publisher, converge on a new publish within a
/// poll, refuse a broken publish while they keep answering, say which version they run, and start from the
/// cache when the publisher is down.
@Suite(.serialized) struct ServeRulesURLTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let event = #"{"name":"e","type":"t","source":"s","data":{}}"#

    static func rules(_ tag: String) -> String {
        "rules:\n  - {id: tag, when: {key: ~type, eq: t}, then: [{add: {tagged: \(tag)}}]}\n"
    }

    /// Packs `text` as the publisher's rules.zip (written whole, as a publish is).
    static func publish(_ text: String, to root: URL) throws {
        let source = root.appendingPathComponent("src-\(UUID()).yaml")
        try text.write(to: source, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: source) }
        let r = try CLIRunner.run(["pack", source.path, "--out", root.appendingPathComponent("rules.zip").path])
        #expect(r.status == 0, "\(r.transcript)")
    }

    /// Polls `server` until `done` holds for its answer to the test event (at most `seconds`).
    static func await(_ server: ServeProcess, seconds: Double, _ done: (String) -> Bool) throws -> String {
        let url = server.base.appendingPathComponent("v1/events")
        var body = try HTTP.call(url, method: "POST", body: event).body
        let end = Date().addingTimeInterval(seconds)
        while !done(body), Date() < end {
            Thread.sleep(forTimeInterval: 0.05)
            body = try HTTP.call(url, method: "POST", body: event).body
        }
        return body
    }

    @Test func twoServersConvergeOnAPublishAndRefuseABrokenOne() throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the rules publisher) is not available")
            return
        }
        let root = Scratch.url("rk-fleet-\(UUID())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.publish(Self.rules("one"), to: root)
        let publisher = try LocalServer(
            script: Self.fixtures.appendingPathComponent("rules_publisher.py"), arguments: ["--root", root.path])
        let url = "http://127.0.0.1:\(publisher.port)/rules.zip"
        let servers = try (0..<2).map { i in
            try ServeProcess([
                "--history", "memory", "--rules", url, "--rules-poll", "200ms",
                "--rules-cache", root.appendingPathComponent("cache-\(i)").path,
            ])
        }
        defer { for s in servers { s.stop() } }
        for s in servers {
            #expect(try Self.await(s, seconds: 0) { $0.contains(#""tagged":"one""#) }.contains(#""tagged":"one""#))
            let status = try JSONReader.value(try HTTP.call(s.base.appendingPathComponent("v1/rules")).body)
            #expect(status["sources"]?[0]?["url"]?.stringValue == url)
            #expect(status["sources"]?[0]?["etag"]?.stringValue?.isEmpty == false)
            let ready = try JSONReader.value(try HTTP.call(s.base.appendingPathComponent("readyz")).body)
            #expect(ready["rules"]?["sources"]?[0]?["bodyHash"] == status["sources"]?[0]?["bodyHash"])
        }

        // A new publish: both servers run it within a few polls, without a restart.
        try Self.publish(Self.rules("two"), to: root)
        for s in servers {
            #expect(try Self.await(s, seconds: 10) { $0.contains(#""tagged":"two""#) }.contains(#""tagged":"two""#), "\(s.stderrText())")
        }
        let metrics = try HTTP.call(servers[0].base.appendingPathComponent("metrics")).body
        #expect(metrics.contains("rulekit_rules_version_info{url=\"\(url)\""), "\(metrics)")

        // A broken publish: refused by both, which keep answering with the last good version.
        try "rules:\n  - {id: tag, when: {key: ~type, eqq: t}\n".write(
            to: root.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        let zipped = try CLIRunner.run([
            "pack", root.appendingPathComponent("bad.yaml").path, "--out", root.appendingPathComponent("x.zip").path,
        ])
        #expect(zipped.status != 0)
        try Data("PK\u{05}\u{06}".utf8 + Data(count: 18)).write(to: root.appendingPathComponent("rules.zip"))
        for s in servers {
            var status = try JSONReader.value(try HTTP.call(s.base.appendingPathComponent("v1/rules")).body)
            for _ in 0..<200 where status["lastAttempt"]?["loaded"] != false {
                Thread.sleep(forTimeInterval: 0.05)
                status = try JSONReader.value(try HTTP.call(s.base.appendingPathComponent("v1/rules")).body)
            }
            #expect(status["lastAttempt"]?["loaded"] == false, "\(status)")
            #expect(try Self.await(s, seconds: 0) { _ in true }.contains(#""tagged":"two""#))
        }

        // A new server while the broken publish is up: it starts on the cached version that loaded.
        let fallback = try ServeProcess([
            "--history", "memory", "--rules", url, "--rules-cache", root.appendingPathComponent("cache-1").path,
        ])
        #expect(try Self.await(fallback, seconds: 0) { _ in true }.contains(#""tagged":"two""#), "\(fallback.stderrText())")
        fallback.stop()

        // The publisher gone: a new server starts from its cache, and says so.
        publisher.stop()
        let cached = try ServeProcess([
            "--history", "memory", "--rules", url, "--rules-cache", root.appendingPathComponent("cache-0").path,
        ])
        defer { cached.stop() }
        #expect(try Self.await(cached, seconds: 0) { _ in true }.contains(#""tagged":"two""#))
        let status = try JSONReader.value(try HTTP.call(cached.base.appendingPathComponent("v1/rules")).body)
        #expect(status["sources"]?[0]?["fromCache"] == true)
    }
}
