import Foundation
import RuleKitCore
import Testing

@testable import RuleKitHub

/// An extension that says `skipsUnheardEvents` is handed only the events its listeners hear; the hub still
/// counts the others as delivered to it, and barrier reads of its states pass over them, but only once
/// every event before them that it does hear is done, and never while it is stopped.
@Suite struct SelectiveDeliveryTests {
    @Test func onlyHeardEventsAreOfferedAndTheBlockStillSettles() {
        let hub = bootedHub([HearsT.self, ExtB.self])
        let r = recorder(hub, HearsT.extensionName)
        let settled = Locked(false)
        let block = [event(1), event(2, type: "o"), event(3), event(4, type: "o", source: "x")]
        hub.dispatch(contentsOf: block, whenDelivered: { settled.withLock { $0 = true } })
        #expect(eventually { settled.withLock { $0 } })
        #expect(r.userEvents.map(\.name) == ["E1", "E3"])
        #expect(r.timeline.withLock { $0 } == ["ready E1", "ready E3"])
        // The extension beside it, which hears everything, had the whole block.
        #expect(recorder(hub, "test.b").userEvents.map(\.name) == ["E1", "E2", "E3", "E4"])
    }

    @Test func aBarrierReadAtASkippedEventSeesTheStateOnceTheQueueIsIdle() {
        let hub = bootedHub([HearsT.self, ExtB.self])
        let b = recorder(hub, "test.b")
        hub.dispatch(event(1))
        hub.dispatch(contentsOf: (2...5).map { event($0, type: "o") })
        #expect(eventually { b.userEvents.count == 5 })
        let last = b.userEvents[4]
        #expect(eventually { hub.getSharedState(extensionName: HearsT.extensionName, event: last, barrier: true)?.status == .set })
    }

    @Test func aBarrierReadAtASkippedEventWaitsForTheHeardEventsBeforeIt() {
        let hub = bootedHub([HearsT.self, ExtB.self])
        let r = recorder(hub, HearsT.extensionName)
        let b = recorder(hub, "test.b")
        hub.dispatch(event(1))
        #expect(eventually { r.userEvents.count == 1 })
        // E2 is heard, and slow; E3 is skipped behind it.
        r.delay.withLock { $0 = 1 }
        hub.dispatch(contentsOf: [event(2), event(3, type: "o")])
        #expect(eventually { b.userEvents.count == 3 })
        let e3 = b.userEvents[2]
        #expect(hub.getSharedState(extensionName: HearsT.extensionName, event: e3, barrier: true)?.status == .pending)
        #expect(eventually { hub.getSharedState(extensionName: HearsT.extensionName, event: e3, barrier: true)?.status == .set })
        #expect(r.userEvents.map(\.name) == ["E1", "E2"])
    }

    @Test func aStoppedExtensionIsNotUpToDateWithSkippedEvents() {
        let hub = bootedHub([HearsT.self, ExtB.self])
        let r = recorder(hub, HearsT.extensionName)
        let b = recorder(hub, "test.b")
        hub.dispatch(event(1))
        #expect(eventually { r.userEvents.count == 1 })
        r.runtime.stopEvents()
        // A barrier read at E3 needs E2 done; a stopped extension has not done it.
        hub.dispatch(contentsOf: [event(2, type: "o"), event(3, type: "o")])
        #expect(eventually { b.userEvents.count == 3 })
        let e3 = b.userEvents[2]
        // A marker after them reaches the running extension: the hub has handed E2 and E3 out, and the
        // stopped one holds them.
        hub.dispatch(Event(name: "marker", type: "test.marker", source: "test.marker"))
        #expect(eventually { b.userEvents.contains { $0.name == "marker" } })
        #expect(hub.getSharedState(extensionName: HearsT.extensionName, event: e3, barrier: true)?.status == .pending)
        r.runtime.startEvents()
        #expect(eventually { hub.getSharedState(extensionName: HearsT.extensionName, event: e3, barrier: true)?.status == .set })
    }

    @Test func extensionsAreOfferedEveryEventByDefault() {
        let hub = bootedHub([ExtA.self])
        let a = recorder(hub, "test.a")
        hub.dispatch(contentsOf: [event(1), event(2, type: "o")])
        #expect(eventually { a.userEvents.count == 2 })
    }
}

/// Hears only events of type "t" from source "s", and says so; notes each event it is offered, and sets
/// its state at the first event it hears.
final class HearsT: RecordingExtension, @unchecked Sendable {
    override class var extensionName: String { "test.hears-t" }
    override class var skipsUnheard: Bool { true }
    override func onRegistered() {
        registerListener(type: "t", source: "s") { [recorder, runtime] e in
            recorder.record(e)
            if e.name == "E1" { runtime.createSharedState(data: ["v": 1], event: e) }
        }
    }
    override func readyForEvent(_ event: Event) -> Bool {
        recorder.timeline.withLock { $0.append("ready \(event.name)") }
        return true
    }
}
