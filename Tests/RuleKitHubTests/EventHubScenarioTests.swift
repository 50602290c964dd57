import Foundation
import RuleKitCore
import Testing

@testable import RuleKitHub

/// The scenarios of the extensions guide and the reference's details (§9 of the reference doc).
@Suite struct EventHubScenarioTests {
    @Test func responseListenerGetsTheResponseOnce() {
        let hub = bootedHub([ExtA.self])
        let got = Locked<[Event?]>([])
        let trigger = event(1)
        hub.dispatch(trigger, timeout: 5) { r in got.withLock { $0.append(r) } }
        let response = trigger.createResponseEvent(name: "resp", type: "t", source: "r", data: ["ok": true])
        hub.dispatch(response)
        hub.dispatch(response)
        #expect(eventually { got.withLock { $0.count } == 1 })
        // The second response has been delivered too, and heard by no one.
        #expect(deliveredSoFar(hub))
        #expect(got.withLock { $0.count } == 1)
        #expect(got.withLock { $0[0]?.id } == response.id)
    }

    @Test func responseListenerGetsNilAtItsTimeout() {
        let hub = bootedHub([ExtA.self])
        let got = Locked<[Event?]>([])
        hub.dispatch(event(1), timeout: 0.05) { r in got.withLock { $0.append(r) } }
        #expect(eventually { got.withLock { $0.count } == 1 })
        #expect(got.withLock { $0[0] } == nil)
    }

    @Test func responseEventsReachOnlyWildcardListeners() {
        final class Typed: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "typed" }
            override func onRegistered() {
                registerListener(type: "t", source: "r") { [recorder] e in recorder.record(e) }
            }
        }
        let hub = bootedHub([Typed.self, ExtA.self])
        let trigger = event(1)
        hub.dispatch(trigger.createResponseEvent(name: "resp", type: "t", source: "r", data: nil))
        hub.dispatch(Event(name: "plain", type: "t", source: "r"))
        #expect(eventually { recorder(hub, "test.a").userEvents.count == 2 })
        #expect(eventually { recorder(hub, "typed").received.count == 1 })
        #expect(recorder(hub, "typed").received.map(\.name) == ["plain"])
    }

    @Test func typedListenersMatchTypeAndSource() {
        final class Typed: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "typed2" }
            override func onRegistered() {
                registerListener(type: "a", source: EventSource.wildcard) { [recorder] e in recorder.record(e) }
            }
        }
        let hub = bootedHub([Typed.self])
        hub.dispatch(Event(name: "1", type: "a", source: "x"))
        hub.dispatch(Event(name: "2", type: "b", source: "x"))
        hub.dispatch(Event(name: "3", type: "a", source: "y"))
        #expect(deliveredSoFar(hub))
        #expect(recorder(hub, "typed2").received.map(\.name) == ["1", "3"])
    }

    @Test func pendingStateResolvesOnceAndNotifies() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let a = recorder(hub, "test.a")
        a.runtime.createSharedState(data: ["v": 1], event: nil)
        let resolve = a.runtime.createPendingSharedState(event: nil)
        #expect(hub.getSharedState(extensionName: "test.a", event: nil) == SharedStateResult(status: .pending, value: ["v": 1]))
        #expect(hub.getSharedState(extensionName: "test.a", event: nil, resolution: .lastSet)?.value == ["v": 1])
        resolve(["v": 2])
        resolve(["v": 3])
        #expect(hub.getSharedState(extensionName: "test.a", event: nil) == SharedStateResult(status: .set, value: ["v": 2]))
        let b = recorder(hub, "test.b")
        #expect(
            eventually {
                b.received.filter { $0.type == EventType.hub && $0.data?["stateowner"] == "test.a" }.count == 2
            })
    }

    @Test func lastSetSkipsPendingAndIsNoneWhenNothingIsSet() {
        let hub = bootedHub([ExtA.self])
        let rt = recorder(hub, "test.a").runtime
        _ = rt.createPendingSharedState(event: nil)
        #expect(hub.getSharedState(extensionName: "test.a", event: nil, resolution: .lastSet)?.status == SharedStateStatus.none)
        #expect(hub.getSharedState(extensionName: "test.a", event: nil)?.status == .pending)
    }

    @Test func xdmStatesHaveTheirOwnHistory() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let rt = recorder(hub, "test.a").runtime
        rt.createXDMSharedState(data: ["xdm": ["eventType": "x"]], event: nil)
        #expect(hub.getSharedState(extensionName: "test.a", event: nil)?.status == SharedStateStatus.none)
        #expect(hub.getSharedState(extensionName: "test.a", event: nil, xdm: true)?.value == ["xdm": ["eventType": "x"]])
        #expect(rt.getXDMSharedState(extensionName: "TEST.A", event: nil, barrier: false, resolution: .any)?.status == .set)
        let b = recorder(hub, "test.b")
        #expect(eventually { b.received.contains { $0.name == EventHub.xdmSharedStateEventName } })
    }

    @Test func namesAreCaseInsensitiveForStateLookups() {
        let hub = bootedHub([ExtA.self])
        recorder(hub, "test.a").runtime.createSharedState(data: ["v": 1], event: nil)
        #expect(hub.getSharedState(extensionName: "TEST.A", event: nil)?.value == ["v": 1])
    }

    @Test func hubStateListsTheRegisteredExtensions() {
        let hub = bootedHub([ExtA.self, ExtB.self], options: .init(wrapperType: "F", wrapperName: "Flutter"))
        let s = hub.getSharedState(extensionName: EventHub.name, event: nil)?.value
        #expect(s?["extensions"]?["test.a"]?["version"] == "1.0.0")
        #expect(s?["extensions"]?["test.a"]?["metadata"] == ["kind": "test"])
        #expect(s?["extensions"]?[EventHub.name] == nil)
        #expect(s?["wrapper"] == ["type": "F", "friendlyName": "Flutter"])
    }

    @Test func theFirstEventAfterBootIsTheHubsSharedStateEvent() {
        let hub = bootedHub([ExtA.self])
        let r = recorder(hub, "test.a")
        #expect(eventually { !r.received.isEmpty })
        #expect(r.received.first?.type == EventType.hub)
        #expect(r.received.first?.data?["stateowner"] == .string(EventHub.name))
    }

    @Test func readyForEventHoldsTheQueueAtThatEvent() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let a = recorder(hub, "test.a")
        eventually { !a.received.isEmpty }
        a.ready.withLock { $0 = false }
        hub.dispatch(event(1))
        hub.dispatch(event(2))
        #expect(eventually { recorder(hub, "test.b").userEvents.count == 2 })
        #expect(a.userEvents.isEmpty)
        a.ready.withLock { $0 = true }
        hub.dispatch(event(3))
        #expect(eventually { a.userEvents.map(\.name) == ["E1", "E2", "E3"] })
    }

    @Test func barrierReadsReportPendingUntilTheOwnerCaughtUp() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let a = recorder(hub, "test.a")
        a.ready.withLock { $0 = false }
        let e = (0..<3).map { event($0) }
        for x in e { hub.dispatch(x) }
        let b = recorder(hub, "test.b")
        eventually { b.userEvents.count == 3 }
        let seen = b.userEvents
        a.runtime.createSharedState(data: ["v": 1], event: seen[0])
        #expect(hub.getSharedState(extensionName: "test.a", event: seen[2], barrier: true)?.status == .pending)
        #expect(hub.getSharedState(extensionName: "test.a", event: seen[2], barrier: false)?.status == .set)
        a.ready.withLock { $0 = true }
        a.runtime.startEvents()
        #expect(eventually { hub.getSharedState(extensionName: "test.a", event: seen[2], barrier: true)?.status == .set })
    }

    @Test func preprocessorsRunInOrderBeforeAnyListener() {
        let hub = EventHub()
        hub.registerPreprocessor { e in e.copy(withData: (e.data ?? [:]).merging(["first": true])) }
        hub.registerPreprocessor { e in e.copy(withData: (e.data ?? [:]).merging(["second": e.data?["first"] ?? false])) }
        let done = Locked(false)
        hub.registerExtensions([ExtA.self]) { _ in done.withLock { $0 = true } }
        eventually { done.withLock { $0 } }
        hub.dispatch(event(1))
        let r = recorder(hub, "test.a")
        #expect(eventually { r.userEvents.count == 1 })
        #expect(r.userEvents[0].data?["second"] == true)
    }

    /// Events dispatched as a block are delivered together: a follow-up a preprocessor dispatches for the
    /// first of them (as the rules engine dispatches consequences) never lands between them.
    @Test func aBlockIsDeliveredWithNothingDispatchedMeanwhileBetweenItsEvents() {
        let hub = EventHub()
        hub.registerPreprocessor { e in
            if e.type == "t", e.data?["n"] == 0 {
                hub.dispatch(Event(name: "follow-up", type: "f", source: "s", data: nil))
                Thread.sleep(forTimeInterval: 0.002)
            }
            return e
        }
        let done = Locked(false)
        hub.registerExtensions([ExtA.self]) { _ in done.withLock { $0 = true } }
        eventually { done.withLock { $0 } }
        let r = recorder(hub, "test.a")
        for round in 0..<20 {
            hub.dispatch(contentsOf: (0..<5).map { event($0) })
            #expect(eventually { r.userEvents.count == (round + 1) * 6 })
            let names = r.userEvents.suffix(6).map(\.name)
            #expect(names == ["E0", "E1", "E2", "E3", "E4", "follow-up"], "round \(round)")
        }
    }

    /// A slow preprocessor under a burst: the hub hands events to extensions in batches; every event is still
    /// preprocessed once, in hub order, and a masked event is in history before any listener sees it.
    @Test func slowPreprocessorUnderBurstKeepsOrderAndHistory() {
        let hub = EventHub()
        let calls = Locked(0)
        hub.registerPreprocessor { e in
            Thread.sleep(forTimeInterval: 0.0002)
            if e.type == "t" { calls.withLock { $0 += 1 } }
            return e.copy(withData: (e.data ?? [:]).merging(["pre": true]))
        }
        let done = Locked(false)
        hub.registerExtensions([ExtA.self]) { _ in done.withLock { $0 = true } }
        eventually { done.withLock { $0 } }
        let inHistoryAtDelivery = Locked<[Bool]>([])
        hub.registerEventListener(type: "t", source: "s") { e in
            let n = hub.historicalEvents([EventHistoryRequest(mask: ["n": e.data?["n"] ?? .null])], enforceOrder: false)
            inHistoryAtDelivery.withLock { $0.append((n.first?.count ?? 0) == 1) }
        }
        for i in 0..<500 {
            hub.dispatch(Event(name: "E\(i)", type: "t", source: "s", data: ["n": .int(Int64(i))], mask: ["n"]))
        }
        let r = recorder(hub, "test.a")
        #expect(eventually { r.userEvents.count == 500 })
        #expect(r.userEvents.map { $0.data?["n"]?.intValue ?? -1 } == Array(0..<500))
        #expect(r.userEvents.allSatisfy { $0.data?["pre"] == true })
        #expect(calls.withLock { $0 } == 500)
        #expect(eventually { inHistoryAtDelivery.withLock { $0.count } == 500 })
        #expect(inHistoryAtDelivery.withLock { $0.allSatisfy { $0 } })
    }

    @Test func hostListenersSeeEvents() {
        let hub = bootedHub([ExtA.self])
        let got = Locked(0)
        hub.registerEventListener(type: "t", source: "s") { _ in got.withLock { $0 += 1 } }
        hub.dispatch(event(1))
        #expect(eventually { got.withLock { $0 } == 1 })
    }

    @Test func maskedEventsAreRecordedInHistory() {
        let hub = bootedHub([ExtA.self])
        hub.dispatch(Event(name: "m", type: "t", source: "s", data: ["k": "v", "other": 1], mask: ["k"]))
        #expect(
            eventually {
                hub.historicalEvents([EventHistoryRequest(mask: ["k": "v"])], enforceOrder: false).first?.count == 1
            })
    }

    // MARK: dependencies and APIs (plugin-supervisor seed)

    /// With serial delivery too: no queue waits for a dependency (it would wait behind itself).
    @Test(.serialized, arguments: [false, true])
    func dependenciesRegisterFirstAndMissingOrCyclicOnesAreRejected(serial: Bool) {
        final class Base: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "dep.base" }
            override class var registrationDelay: Double { 0.1 }
        }
        final class Top: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "dep.top" }
            override class var extensionDependencies: [String] { ["dep.base"] }
        }
        var options = EventHub.Options()
        options.serialDelivery = serial
        // A chain besides: registered in an order that is not the chain's (the hub's is a dictionary's), a
        // queue that waited for its dependency would, delivering serially, hold up the dependency forever.
        final class Chain1: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "chain.1" }
            override class var extensionDependencies: [String] { ["chain.2"] }
        }
        final class Chain2: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "chain.2" }
            override class var extensionDependencies: [String] { ["chain.3"] }
        }
        final class Chain3: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "chain.3" }
            override class var extensionDependencies: [String] { ["chain.4"] }
        }
        final class Chain4: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "chain.4" }
        }
        let booted = Locked(false)
        EventHub(options: options).registerExtensions([Top.self, Base.self, Chain1.self, Chain2.self, Chain3.self, Chain4.self]) {
            _ in booted.withLock { $0 = true }
        }
        #expect(eventually(10) { booted.withLock { $0 } })
        let baseEnd = Timeline.index(of: "register-end dep.base")
        let topStart = Timeline.index(of: "register-start dep.top")
        #expect(baseEnd != nil && topStart != nil && baseEnd! < topStart!)

        final class Lonely: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "dep.lonely" }
            override class var extensionDependencies: [String] { ["dep.ghost"] }
        }
        let r1 = Locked<Result<Void, HubError>?>(nil)
        EventHub().registerExtensions([Lonely.self]) { r in r1.withLock { $0 = r } }
        eventually { r1.withLock { $0 } != nil }
        #expect(String(describing: r1.withLock { $0 }!).contains("depends on 'dep.ghost'"))

        final class X: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "cyc.x" }
            override class var extensionDependencies: [String] { ["cyc.y"] }
        }
        final class Y: RecordingExtension, @unchecked Sendable {
            override class var extensionName: String { "cyc.y" }
            override class var extensionDependencies: [String] { ["cyc.x"] }
        }
        let r2 = Locked<Result<Void, HubError>?>(nil)
        EventHub().registerExtensions([X.self, Y.self]) { r in r2.withLock { $0 = r } }
        eventually { r2.withLock { $0 } != nil }
        guard case .failure(.dependencyCycle(let chain))? = r2.withLock({ $0 }) else {
            Issue.record("no cycle error")
            return
        }
        #expect(chain == ["cyc.x", "cyc.y", "cyc.x"])
    }

    /// `serialDelivery`: every extension still gets every event in order, and no two deliveries run at once
    /// (with a queue each, the slow listeners overlap).
    @Test(.serialized, arguments: [false, true])
    func serialDeliveryRunsOneListenerAtATime(serial: Bool) {
        let probe = OverlapProbe()
        OverlapProbe.current.withLock { $0 = probe }
        var options = EventHub.Options()
        options.serialDelivery = serial
        let hub = bootedHub([SlowA.self, SlowB.self, SlowC.self], options: options)
        for i in 0..<60 { hub.dispatch(event(i)) }
        let names = ["slow.a", "slow.b", "slow.c"]
        #expect(eventually(10) { probe.seen.withLock { s in names.allSatisfy { s[$0]?.count == 60 } } })
        for n in names { #expect(probe.seen.withLock { $0[n] } == Array(0..<60)) }
        if serial { #expect(probe.most.withLock { $0 } == 1) } else { #expect(probe.most.withLock { $0 } > 1) }
    }

    @Test func duplicateNamesAreRejected() {
        final class Dup: RecordingExtension, @unchecked Sendable { override class var extensionName: String { "test.a" } }
        let hub = bootedHub([ExtA.self])
        let r = Locked<Result<Void, HubError>?>(nil)
        hub.registerExtension(Dup.self) { x in r.withLock { $0 = x } }
        eventually { r.withLock { $0 } != nil }
        #expect(r.withLock { $0 }.map { if case .failure(.duplicateName) = $0 { true } else { false } } == true)
    }

    @Test func extensionsPublishTypedAPIs() {
        let hub = bootedHub([ExtA.self])
        #expect(hub.api(named: "test.a", as: Recorder.self) != nil)
        #expect(hub.api(named: "test.a", as: String.self) == nil)
    }

    // MARK: testable runtime

    @Test func testableRuntimeSimulatesEventsAndStates() {
        let runtime = TestableExtensionRuntime()
        let ext = ExtA(runtime: runtime)!
        ext.onRegistered()
        runtime.simulateSharedState(extensionName: "cfg", event: nil, data: ["x": 1])
        runtime.simulateComingEvent(event(1))
        #expect(ext.recorder.received.count == 1)
        #expect(runtime.getSharedState(extensionName: "CFG", event: nil, barrier: false, resolution: .any)?.value == ["x": 1])
        ext.dispatch(event: event(2))
        #expect(runtime.dispatchedEvents.map(\.name) == ["E2"])
        ext.createSharedState(data: ["s": 1], event: nil)
        #expect(runtime.createdSharedStates == [["s": 1]])
    }
}

extension ValueObject {
    func merging(_ other: ValueObject) -> ValueObject {
        var o = self
        for (k, v) in other { o[k] = v }
        return o
    }
}

/// What the slow extensions of `serialDeliveryRunsOneListenerAtATime` saw: how many of their listeners ran
/// at once, at most, and the events each got.
final class OverlapProbe: Sendable {
    static let current = Locked<OverlapProbe?>(nil)
    let running = Locked(0)
    let most = Locked(0)
    let seen = Locked<[String: [Int]]>([:])
}

/// An extension whose listener takes half a millisecond, noting overlaps in the current `OverlapProbe`.
class SlowExtension: Extension, @unchecked Sendable {
    class var extensionName: String { "slow" }
    let runtime: any ExtensionRuntime
    var name: String { Self.extensionName }
    let friendlyName = "slow"
    let version = "1"

    required init?(runtime: any ExtensionRuntime) { self.runtime = runtime }

    func onUnregistered() {}

    func onRegistered() {
        guard let probe = OverlapProbe.current.withLock({ $0 }) else { return }
        let name = self.name
        registerListener(type: "t", source: "s") { e in
            let now = probe.running.withLock {
                $0 += 1
                return $0
            }
            probe.most.withLock { $0 = max($0, now) }
            Thread.sleep(forTimeInterval: 0.0005)
            probe.running.withLock { $0 -= 1 }
            probe.seen.withLock { $0[name, default: []].append(Int(e.data?["n"]?.intValue ?? -1)) }
        }
    }
}

final class SlowA: SlowExtension, @unchecked Sendable { override class var extensionName: String { "slow.a" } }
final class SlowB: SlowExtension, @unchecked Sendable { override class var extensionName: String { "slow.b" } }
final class SlowC: SlowExtension, @unchecked Sendable { override class var extensionName: String { "slow.c" } }
