internal import Dispatch
internal import Foundation
internal import RuleKitCore
internal import Synchronization

/// One registered extension: its serial queue, its pending events, listeners and shared states.
///
/// Events are delivered in hub order, one at a time, on the extension's own queue; a drain runs while
/// events are pending and the extension is started and ready, so a burst of events costs one queue hop,
/// not one per event, and takes a run of them per lock. No lock is held while extension code runs.
final class ExtensionContainer: Sendable {
    /// A class, not a struct: a drain reads every listener for every event, and copying a struct of two
    /// strings and a closure out of the list is three retains and three releases each time.
    final class Listener: Sendable {
        let type: String
        let source: String
        let call: EventListener
        /// Whether any type (any source) will do: decided once, not by comparing text for every event.
        private let anyType: Bool
        private let anySource: Bool

        init(type: String, source: String, call: @escaping EventListener) {
            self.type = type
            self.source = source
            self.call = call
            anyType = type == EventType.wildcard
            anySource = source == EventSource.wildcard
        }

        func matches(_ e: Event) -> Bool {
            // Response events go only to listeners whose type and source are both wildcards.
            if e.responseID != nil { return anyType && anySource }
            return (anyType || type == e.type) && (anySource || source == e.source)
        }
    }

    struct State {
        var ext: (any Extension)?
        var pending = RingQueue<Event>()
        var listeners: [Listener] = []
        var stopped = false
        var drainScheduled = false
        /// A trigger (a new event, `startEvents`) came while a drain was running: a drain that is about to
        /// stop at an event its extension refused offers it once more instead, so the trigger is not lost.
        var retrigger = false
        var standard = SharedStateHistory()
        var xdm = SharedStateHistory()
        var registered = false
        /// Whether the extension hears only its listeners' events (`Extension.skipsUnheardEvents`): set at
        /// registration, when its listeners are in place.
        var selective = false
        /// The number of the last event of a batch handed to the queue (some maybe skipped).
        var through = -1
    }

    let queue: DispatchQueue
    let state = Locked(State())
    /// Left when `onRegistered` has finished (dependents wait on it).
    let registration = DispatchGroup()
    /// Set at creation: the lowercased name is the hub's key once the extension exists.
    let label: String

    /// The hub's count of deliveries still to do.
    let settling: Settling
    /// The number of the last event this extension finished (for barrier reads): set after each event's
    /// listeners ran, outside the lock (a drain delivers a run of events per lock).
    let lastProcessed = Atomic<Int>(-1)
    /// Raised by every change a drain must see before its next event (listeners, the extension, stopping):
    /// a drain delivers the events it took under one lock only while this stays the same.
    private let changes = Atomic<Int>(0)
    /// The most events one drain takes under one lock.
    static let run = 32

    /// A container delivering on a queue of its own, which targets `target` when there is one (see
    /// `EventHub.Options.serialDelivery`).
    init(label: String, settling: Settling, target: DispatchQueue? = nil) {
        self.label = label
        self.settling = settling
        self.queue = DispatchQueue(label: "rulekit.extension.\(label)", target: target)
        registration.enter()
    }

    var ext: (any Extension)? { state.withLock { $0.ext } }

    /// Sets the extension (registration).
    func setExtension(_ ext: (any Extension)?) {
        state.withLock { s in
            s.ext = ext
            if ext == nil { s.selective = false }
            changes.add(1, ordering: .releasing)
        }
    }

    /// Adds a listener: it hears the events delivered after this call.
    func addListener(_ listener: Listener) {
        state.withLock { s in
            s.listeners.append(listener)
            changes.add(1, ordering: .releasing)
        }
    }

    /// Which events of a batch a container's queue takes.
    enum Selection {
        /// Every one: the extension is offered every event.
        case all
        /// None: none of its listeners hears any of them.
        case none
        /// Those flagged: one of its listeners hears them.
        case some([Bool])

        /// Whether the queue takes the batch's event `i`.
        func takes(_ i: Int) -> Bool {
            switch self {
            case .all: true
            case .none: false
            case .some(let taken): taken[i]
            }
        }
    }

    /// Which of `events` this container's queue takes. An extension that only hears its listeners'
    /// (`Extension.skipsUnheardEvents`) takes the events one of them hears; the others count as delivered
    /// to it at once (the hub settles them before handing the batch out), and barrier reads of its states
    /// pass over them as soon as its queue is idle.
    func selection(of events: [Event]) -> Selection {
        state.withLock { s in
            guard s.selective else { return .all }
            guard !s.listeners.isEmpty else { return .none }
            var taken: [Bool] = []
            taken.reserveCapacity(events.count)
            var any = false
            for e in events {
                let heard = s.listeners.contains { $0.matches(e) }
                any = any || heard
                taken.append(heard)
            }
            return any ? .some(taken) : .none
        }
    }

    /// Queues the events of a batch the hub loop has processed that `selection` (this container's, just
    /// asked) says it takes.
    func enqueue(contentsOf events: [Event], _ selection: Selection) {
        let schedule = state.withLock { s -> Bool in
            for i in events.indices where selection.takes(i) { s.pending.append(events[i]) }
            // Numbers grow within a batch: its last is the last one taken or skipped.
            if let n = events.last?.number { s.through = max(s.through, n) }
            catchUp(&s)
            if s.drainScheduled { s.retrigger = true }
            guard !s.drainScheduled, !s.stopped, s.registered, !s.pending.isEmpty else { return false }
            s.drainScheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    /// Moves a selective extension's `lastProcessed` up to the last event skipped, once nothing before it
    /// waits in the queue, no drain runs, and the extension is not stopped (a stopped one is not up to date).
    private func catchUp(_ s: inout State) {
        guard s.selective, s.pending.isEmpty, !s.drainScheduled, !s.stopped else { return }
        if s.through > lastProcessed.load(ordering: .relaxed) { lastProcessed.store(s.through, ordering: .releasing) }
    }

    /// Offers pending events again (after `startEvents`, registration, or a refused `readyForEvent`).
    func kick() {
        let schedule = state.withLock { s -> Bool in
            if s.drainScheduled { s.retrigger = true }
            catchUp(&s)
            guard !s.drainScheduled, !s.stopped, s.registered, !s.pending.isEmpty else { return false }
            s.drainScheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    private func drain() {
        // A run of pending events is taken under one lock and delivered one by one while nothing a delivery
        // depends on changes (`changes`); the next lock pops what was delivered and takes the next run.
        var run: [Event] = []
        var taken: [Event] = []
        run.reserveCapacity(Self.run)
        taken.reserveCapacity(Self.run)
        var done = 0
        var refused = false
        while true {
            let next = state.withLock { s -> (any Extension, [Listener], Int)? in
                for _ in 0..<done { s.pending.popFirst() }
                // Held at a refused event until the next trigger re-offers it; a trigger that came while this
                // drain ran (and so scheduled none) re-offers it now.
                guard !refused || s.retrigger, !s.stopped, !s.pending.isEmpty, let ext = s.ext else {
                    s.drainScheduled = false
                    catchUp(&s)
                    return nil
                }
                // Whatever triggered until now is answered by offering these events.
                s.retrigger = false
                taken.removeAll(keepingCapacity: true)
                s.pending.forEach(upTo: Self.run) { taken.append($0) }
                return (ext, s.listeners, changes.load(ordering: .acquiring))
            }
            settling.delivered(run.prefix(done))
            done = 0
            refused = false
            guard let (ext, listeners, seen) = next else { return }
            swap(&run, &taken)
            for event in run {
                if done > 0 && changes.load(ordering: .acquiring) != seen { break }
                guard ext.readyForEvent(event) else {
                    refused = true
                    break
                }
                for l in listeners where l.matches(event) { l.call(event) }
                if let n = event.number { lastProcessed.store(n, ordering: .releasing) }
                done += 1
            }
        }
    }

    func setStopped(_ stopped: Bool) {
        state.withLock { s in
            s.stopped = stopped
            changes.add(1, ordering: .releasing)
        }
        if !stopped { kick() }
    }
}
