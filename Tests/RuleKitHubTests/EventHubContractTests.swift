import Foundation
import RuleKitCore
import Testing

@testable import RuleKitHub

/// One test per bullet of the EventHub contract (`../shared/seeds/eventhub-contract.md`).
@Suite struct EventHubContractTests {
    // MARK: EventHub

    @Test func hubBootsOnlyAfterEveryInitialExtensionFinishedOnRegistered() {
        final class Slow: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "boot.slow" }
            override class var registrationDelay: Double { 0.2 }
        }
        let hub = EventHub()
        let done = Locked(false)
        hub.registerExtensions([ExtA.self, Slow.self]) { _ in done.withLock { $0 = true } }
        hub.dispatch(event(1))
        // Slow takes 0.2 s to register once it has begun: the hub has not started meanwhile.
        #expect(eventually { Timeline.index(of: "register-start boot.slow") != nil })
        #expect(!hub.isStarted)
        #expect(eventually { done.withLock { $0 } })
        #expect(eventually { recorder(hub, "test.a").userEvents.count == 1 })
        #expect(Timeline.index(of: "register-end boot.slow") != nil)
    }

    @Test func initialExtensionsArePassedTogetherAndAllRegistered() {
        let hub = bootedHub([ExtA.self, ExtB.self, ExtC.self])
        #expect(Set(hub.extensionNames) == ["test.a", "test.b", "test.c"])
    }

    @Test func extensionsCanBeAddedAndRemovedAfterBoot() {
        let hub = bootedHub([ExtA.self])
        let added = Locked(false)
        hub.registerExtension(ExtB.self) { r in if case .success = r { added.withLock { $0 = true } } }
        #expect(eventually { added.withLock { $0 } })
        hub.dispatch(event(1))
        #expect(eventually { recorder(hub, "test.b").userEvents.count == 1 })
        let removed = Locked(false)
        hub.unregisterExtension(named: "test.b") { _ in removed.withLock { $0 = true } }
        #expect(eventually { removed.withLock { $0 } })
        #expect(hub.extensionNames == ["test.a"])
        #expect(hub.getSharedState(extensionName: "test.b", event: nil) == nil)
        let state = hub.getSharedState(extensionName: EventHub.name, event: nil)
        #expect(state?.value?["extensions"]?["test.b"] == nil)
    }

    // MARK: Extension

    @Test func listenersOfOneExtensionNeverRunAtTheSameTime() {
        let hub = bootedHub([ExtA.self])
        let r = recorder(hub, "test.a")
        r.delay.withLock { $0 = 0.001 }
        for i in 0..<50 { hub.dispatch(event(i)) }
        #expect(eventually { r.userEvents.count == 50 })
        #expect(r.maxConcurrent.withLock { $0 } == 1)
    }

    @Test func eachExtensionOwnsAQueueSoOneSlowExtensionDoesNotStallAnother() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        recorder(hub, "test.a").delay.withLock { $0 = 0.5 }
        for i in 0..<3 { hub.dispatch(event(i)) }
        #expect(eventually(1) { recorder(hub, "test.b").userEvents.count == 3 })
        #expect(recorder(hub, "test.a").userEvents.count < 3)
    }

    // MARK: Extension registration

    @Test func initialExtensionsRegisterConcurrently() {
        final class R1: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "conc.1" }
            override class var registrationDelay: Double { 0.3 }
        }
        final class R2: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "conc.2" }
            override class var registrationDelay: Double { 0.3 }
        }
        let start = Date()
        _ = bootedHub([R1.self, R2.self])
        #expect(Date().timeIntervalSince(start) < 0.55)
    }

    @Test func initRunsBeforeOnRegistered() {
        final class Order: RecordingExtension, @unchecked Sendable { override class var extensionName: String { "order.x" } }
        _ = bootedHub([Order.self])
        let i = Timeline.index(of: "init order.x")
        let r = Timeline.index(of: "register-start order.x")
        #expect(i != nil && r != nil && i! < r!)
    }

    // MARK: Shared state

    func numbered(_ hub: EventHub, _ count: Int) -> [Event] {
        let events = (0..<count).map { event($0) }
        for e in events { hub.dispatch(e) }
        let r = recorder(hub, "test.b")
        eventually { r.userEvents.count == count }
        return r.userEvents
    }

    @Test func aStateCanBeSetForEN2AfterEN1() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let e = numbered(hub, 3)
        let rt = recorder(hub, "test.a").runtime
        rt.createSharedState(data: ["v": 1], event: e[1])
        rt.createSharedState(data: ["v": 2], event: e[2])
        #expect(hub.getSharedState(extensionName: "test.a", event: e[2])?.value == ["v": 2])
    }

    @Test func aStateForEN1CannotBeSetAfterEN2() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let e = numbered(hub, 3)
        let rt = recorder(hub, "test.a").runtime
        rt.createSharedState(data: ["v": 2], event: e[2])
        rt.createSharedState(data: ["v": 1], event: e[1])
        rt.createSharedState(data: ["v": 3], event: e[2])
        #expect(hub.getSharedState(extensionName: "test.a", event: e[1])?.value == ["v": 2])
        #expect(hub.getSharedState(extensionName: "test.a", event: e[2])?.value == ["v": 2])
    }

    @Test func nilForAnExtensionThatIsNotRegistered() {
        let hub = bootedHub([ExtA.self])
        #expect(hub.getSharedState(extensionName: "nope", event: nil) == nil)
    }

    @Test func noneStatusBeforeAnExtensionSetsAnything() {
        let hub = bootedHub([ExtA.self])
        #expect(hub.getSharedState(extensionName: "test.a", event: nil) == SharedStateResult(status: .none, value: nil))
    }

    @Test func theLastStateIsReturnedForItsEventAndEveryLaterOneWhetherSetOrPending() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let e = numbered(hub, 4)
        let rt = recorder(hub, "test.a").runtime
        rt.createSharedState(data: ["v": 1], event: e[1])
        for i in 1..<4 { #expect(hub.getSharedState(extensionName: "test.a", event: e[i])?.value == ["v": 1]) }
        _ = rt.createPendingSharedState(event: e[2])
        #expect(hub.getSharedState(extensionName: "test.a", event: e[3])?.status == .pending)
        #expect(hub.getSharedState(extensionName: "test.a", event: e[3])?.value == ["v": 1])
    }

    @Test func theStateForEN1IsReturnedForEN1WhenEN2IsAlsoSet() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let e = numbered(hub, 3)
        let rt = recorder(hub, "test.a").runtime
        rt.createSharedState(data: ["v": 1], event: e[1])
        rt.createSharedState(data: ["v": 2], event: e[2])
        #expect(hub.getSharedState(extensionName: "test.a", event: e[1])?.value == ["v": 1])
    }

    @Test func theStateForEN1IsReturnedForEN2AndEN3WhenTheNextIsForEN4() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let e = numbered(hub, 5)
        let rt = recorder(hub, "test.a").runtime
        rt.createSharedState(data: ["v": 1], event: e[1])
        rt.createSharedState(data: ["v": 4], event: e[4])
        for i in 1...3 { #expect(hub.getSharedState(extensionName: "test.a", event: e[i])?.value == ["v": 1]) }
        #expect(hub.getSharedState(extensionName: "test.a", event: e[4])?.value == ["v": 4])
    }

    @Test func theFirstStateIsReturnedForEventsBeforeIt() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let e = numbered(hub, 4)
        recorder(hub, "test.a").runtime.createSharedState(data: ["v": 3], event: e[3])
        #expect(hub.getSharedState(extensionName: "test.a", event: e[0])?.value == ["v": 3])
    }

    // MARK: Event

    @Test func eventsBeforeBootAreCachedAndDeliveredInOrder() {
        let hub = EventHub()
        for i in 0..<20 { hub.dispatch(event(i)) }
        let done = Locked(false)
        hub.registerExtensions([ExtA.self, ExtB.self]) { _ in done.withLock { $0 = true } }
        #expect(eventually { done.withLock { $0 } })
        for name in ["test.a", "test.b"] {
            let r = recorder(hub, name)
            #expect(eventually { r.userEvents.count == 20 })
            #expect(r.userEvents.map(\.name) == (0..<20).map { "E\($0)" })
        }
    }

    @Test func everyExtensionReceivesEventsInHubOrder() {
        let hub = bootedHub([ExtA.self, ExtB.self, ExtC.self])
        for i in 0..<200 { hub.dispatch(event(i)) }
        for name in ["test.a", "test.b", "test.c"] {
            let r = recorder(hub, name)
            #expect(eventually { r.userEvents.count == 200 })
            #expect(r.userEvents.map(\.name) == (0..<200).map { "E\($0)" })
        }
    }

    @Test func extensionsProgressAtTheirOwnPace() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        recorder(hub, "test.a").delay.withLock { $0 = 0.05 }
        for i in 0..<10 { hub.dispatch(event(i)) }
        #expect(eventually { recorder(hub, "test.b").userEvents.count == 10 })
        #expect(recorder(hub, "test.a").userEvents.count < 10)
        #expect(eventually { recorder(hub, "test.a").userEvents.count == 10 })
    }

    // MARK: Start and stop events

    @Test func stopEventsPausesDeliveryAndStartEventsResumesIt() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let r = recorder(hub, "test.a")
        r.runtime.stopEvents()
        hub.dispatch(event(1))
        hub.dispatch(event(2))
        // An extension that was not stopped has had both: the hub handed them on, and the stopped one holds.
        #expect(eventually { recorder(hub, "test.b").userEvents.count == 2 })
        #expect(r.userEvents.isEmpty)
        r.runtime.startEvents()
        #expect(eventually { r.userEvents.map(\.name) == ["E1", "E2"] })
    }

    @Test func anExtensionStartsStarted() {
        let hub = bootedHub([ExtA.self])
        hub.dispatch(event(1))
        #expect(eventually { recorder(hub, "test.a").userEvents.count == 1 })
    }
}
