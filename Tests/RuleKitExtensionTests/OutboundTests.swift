import Foundation
import RuleKitCore
import RuleKitFetch
import RuleKitHub
import RuleKitTestSupport
import Testing

@testable import RuleKitExtension

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Outbound messages through the rules' outbound stage and real transports; HTTP against a local server
/// on 127.0.0.1.
@Suite(.serialized) struct OutboundTests {
    static let rules = """
        rules:
          - id: strip-pii
            when: {key: ~type, eq: com.rulekit.eventType.outbound}
            then:
              - mod:
                  body: {email: null}
                  headers: {X-Consent: granted}
        """

    static func control() throws -> (EventHub, RulesControl) {
        let file = Scratch.url("rk-out-\(UUID()).yaml")
        try rules.write(to: file, atomically: true, encoding: .utf8)
        let hub = EventHub()
        let done = Locked(false)
        hub.registerExtensions(factories: [RulesExtension.factory(.init(sources: [file.path]))]) { _ in done.withLock { $0 = true } }
        let end = Date().addingTimeInterval(30)
        while !done.withLock({ $0 }) && Date() < end { Thread.sleep(forTimeInterval: 0.005) }
        let control = try #require(hub.api(named: RulesExtension.extensionName, as: RulesControl.self))
        // Rules take effect at their reset event.
        while control.ruleCount == 0 && Date() < end { Thread.sleep(forTimeInterval: 0.005) }
        return (hub, control)
    }

    static let message = OutboundMessage(
        url: "http://127.0.0.1/collect", headers: ["X-Trace": "1"],
        body: ["event": "purchase", "email": "ada@example.com", "total": 12.5])

    @Test func rulesStripFieldsAndAddHeadersBeforeAMessageLeaves() throws {
        let (hub, control) = try Self.control()
        let out = withExtendedLifetime(hub) { control.outbound(Self.message) }
        #expect(out.body == ["event": "purchase", "total": 12.5])
        #expect(out.headers == ["X-Trace": "1", "X-Consent": "granted"])
    }

    @Test func jsonLinesTransportWritesOneLinePerMessage() async throws {
        let path = Scratch.url("rk-out-\(UUID()).jsonl").path
        let transport = try JSONLinesTransport(path: path)
        _ = try await OutboundPipeline(rules: nil, transport: transport).send(Self.message)
        _ = try await OutboundPipeline(rules: nil, transport: transport).send(Self.message)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(try JSONReader.value(String(lines[0])) == Self.message.value)
    }

    /// The collection endpoint (`Fixtures/http_server.py`) and its request log.
    final class Server {
        let server: LocalServer
        var port: Int { server.port }

        init() throws {
            server = try LocalServer(
                script: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .appendingPathComponent("Fixtures/http_server.py"))
        }

        func log() async throws -> [Value] {
            let url = URL(string: "http://127.0.0.1:\(port)/log")!
            let data: Data = try await withCheckedThrowingContinuation { c in
                URLSession(configuration: .ephemeral).dataTask(with: url) { d, _, e in
                    if let e { c.resume(throwing: e) } else { c.resume(returning: d ?? Data()) }
                }.resume()
            }
            return try JSONReader.read([UInt8](data)).value.arrayValue ?? []
        }

        func stop() { server.stop() }
    }

    @Test func httpTransportDeliversTheModifiedMessageAndRetriesOnlyServerErrors() async throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the local test server) is not available")
            return
        }
        let server = try Server()
        defer { server.stop() }
        let (hub, control) = try Self.control()
        let transport = HTTPTransport(maxAttempts: 4, initialBackoff: 0.01)
        let pipeline = OutboundPipeline(rules: control, transport: transport)
        var m = Self.message
        m.url = "http://127.0.0.1:\(server.port)/ok"
        #expect(try await pipeline.send(m) == 200)
        m.url = "http://127.0.0.1:\(server.port)/flaky"
        #expect(try await pipeline.send(m) == 200)
        m.url = "http://127.0.0.1:\(server.port)/bad"
        await #expect(throws: TransportError.self) { try await pipeline.send(m) }
        withExtendedLifetime(hub) {}
        let log = try await server.log()
        #expect(log.map { $0["path"]?.stringValue ?? "" } == ["/ok", "/flaky", "/flaky", "/flaky", "/bad"])
        let first = try #require(log.first)
        #expect(try JSONReader.value(first["body"]?.stringValue ?? "") == ["event": "purchase", "total": 12.5])
        #expect(first["headers"]?["X-Consent"] == "granted")
        #expect(first["headers"]?["X-Trace"] == "1")
        // Nothing listens there any more: network errors are retried, then reported.
        m.url = "http://127.0.0.1:9/ok"
        await #expect(throws: TransportError.self) { try await pipeline.send(m) }
        await transport.shutdown()
    }
}
