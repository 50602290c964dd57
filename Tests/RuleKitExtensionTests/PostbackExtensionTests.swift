import Foundation
import RuleKitCore
import RuleKitFetch
import RuleKitHub
import RuleKitPostbacks
import RuleKitTestSupport
import Testing

@testable import RuleKitExtension

/// The postback extension in a hub host, against a real receiver on 127.0.0.1
/// (`RulekitCLITests/Fixtures/postback_receiver.py`), a real queue on disk and `HTTPPostbackTransport`:
/// consequences passed over before a configuration, hits through the outbound rules (a JSON body changed, a
/// text body kept), `url` to the host's opener, `pii` over http refused, an opt-out that clears the queue
/// and sends nothing until the device opts in again.
@Suite(.serialized) struct PostbackExtensionTests {
    static let receiverScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../RulekitCLITests/Fixtures/postback_receiver.py").standardized

    static func rules(_ base: String) -> String {
        """
        rules:
          - id: big-purchase
            when: {key: amount, gt: 1000}
            then:
              - id: tell-partner
                type: pb
                detail:
                  templateurl: "\(base)/hook?amount={%amount%}"
                  templatebody: '{"amount": {%amount%}, "email": "ada@example.com"}'
                  timeout: 20
              - id: tell-partner-text
                type: pb
                detail: {templateurl: "\(base)/text", templatebody: "amount={%amount%}", contenttype: text/plain, timeout: 20}
              - id: open-thanks
                type: url
                detail: {url: "https://example.com/thanks?amount={%amount%}"}
              - id: plain-pii
                type: pii
                detail: {templateurl: "\(base)/pii"}
          - id: stuck
            when: {key: stuck, eq: true}
            then:
              - id: never-answered-well
                type: pb
                detail: {templateurl: "\(base)/_status/503/stuck", timeout: 20}
          - id: strip-email
            when: {key: ~type, eq: com.rulekit.eventType.outbound}
            then:
              - mod:
                  body: {email: null}
        """
    }

    /// Waits for `condition` without holding a thread of the cooperative pool: the delivery's task needs one,
    /// and on two cores a test that sleeps on its thread can take the last.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    static func log(_ port: Int) throws -> [Value] {
        let data = try Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/_log")!)
        return try JSONReader.value(String(decoding: data, as: UTF8.self)).arrayValue ?? []
    }

    static func paths(_ port: Int) throws -> [String] {
        try log(port).compactMap { $0["path"]?.stringValue }
    }

    @Test func aHubHostSendsItsRulesPostbacksAndAnOptOutClearsThem() async throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the postback receiver) is not available")
            return
        }
        let server = try LocalServer(script: Self.receiverScript)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let folder = try RulesExtensionTests.folder(["rules.yaml": Self.rules(base)])
        let queueDir = Scratch.url("rk-pb-ext-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: queueDir) }
        let queue = try PostbackQueue(directory: queueDir)
        let transport = try HTTPPostbackTransport()
        var postbacks = PostbackExtension.Configuration(queue: queue, transport: transport)
        postbacks.policy.firstDelay = 0.05
        postbacks.policy.maxDelay = 0.2
        postbacks.policy.maxAttempts = 100_000
        postbacks.poll = .milliseconds(20)
        let opened = Locked<[String]>([])
        postbacks.openURL = { url in opened.withLock { $0.append(url) } }

        let hub = EventHub()
        let configuration = Locked<ConfigurationOnDemand?>(nil)
        let done = Locked(false)
        hub.registerExtensions(
            factories: PostbackExtension.factories(rules: .init(sources: [folder]), postbacks: postbacks) + [
                { runtime in
                    let e = ConfigurationOnDemand(runtime: runtime)
                    configuration.withLock { $0 = e }
                    return e
                }
            ]
        ) { _ in done.withLock { $0 = true } }
        #expect(await Self.eventually(30) { done.withLock { $0 } })
        let config = try #require(configuration.withLock { $0 })
        let control = try #require(hub.api(named: RulesExtension.extensionName, as: RulesControl.self))
        #expect(await Self.eventually(30) { control.ruleCount == 3 })
        func buy(_ amount: Int) { hub.dispatch(Event(name: "buy", type: "t", source: "s", data: ["amount": .int(Int64(amount))])) }
        func hooks() throws -> [String] { try Self.paths(server.port).filter { $0.hasPrefix("/hook") } }
        let wait = 120.0

        // No configuration yet: passed over, as the reference does.
        buy(1001)
        // The postback extension has heard its consequences before the configuration is published: a first
        // state published without an event is version 0, which every event reads (launch-rules-reference §9),
        // so a consequence heard after the publish would be sent. The first settle is delivered once the rules
        // have run on the buy (its consequences are numbered then, after the settle); the second is numbered
        // after them, and an extension hears events in their order.
        #expect(RulesExtensionTests.settle(hub))
        #expect(RulesExtensionTests.settle(hub))
        config.publish(["global.privacy": "optedin"])
        buy(1500)
        #expect(await Self.eventually(wait) { ((try? hooks()) ?? []).count == 1 && opened.withLock { $0.count } == 1 })
        let seen = try Self.log(server.port)
        let hook = try #require(seen.first { $0["path"]?.stringValue?.hasPrefix("/hook") == true })
        #expect(hook["path"]?.stringValue == "/hook?amount=1500", "the consequence before any configuration was passed over")
        #expect(hook["method"]?.stringValue == "POST")
        #expect(hook["key"]?.stringValue?.count == 32)
        // The outbound rules ran once on the hit: the email is gone, the amount stays.
        #expect(try JSONReader.value(hook["body"]?.stringValue ?? "") == ["amount": 1500])
        #expect(await Self.eventually(wait) { ((try? Self.paths(server.port)) ?? []).contains("/text") })
        let text = try #require(try Self.log(server.port).first { $0["path"]?.stringValue == "/text" })
        #expect(text["body"]?.stringValue == "amount=1500", "a text body passes the outbound rules as text")
        #expect(text["contentType"]?.stringValue == "text/plain")
        #expect(opened.withLock { $0 } == ["https://example.com/thanks?amount=1500"])
        #expect(!(try Self.paths(server.port)).contains("/pii"), "pii over http is refused")

        // A hit the receiver keeps refusing with 503 stays queued, retried; an opt-out clears it.
        hub.dispatch(Event(name: "stuck", type: "t", source: "s", data: ["stuck": true]))
        #expect(await Self.eventually(wait) { ((try? Self.paths(server.port)) ?? []).contains("/_status/503/stuck") })
        #expect(try queue.depth() == 1)
        config.publish(["global.privacy": "optedout"])
        #expect(await Self.eventually(wait) { (try? queue.depth()) == 0 })
        buy(3000)
        #expect(RulesExtensionTests.settle(hub))
        config.publish(["global.privacy": "optedin"])
        buy(4000)
        #expect(await Self.eventually(wait) { ((try? hooks()) ?? []).contains("/hook?amount=4000") })
        #expect(!(try hooks()).contains("/hook?amount=3000"), "nothing is queued while opted out")
        #expect(try queue.deadLetters().isEmpty)
        hub.unregisterExtension(named: PostbackExtension.extensionName)
        await transport.shutdown()
    }
}
