import Foundation
import RuleKitCore
import RuleKitHub
import RuleKitShared
import RuleKitTestSupport
import Testing

@testable import RuleKitExtension

/// The shared data container on the hub: change events, and the rules extension's last good rules.
@Suite struct SharedDataTests {
    static func container() throws -> SharedContainer {
        try SharedContainer(directory: Scratch.url("rk-shared-hub-\(UUID())"))
    }

    @Test func changesByAnotherWriterArriveAsHubEvents() throws {
        let container = try Self.container()
        let hub = EventHub()
        let seen = Locked<[Event]>([])
        hub.registerEventListener(type: SharedDataExtension.changeEventType, source: SharedDataExtension.changeEventSource) { e in
            seen.withLock { $0.append(e) }
        }
        let done = Locked(false)
        hub.registerExtensions(factories: [SharedDataExtension.factory(container)]) { _ in done.withLock { $0 = true } }
        #expect(RulesExtensionTests.eventually { done.withLock { $0 } })
        #expect(hub.api(named: SharedDataExtension.extensionName, as: SharedContainer.self) != nil)
        // Another process's view of the same directory.
        let other = try SharedContainer(directory: container.directory)
        try other.write("campaign", ["id": "spring"])
        #expect(RulesExtensionTests.eventually { seen.withLock { $0.contains { $0.data?["collection"] == "campaign" } } })
        #expect(try container.read("campaign") == ["id": "spring"])
        hub.unregisterExtension(named: SharedDataExtension.extensionName) { _ in }
    }

    @Test func aRestartWithBrokenRulesRunsTheLastGoodRules() throws {
        let container = try Self.container()
        let good = try RulesExtensionTests.folder([
            "r.yaml": """
            rules:
              - id: tag
                when: {key: ~type, eq: purchase}
                then: [{add: {tier: gold}}]
            """
        ])
        // First run: the rules load and are kept.
        do {
            let hub = EventHub()
            let done = Locked(false)
            hub.registerExtensions(factories: [RulesExtension.factory(.init(sources: [good], container: container))]) { _ in
                done.withLock { $0 = true }
            }
            #expect(RulesExtensionTests.eventually { done.withLock { $0 } })
            let control = try #require(hub.api(named: RulesExtension.extensionName, as: RulesControl.self))
            #expect(RulesExtensionTests.eventually { control.lastOutcome?.loaded == true })
            #expect(try container.read("rulekit.rules.last-good") != nil)
        }
        // Restart: the sources are broken now; the kept rules run, and the outcome says so.
        let broken = try RulesExtensionTests.folder(["r.yaml": "rules: [ {id: tag, when: {key: ~type, eq: purchase}\n"])
        let (hub, sink, control) = RulesExtensionTests.hub(rules: broken, container: container)
        #expect(RulesExtensionTests.eventually { control.lastOutcome != nil })
        let outcome = try #require(control.lastOutcome)
        #expect(outcome.loaded == false)
        #expect(outcome.ruleCount == 1)
        #expect(outcome.rendered.contains("running the last good rules"))
        hub.dispatch(Event(name: "buy", type: "purchase", source: "app", data: ["sku": "x"]))
        #expect(RulesExtensionTests.eventually { sink.named("buy").first?.data?["tier"] == "gold" })
    }

    @Test func withoutKeptRulesABrokenStartRunsNone() throws {
        let container = try Self.container()
        let broken = try RulesExtensionTests.folder(["r.yaml": "rules: [\n"])
        let (hub, sink, control) = RulesExtensionTests.hub(rules: broken, container: container)
        #expect(RulesExtensionTests.eventually { control.lastOutcome != nil })
        #expect(control.lastOutcome?.loaded == false)
        #expect(control.lastOutcome?.ruleCount == 0)
        hub.dispatch(Event(name: "buy", type: "purchase", source: "app", data: ["sku": "x"]))
        #expect(RulesExtensionTests.eventually { !sink.named("buy").isEmpty })
        #expect(sink.named("buy").first?.data?["tier"] == nil)
    }
}
