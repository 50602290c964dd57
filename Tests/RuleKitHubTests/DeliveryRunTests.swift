import Foundation
import RuleKitCore
import Testing

@testable import RuleKitHub

/// An extension's queue delivers a run of pending events per lock: what a listener changes while handling
/// one event (stopping, adding a listener, its own state) must still hold from the very next event, as when
/// events were taken one at a time.
@Suite struct DeliveryRunTests {
    /// Dispatches events 1...n as one block, so they are all pending at once.
    static func dispatchBlock(_ hub: EventHub, _ n: Int) {
        hub.dispatch(contentsOf: (1...n).map { event($0) }, whenDelivered: {})
    }

    @Test func aStopFromAListenerHoldsTheNextEvent() {
        let hub = bootedHub([StopsAtThree.self, ExtB.self])
        let r = recorder(hub, StopsAtThree.extensionName)
        Self.dispatchBlock(hub, 10)
        // Another extension, not stopped, has had all ten: the hub has handed every event on, and the
        // stopped one holds after the third.
        #expect(eventually { recorder(hub, ExtB.extensionName).userEvents.count == 10 })
        #expect(eventually { r.userEvents.count >= 3 })
        #expect(r.userEvents.map(\.name) == ["E1", "E2", "E3"])
        r.runtime.startEvents()
        #expect(eventually { r.userEvents.count == 10 })
        #expect(r.userEvents.map(\.name) == (1...10).map { "E\($0)" })
    }

    @Test func aListenerAddedByAListenerHearsTheNextEvent() {
        let hub = bootedHub([AddsAListenerAtThree.self])
        let r = recorder(hub, AddsAListenerAtThree.extensionName)
        Self.dispatchBlock(hub, 10)
        #expect(eventually { r.userEvents.count == 10 && r.timeline.withLock { $0.count } == 7 })
        #expect(r.timeline.withLock { $0 } == (4...10).map { "E\($0)" })
    }

    @Test func aBarrierReadOfItsOwnStateSeesTheEventsBeforeDone() {
        let hub = bootedHub([ReadsItsOwnState.self])
        let r = recorder(hub, ReadsItsOwnState.extensionName)
        Self.dispatchBlock(hub, 20)
        #expect(eventually { r.timeline.withLock { $0.count } == 19 })
        #expect(r.timeline.withLock { $0 }.allSatisfy { $0 == "set" })
    }

    @Test func anExtensionNotReadyMidRunHoldsThereAndResumes() {
        let hub = bootedHub([ExtA.self])
        let r = recorder(hub, "test.a")
        r.delay.withLock { $0 = 0.002 }
        Self.dispatchBlock(hub, 40)
        #expect(eventually { r.userEvents.count >= 5 })
        r.ready.withLock { $0 = false }
        // The hub asks before each delivery, one at a time: once it has been refused, it holds there.
        #expect(eventually { !r.refused.withLock { $0.isEmpty } })
        let held = r.userEvents.count
        #expect(held < 40)
        #expect(r.refused.withLock { $0.allSatisfy { $0 == "E\(held + 1)" } })
        r.ready.withLock { $0 = true }
        hub.dispatch(event(41))
        #expect(eventually { r.userEvents.count == 41 })
        #expect(r.userEvents.map(\.name) == (1...41).map { "E\($0)" })
    }
}

/// Stops its own events from the listener of event 3.
final class StopsAtThree: RecordingExtension, @unchecked Sendable {
    override class var extensionName: String { "test.stops" }
    override func onRegistered() {
        registerListener(type: EventType.wildcard, source: EventSource.wildcard) { [recorder, runtime] e in
            recorder.record(e)
            if e.name == "E3" { runtime.stopEvents() }
        }
    }
}

/// Adds a second listener from the listener of event 3; the second notes what it hears.
final class AddsAListenerAtThree: RecordingExtension, @unchecked Sendable {
    override class var extensionName: String { "test.adds" }
    override func onRegistered() {
        registerListener(type: EventType.wildcard, source: EventSource.wildcard) { [recorder, runtime] e in
            recorder.record(e)
            if e.name == "E3" {
                runtime.registerListener(type: "t", source: "s") { later in recorder.timeline.withLock { $0.append(later.name) } }
            }
        }
    }
}

/// Sets its state at event 1, then reads it with a barrier at every later event: each time, every event
/// before is done, so the state is set (not pending).
final class ReadsItsOwnState: RecordingExtension, @unchecked Sendable {
    override class var extensionName: String { "test.reads" }
    override func onRegistered() {
        registerListener(type: "t", source: "s") { [recorder, runtime] e in
            recorder.record(e)
            if e.name == "E1" {
                runtime.createSharedState(data: ["v": 1], event: e)
            } else {
                let r = runtime.getSharedState(extensionName: Self.extensionName, event: e, barrier: true, resolution: .any)
                recorder.timeline.withLock { $0.append(r?.status == .set ? "set" : "\(String(describing: r?.status))") }
            }
        }
    }
}
