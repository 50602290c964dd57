internal import Dispatch
internal import Foundation
internal import RuleKitCore

/// One registered extension: its serial queue, its pending events, listeners and shared states.
///
/// Events are delivered in hub order, one at a time, on the extension's own queue; a drain runs while
/// events are pending and the extension is started and ready, so a burst of events costs one queue hop,
/// not one per event. No lock is held while extension code runs.
final class ExtensionContainer: Sendable {
    struct Listener {
        var type: String
        var source: String
        var call: EventListener

        func matches(_ e: Event) -> Bool {
            if e.responseID != nil { return type == EventType.wildcard && source == EventType.wildcardSource }
            return (type == EventType.wildcard || type == e.type) && (source == EventSource.wildcard || source == e.source)
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
        /// The number of the last event this extension finished (for barrier reads).
        var lastProcessed = -1
        var standard = SharedStateHistory()
        var xdm = SharedStateHistory()
        var registered = false
    }

    let queue: DispatchQueue
    let state = Locked(State())
    /// Left when `onRegistered` has finished (dependents wait on it).
    let registration = DispatchGroup()
    /// Set at creation: the lowercased name is the hub's key once the extension exists.
    let label: String

    /// The hub's count of deliveries still to do.
    let settling: Settling

    init(label: String, settling: Settling) {
        self.label = label
        self.settling = settling
        self.queue = DispatchQueue(label: "rulekit.extension.\(label)")
        registration.enter()
    }

    var ext: (any Extension)? { state.withLock { $0.ext } }

    func enqueue(_ e: Event) {
        let schedule = state.withLock { s -> Bool in
            s.pending.append(e)
            if s.drainScheduled { s.retrigger = true }
            guard !s.drainScheduled, !s.stopped, s.registered else { return false }
            s.drainScheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    func enqueue(contentsOf events: [Event]) {
        let schedule = state.withLock { s -> Bool in
            for e in events { s.pending.append(e) }
            if s.drainScheduled { s.retrigger = true }
            guard !s.drainScheduled, !s.stopped, s.registered else { return false }
            s.drainScheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    /// Offers pending events again (after `startEvents`, registration, or a refused `readyForEvent`).
    func kick() {
        let schedule = state.withLock { s -> Bool in
            if s.drainScheduled { s.retrigger = true }
            guard !s.drainScheduled, !s.stopped, s.registered, !s.pending.isEmpty else { return false }
            s.drainScheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    private func drain() {
        // The event delivered last is popped in the same lock that takes the next one: one lock per
        // delivery, not two.
        var delivered: Event?
        while true {
            let next = state.withLock { s -> (Event, any Extension, [Listener])? in
                if let d = delivered {
                    s.pending.popFirst()
                    s.lastProcessed = d.number ?? s.lastProcessed
                }
                guard !s.stopped, let e = s.pending.first, let ext = s.ext else {
                    s.drainScheduled = false
                    return nil
                }
                // Whatever triggered until now is answered by offering this event.
                s.retrigger = false
                return (e, ext, s.listeners)
            }
            if let d = delivered {
                settling.delivered(d)
                delivered = nil
            }
            guard let (event, ext, listeners) = next else { return }
            guard ext.readyForEvent(event) else {
                // Held at this event until the next trigger re-offers it; a trigger that came while this
                // drain ran (and so scheduled none) re-offers it now.
                let again = state.withLock { s -> Bool in
                    if s.retrigger {
                        s.retrigger = false
                        return true
                    }
                    s.drainScheduled = false
                    return false
                }
                if again { continue }
                return
            }
            for l in listeners where l.matches(event) { l.call(event) }
            delivered = event
        }
    }

    func setStopped(_ stopped: Bool) {
        state.withLock { $0.stopped = stopped }
        if !stopped { kick() }
    }
}

extension EventType {
    /// Response events go only to listeners whose type and source are both wildcards.
    static let wildcardSource = EventSource.wildcard
}
