import Foundation
import RuleKitCore
import RuleKitHub
import RuleKitRules
import RuleKitShared
import RuleKitTestSupport
import RuleKitXDM
import Testing

@testable import RuleKitExtension

/// End to end through a real hub: events in, enriched events out at the listeners.
@Suite struct RulesExtensionTests {
    final class Sink: Sendable {
        let events = Locked<[Event]>([])
        var all: [Event] { events.withLock { $0 } }
        func named(_ n: String) -> [Event] { all.filter { $0.name == n } }
    }

    static func folder(_ files: [String: String]) throws -> String {
        let dir = Scratch.url("rk-rules-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir.path
    }

    static func eventually(_ seconds: Double = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return condition()
    }

    /// Waits (up to 30 s) until everything dispatched so far, and everything it caused, has been delivered
    /// to the extensions that take the marker (the hub's own listeners, wildcard ones): a marker block
    /// dispatched now is delivered after them, and its completion runs once it and its own descendants are.
    /// An extension that listens to chosen types only does not take the marker, so its queue is not waited
    /// for. A condition, not a pause.
    static func settle(_ hub: EventHub) -> Bool {
        let done = Locked(false)
        hub.dispatch(contentsOf: [Event(name: "settle", type: "test.settle", source: "test")]) { done.withLock { $0 = true } }
        return eventually { done.withLock { $0 } }
    }

    /// A hub with the rules extension (and states published by a helper extension), plus a sink.
    static func hub(
        rules: String, states: [String: ValueObject] = [:], xdm: [String: ValueObject] = [:],
        limit: Int = 8, early: [Event] = [], alignment: XDMAlignment? = nil,
        container: SharedContainer? = nil, allowErrors: Bool = false
    ) -> (EventHub, Sink, RulesControl) {
        let hub = EventHub()
        let sink = Sink()
        hub.registerEventListener(type: EventType.wildcard, source: EventSource.wildcard) { e in sink.events.withLock { $0.append(e) } }
        for e in early { hub.dispatch(e) }
        var configuration = RulesExtension.Configuration(
            sources: [rules], consequenceChainLimit: limit, xdm: alignment, container: container)
        configuration.allowErrors = allowErrors
        var factories: [EventHub.ExtensionFactory] = [RulesExtension.factory(configuration)]
        for (name, data) in states { factories.append(StatePublisherExtension.factory(name: name, state: data, xdm: xdm[name])) }
        for (name, data) in xdm where states[name] == nil {
            factories.append(StatePublisherExtension.factory(name: name, state: nil, xdm: data))
        }
        let done = Locked(false)
        hub.registerExtensions(factories: factories) { _ in done.withLock { $0 = true } }
        _ = eventually { done.withLock { $0 } }
        return (hub, sink, hub.api(named: RulesExtension.extensionName, as: RulesControl.self)!)
    }

    @Test func eventsAreEnrichedBeforeListenersSeeThem() throws {
        let dir = try Self.folder([
            "r.yaml": """
            rules:
              - id: tag
                when: {key: ~type, eq: purchase}
                then: [{add: {tier: gold}}, {dispatch: {type: followup, source: rules, action: copy}}]
            """
        ])
        let (hub, sink, control) = Self.hub(rules: dir)
        #expect(control.lastOutcome?.loaded == true)
        hub.dispatch(Event(name: "buy", type: "purchase", source: "app", data: ["total": 10]))
        #expect(Self.eventually { sink.all.contains { $0.type == "followup" } })
        let buy = try #require(sink.named("buy").first)
        #expect(buy.data == ["total": 10, "tier": "gold"])
        let follow = try #require(sink.all.first { $0.type == "followup" })
        #expect(follow.parentID == buy.id)
        #expect(follow.data == ["total": 10, "tier": "gold"])
    }

    @Test func eventsBeforeTheFirstLoadAreReplayedOnce() throws {
        let dir = try Self.folder([
            "r.yaml": """
            rules:
              - id: hello
                when: {key: ~type, eq: early}
                then: [{type: url, detail: {u: "{%n%}"}}]
            """
        ])
        let early = (0..<3).map { Event(name: "e\($0)", type: "early", source: "app", data: ["n": .int(Int64($0))]) }
        let (hub, sink, _) = Self.hub(rules: dir, early: early)
        withExtendedLifetime(hub) {
            #expect(Self.eventually { sink.named(RulesEventNames.consequenceEventName).count == 3 })
            // Nothing more comes: everything dispatched before the marker has been delivered with it.
            #expect(Self.settle(hub))
        }
        let urls = sink.named(RulesEventNames.consequenceEventName).compactMap { $0.data?["triggeredconsequence"]?["detail"]?["u"] }
        #expect(urls == ["0", "1", "2"])
    }

    @Test func aBrokenReloadKeepsTheGoodRulesAndSaysWhy() throws {
        let good = try Self.folder(["r.yaml": "rules:\n  - {id: a, when: {key: ~type, eq: t}, then: [{add: {a: 1}}]}\n"])
        let bad = try Self.folder(["r.yaml": "rules:\n  - {id: b, when: {key: ~type, eqq: t}, then: []}\n"])
        let (hub, sink, control) = Self.hub(rules: good)
        #expect(Self.eventually { control.ruleCount == 1 })
        let outcome = try #require(control.reload(sources: [bad]))
        #expect(!outcome.loaded)
        #expect(outcome.rendered.contains("unknown matcher 'eqq' (did you mean 'eq'?)"))
        #expect(control.ruleCount == 1)
        hub.dispatch(Event(name: "x", type: "t", source: "s", data: [:]))
        #expect(Self.eventually { sink.named("x").first?.data == ["a": 1] })
        #expect(sink.all.contains { $0.type == RulesExtension.diagnosticsEventType && $0.data?["loaded"] == false })
        // A configuration event naming new sources reloads too.
        let other = try Self.folder(["r.yaml": "rules:\n  - {id: c, when: {key: ~type, eq: t}, then: [{add: {c: 3}}]}\n"])
        hub.dispatch(
            Event(
                name: "cfg", type: EventType.configuration, source: EventSource.requestContent,
                data: [RulesExtension.reloadKey: [.string(other)]]))
        #expect(Self.eventually { control.lastOutcome?.loaded == true && control.lastOutcome?.diagnostics.isEmpty == true })
        hub.dispatch(Event(name: "y", type: "t", source: "s", data: [:]))
        #expect(Self.eventually { sink.named("y").first?.data == ["c": 3] })
    }

    @Test func aRuleMatchingItsOwnConsequenceEventsIsCutAtTheBound() throws {
        let dir = try Self.folder([
            "r.yaml": """
            rules:
              - id: loop
                when: {key: tier, ne: gold}
                then: [{type: url, detail: {u: x}}]
            """
        ])
        // The Check refuses a rule that re-triggers itself (`lint.self-trigger`); the bound is what holds it
        // when it runs anyway.
        let (_, _, refused) = Self.hub(rules: dir, limit: 5)
        #expect(refused.lastOutcome?.loaded == false)
        #expect(refused.lastOutcome?.diagnostics.contains { $0.code == .lintSelfTrigger && $0.severity == .error } == true)
        let (hub, sink, _) = Self.hub(rules: dir, limit: 5, allowErrors: true)
        let start = Event(name: "start", type: "t", source: "s", data: ["tier": "silver"])
        // Waited for as a block: its completion runs once "start" and every event it caused are delivered.
        let delivered = Locked(false)
        hub.dispatch(contentsOf: [start]) { delivered.withLock { $0 = true } }
        #expect(Self.eventually { delivered.withLock { $0 } })
        // The chain that descends from "start" (the rule also matches the hub's own events, each its own chain).
        var ids: Set<UUID> = [start.id]
        var chain = 0
        for e in sink.all where e.name == RulesEventNames.consequenceEventName {
            if let p = e.parentID, ids.contains(p) {
                ids.insert(e.id)
                chain += 1
            }
        }
        #expect(chain == 6, "\(chain)")
    }

    @Test func conditionsReadStandardAndXDMStatesAtTheEventsVersion() throws {
        let dir = try Self.folder([
            "r.yaml": """
            rules:
              - id: s
                when:
                  all:
                    - {key: ~state.cfg/privacy, eq: optedin}
                    - {key: ~xdm.edge/device.type, eq: mobile}
                then: [{add: {ok: true}}]
            """
        ])
        let (hub, sink, _) = Self.hub(rules: dir, states: ["cfg": ["privacy": "optedin"]], xdm: ["edge": ["device": ["type": "mobile"]]])
        hub.dispatch(Event(name: "x", type: "t", source: "s", data: [:]))
        #expect(Self.eventually { sink.named("x").first?.data == ["ok": true] })
    }
}

extension RulesExtensionTests {
    static let ee = "https://rulekit.dev/xdm/sdk/experienceevent"

    static func alignment(_ policy: XDMAlignment.Policy) throws -> XDMAlignment {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let registry = try XDMRegistry(folder: root.appendingPathComponent("Schemas"))
        return try XDMAlignment(registry: registry, classID: ee, policy: policy)
    }

    static let xdmRules = """
        rules:
          - id: enrich
            when: {key: ~type, eq: edge}
            then:
              - add:
                  xdm:
                    commerce: {order: {priceTotal: "{%total%}"}}
                    device: {type: "{%kind%}"}
        """

    @Test func warnLetsMisalignedXDMThroughAndSaysWhere() throws {
        let (hub, sink, _) = Self.hub(rules: try Self.folder(["r.yaml": Self.xdmRules]), alignment: try Self.alignment(.warn))
        hub.dispatch(Event(name: "e", type: "edge", source: "s", data: ["total": 959.45, "kind": "phone"]))
        #expect(Self.eventually { sink.all.contains { $0.type == XDMAlignment.diagnosticsEventType } })
        let e = try #require(sink.named("e").first)
        #expect(e.data?["xdm"]?["commerce"]?["order"]?["priceTotal"] == "959.45")
        let report = try #require(sink.all.first { $0.type == XDMAlignment.diagnosticsEventType })
        let paths = report.data?["findings"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(Set(paths) == ["/commerce/order/priceTotal", "/device/type"])
    }

    @Test func enforceCoercesRenderedStringsAndDropsWhatStillDoesNotFit() throws {
        let (hub, sink, _) = Self.hub(rules: try Self.folder(["r.yaml": Self.xdmRules]), alignment: try Self.alignment(.enforce))
        hub.dispatch(Event(name: "e", type: "edge", source: "s", data: ["total": 959.45, "kind": "phone"]))
        #expect(Self.eventually { sink.all.contains { $0.type == XDMAlignment.diagnosticsEventType } })
        let e = try #require(sink.named("e").first)
        #expect(e.data?["xdm"]?["commerce"]?["order"]?["priceTotal"] == 959.45)
        #expect(e.data?["xdm"]?["device"]?["type"] == nil)
        let report = try #require(sink.all.first { $0.type == XDMAlignment.diagnosticsEventType })
        let actions = Dictionary(
            uniqueKeysWithValues: (report.data?["findings"]?.arrayValue ?? []).compactMap { f in
                f["path"]?.stringValue.map { ($0, f["action"]?.stringValue ?? "") }
            })
        #expect(actions == ["/commerce/order/priceTotal": "coerced", "/device/type": "dropped"])
    }

    @Test func misalignedXDMSharedStatesAreReported() throws {
        // The hub must stay alive: extensions reach it weakly, and a released hub delivers nothing more.
        let (hub, sink, _) = Self.hub(
            rules: try Self.folder(["r.yaml": "rules: []\n"]),
            xdm: ["edge": ["device": ["screenHeight": "tall"]]], alignment: try Self.alignment(.warn))
        withExtendedLifetime(hub) {
            #expect(
                Self.eventually {
                    sink.all.contains { $0.type == XDMAlignment.diagnosticsEventType && $0.data?["subject"] == "XDM shared state of edge" }
                })
        }
    }
}
