import Foundation
import RuleKitCore
import RuleKitFetch
import RuleKitHub
import RuleKitSources
import RuleKitTestSupport
import Testing

@testable import RuleKitExtension

/// The rules extension following the configuration's `rules.url` against a real publisher
/// (`RulekitCLITests/Fixtures/rules_publisher.py`): fetch, load and reset on a new URL; a conditional GET and
/// no reset for the same one; the rules in force kept through a failed fetch; the cache of the last URL
/// loaded at the next registration, and a bundled zip on a first launch.
@Suite(.serialized) struct RulesURLTests {
    static let publisherScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../RulekitCLITests/Fixtures/rules_publisher.py").standardized

    /// A Launch rules.json whose one rule adds `tagged: TAG` to events of type `t`.
    static func launchRules(_ tag: String) -> String {
        #"{"version":1,"rules":[{"condition":{"type":"matcher","definition":{"key":"~type","matcher":"eq","values":["t"]}},"#
            + #""consequences":[{"id":"c","type":"add","detail":{"eventdata":{"tagged":"\#(tag)"}}}]}]}"#
    }

    static func publish(_ tag: String, as name: String = "rules.zip", in root: URL) throws {
        let zip = try RuleArchive.launchZip(rulesJSON: Array(launchRules(tag).utf8))
        try Data(zip).write(to: root.appendingPathComponent(name), options: .atomic)
    }

    final class Sink: Sendable {
        let events = Locked<[Event]>([])
        func named(_ n: String) -> [Event] { events.withLock { $0 }.filter { $0.name == n } }
    }

    /// A hub following `rules.url` with `cache` (and `bundled`), and its configuration extension.
    static func hub(cache: RulesCache, bundled: String? = nil, transport: HTTPRulesTransport) -> (
        EventHub, ConfigurationOnDemand, RulesControl, Sink
    ) {
        let hub = EventHub()
        let sink = Sink()
        hub.registerEventListener(type: EventType.wildcard, source: EventSource.wildcard) { e in sink.events.withLock { $0.append(e) } }
        var c = RulesExtension.Configuration(sources: [])
        c.rulesURL = RulesURLSource(remote: RemoteRules(transport: transport), cache: cache, bundled: bundled)
        let configuration = Locked<ConfigurationOnDemand?>(nil)
        let done = Locked(false)
        hub.registerExtensions(factories: [
            RulesExtension.factory(c),
            { runtime in
                let e = ConfigurationOnDemand(runtime: runtime)
                configuration.withLock { $0 = e }
                return e
            },
        ]) { _ in done.withLock { $0 = true } }
        _ = RulesExtensionTests.eventually { done.withLock { $0 } }
        return (hub, configuration.withLock { $0 }!, hub.api(named: RulesExtension.extensionName, as: RulesControl.self)!, sink)
    }

    /// What the rules in force add to an event of type `t`.
    static func tag(_ hub: EventHub, _ sink: Sink) -> String? {
        let id = UUID().uuidString
        hub.dispatch(Event(name: id, type: "t", source: "s", data: [:]))
        _ = RulesExtensionTests.settle(hub)
        return sink.named(id).last?.data?["tagged"]?.stringValue
    }

    /// Publishes a configuration naming `url`, waits until the rules extension has followed it (the
    /// shared-state event reaches it on its own queue: a hub settle marker, which that queue does not take,
    /// does not wait for it), then until its fetch has ended.
    static func follow(_ url: String, _ configuration: ConfigurationOnDemand, _ control: RulesControl) async {
        let before = control.follower?.followed ?? 0
        configuration.publish(["rules.url": .string(url)])
        #expect(RulesExtensionTests.eventually { (control.follower?.followed ?? 0) > before }, "rules.url \(url) followed")
        await control.settleRulesURL()
    }

    static func log(_ port: Int) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/_log")!)
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
    }

    @Test func theConfigurationsRulesURLDrivesTheRules() async throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the rules publisher) is not available")
            return
        }
        let root = Scratch.url("rk-rules-url-\(UUID())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Self.publish("one", in: root)
        try Self.publish("two", as: "other.zip", in: root)
        let server = try LocalServer(script: Self.publisherScript, arguments: ["--root", root.path])
        let transport = try HTTPRulesTransport()
        let cache = RulesCache(directory: root.appendingPathComponent("cache").path)
        let base = "http://127.0.0.1:\(server.port)"
        do {
            let (hub, configuration, control, sink) = Self.hub(cache: cache, transport: transport)
            #expect(Self.tag(hub, sink) == nil, "no rules before a configuration names them")
            await Self.follow(base + "/rules.zip", configuration, control)
            #expect(Self.tag(hub, sink) == "one")
            let resets = sink.named("Rules loaded").count
            // The same URL again: a conditional GET, a 304, no reload and no reset.
            await Self.follow(base + "/rules.zip", configuration, control)
            #expect(sink.named("Rules loaded").count == resets)
            let seen = try Self.log(server.port)
            #expect((seen.last?["headers"] as? [String: String])?["If-None-Match"] != nil)
            // A URL that fails: the rules in force stay, and a diagnostics event says why.
            await Self.follow(base + "/_status/500", configuration, control)
            _ = RulesExtensionTests.settle(hub)
            #expect(Self.tag(hub, sink) == "one")
            // The diagnostics event reaches the sink on the hub's queue: under the sanitizers on two cores that
            // can come after the settle, so it is waited for (bounded).
            let failed = { sink.named("Rules URL not loaded").last?.data?["error"]?.stringValue?.contains("answered 500") == true }
            for _ in 0..<600 where !failed() {
                _ = RulesExtensionTests.settle(hub)
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(failed())
            // Another URL: fetched, loaded, in force.
            await Self.follow(base + "/other.zip", configuration, control)
            #expect(Self.tag(hub, sink) == "two")
        }
        server.stop()
        // The next registration, publisher gone: the cached rules of the last URL, before any configuration.
        do {
            let (hub, _, _, sink) = Self.hub(cache: cache, transport: transport)
            #expect(Self.tag(hub, sink) == "two")
        }
        // A first launch with nothing cached: the bundled zip.
        do {
            let bundled = root.appendingPathComponent("rules.zip").path
            let empty = RulesCache(directory: root.appendingPathComponent("empty-cache").path)
            let (hub, _, _, sink) = Self.hub(cache: empty, bundled: bundled, transport: transport)
            #expect(Self.tag(hub, sink) == "one")
        }
        try await transport.shutdown()
        try? FileManager.default.removeItem(at: root)
    }
}
