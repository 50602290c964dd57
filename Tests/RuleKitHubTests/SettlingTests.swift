import Foundation
import RuleKitCore
import Testing

@testable import RuleKitHub

/// `dispatch(contentsOf:whenDelivered:)`: the completion runs once the block and everything it caused
/// (events dispatched with a parent in it, transitively) reached every extension — not before, and with
/// nothing else waited for.
@Suite struct SettlingTests {
    @Test func theCompletionWaitsForEveryExtensionAndEveryDescendant() {
        let hub = bootedHub([ExtA.self, ExtB.self])
        let a = recorder(hub, ExtA.extensionName)
        let b = recorder(hub, ExtB.extensionName)
        b.delay.withLock { $0 = 0.002 }
        // Each input event causes two generations of chained events, dispatched by a preprocessor while
        // their parent is processed (as the rules engine does).
        hub.registerPreprocessor { e in
            if e.name.hasPrefix("E") || e.name.hasPrefix("child") {
                let next = e.name.hasPrefix("E") ? "child of \(e.name)" : "grandchild of \(e.name)"
                if !e.name.hasPrefix("grandchild") { hub.dispatch(e.createChainedEvent(name: next, type: "t", source: "s", data: nil)) }
            }
            return e
        }
        let block = (0..<20).map { event($0) }
        let done = DispatchSemaphore(value: 0)
        let seenAtCompletion = Locked<(Int, Int)>((0, 0))
        hub.dispatch(contentsOf: block) {
            seenAtCompletion.withLock { $0 = (a.userEvents.count, b.userEvents.count) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        // 20 inputs, 20 children, 20 grandchildren: all of them at both extensions.
        #expect(seenAtCompletion.withLock { $0 } == (60, 60))
    }

    @Test func anEmptyBlockCompletesAtOnceAndAHeldEventHoldsTheCompletion() {
        let hub = bootedHub([ExtA.self])
        let a = recorder(hub, ExtA.extensionName)
        let empty = DispatchSemaphore(value: 0)
        hub.dispatch(contentsOf: [Event](), whenDelivered: { empty.signal() })
        #expect(empty.wait(timeout: .now() + 5) == .success)
        // The hub's own shared-state event of the registration first: refused, it would hold the queue
        // before E1, which would then never be offered (a slow run, under ASan, once took that path).
        #expect(deliveredSoFar(hub))
        a.ready.withLock { $0 = false }
        let done = Locked(false)
        hub.dispatch(contentsOf: [event(1)], whenDelivered: { done.withLock { $0 = true } })
        // Not ready: once the hub has asked and been refused, the event is held, so it is not delivered,
        // and the block is not done.
        #expect(eventually { a.refused.withLock { $0.contains("E1") } })
        #expect(!done.withLock { $0 } && !a.userEvents.contains { $0.name == "E1" })
        a.ready.withLock { $0 = true }
        a.runtime.startEvents()
        #expect(eventually { done.withLock { $0 } })
        #expect(a.userEvents.map(\.name) == ["marker", "E1"])
    }

    /// The bookkeeping itself, with groups closing out of the order they opened in (an earlier block
    /// held while later ones finish, as a slow extension or a device's batch can make happen).
    @Test func groupsCloseInAnyOrderAndChildrenJoinTheirParentsGroup() {
        let settling = Settling()
        let closed = Locked<[String]>([])
        let a = [event(1), event(2)]
        let b = [event(3)]
        let c = [event(4), event(5)]
        settling.enter(a) { closed.withLock { $0.append("a") } }
        settling.enter(b) { closed.withLock { $0.append("b") } }
        settling.enter(c) { closed.withLock { $0.append("c") } }
        // A chained event of a1, dispatched while a1 is processed: it joins a's group.
        let child = a[0].createChainedEvent(name: "child", type: "t", source: "s", data: nil)
        settling.enter([child], completion: nil)
        // Every event leaves the hub loop for two extensions.
        settling.fanOut(a + b + c + [child], deliveries: [Int](repeating: 2, count: 6))
        settling.delivered(b)
        #expect(closed.withLock { $0 }.isEmpty)
        settling.delivered(b)
        settling.delivered(c)
        settling.delivered(c)
        #expect(closed.withLock { $0 } == ["b", "c"])
        settling.delivered(a)
        settling.delivered(a)
        settling.delivered([child])
        // a waits for its child's second delivery.
        #expect(closed.withLock { $0 } == ["b", "c"])
        settling.delivered([child])
        #expect(closed.withLock { $0 } == ["b", "c", "a"])
        // Closed groups forget their events: more deliveries of them change nothing.
        settling.delivered(a + b + c)
        #expect(closed.withLock { $0 } == ["b", "c", "a"])
        // An event that reaches no extension at all settles as it leaves the hub loop.
        let d = event(6)
        settling.enter([d]) { closed.withLock { $0.append("d") } }
        settling.fanOut([event(7)], deliveries: [0])
        #expect(closed.withLock { $0 } == ["b", "c", "a"])
        settling.fanOut([d], deliveries: [0])
        #expect(closed.withLock { $0 } == ["b", "c", "a", "d"])
    }

    /// Each event of a batch counts the extensions that take it: one nobody takes settles as it leaves the
    /// hub loop; one two take waits for both.
    @Test func eachEventWaitsForTheExtensionsThatTookIt() {
        let settling = Settling()
        let closed = Locked<[String]>([])
        let a = [event(1), event(2), event(3)]
        settling.enter(a) { closed.withLock { $0.append("a") } }
        settling.fanOut(a, deliveries: [0, 2, 1])
        settling.delivered([a[1]])
        settling.delivered([a[2]])
        #expect(closed.withLock { $0 }.isEmpty)
        settling.delivered([a[1]])
        #expect(closed.withLock { $0 } == ["a"])
        let b = [event(4), event(5)]
        settling.enter(b) { closed.withLock { $0.append("b") } }
        settling.fanOut(b, deliveries: [0, 0])
        #expect(closed.withLock { $0 } == ["a", "b"])
    }

    /// With no listener for them anywhere (every queue skips them), a block still completes, and a
    /// listener the host registers later hears what is dispatched after it.
    @Test func aBlockNobodyHearsCompletesAndALaterListenerHearsWhatFollows() {
        let hub = bootedHub([HearsT.self])
        let done = DispatchSemaphore(value: 0)
        hub.dispatch(contentsOf: (1...50).map { event($0, type: "o") }) { done.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success)
        let heard = Locked<[String]>([])
        hub.registerEventListener(type: "o", source: "s") { e in heard.withLock { $0.append(e.name) } }
        let again = DispatchSemaphore(value: 0)
        let e52 = event(52)
        hub.dispatch(contentsOf: [event(51, type: "o"), e52]) { again.signal() }
        #expect(again.wait(timeout: .now() + 30) == .success)
        #expect(heard.withLock { $0 } == ["E51"])
        // The hub's own state, read with a barrier at the last event: its queue skipped E52 (no listener
        // hears it), and is up to date with it.
        #expect(eventually { hub.getSharedState(extensionName: EventHub.name, event: e52, barrier: true)?.status == .set })
    }

    /// `Options.onDelivering` sees every event as listeners get it (after the preprocessors), in hub order,
    /// those a preprocessor dispatched included, before the block completes.
    @Test func onDeliveringSeesEveryEventInHubOrder() {
        let seen = Locked<[String]>([])
        var options = EventHub.Options()
        options.onDelivering = { batch in
            seen.withLock { s in for e in batch where e.type != EventType.hub { s.append("\(e.name):\(e.data?["tag"] ?? .null)") } }
        }
        let hub = bootedHub([ExtA.self], options: options)
        hub.registerPreprocessor { e in
            if e.name == "E2" { hub.dispatch(e.createChainedEvent(name: "child", type: "t", source: "s", data: nil)) }
            return e.name.hasPrefix("E") ? e.copy(withData: ["tag": "x"]) : e
        }
        let done = DispatchSemaphore(value: 0)
        let atCompletion = Locked<[String]>([])
        hub.dispatch(contentsOf: (1...3).map { event($0) }) {
            atCompletion.withLock { $0 = seen.withLock { $0 } }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(atCompletion.withLock { $0 } == ["E1:\"x\"", "E2:\"x\"", "E3:\"x\"", "child:null"])
    }

    @Test func blocksCompleteIndependently() {
        let hub = bootedHub([ExtA.self])
        let finished = Locked<[Int]>([])
        let group = DispatchGroup()
        for n in 0..<8 {
            group.enter()
            hub.dispatch(contentsOf: (0..<50).map { event(n * 100 + $0) }) {
                finished.withLock { $0.append(n) }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        // The hub delivers in order, so blocks finish in the order they were dispatched.
        #expect(finished.withLock { $0 } == Array(0..<8))
    }
}
