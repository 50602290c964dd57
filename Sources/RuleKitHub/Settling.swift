internal import Foundation
internal import RuleKitCore
internal import Synchronization

/// Counts what the hub still has to deliver, per block of dispatched events: the hub's answer to
/// "everything caused by these events has been delivered".
///
/// A unit of work is an event waiting for the hub loop, or an (event, extension) delivery not done yet.
/// A block dispatched with a completion is a group; an event whose `parentID` is in a group joins it when
/// it is dispatched (rules consequences, dispatched while their trigger is still being processed, so the
/// group's count never falls to zero in between). When a group's count reaches zero its completion runs.
/// An event an extension holds (stopped, or not ready) counts as not delivered.
final class Settling: Sendable {
    private struct Group {
        var outstanding = 0
        var events: [UUID] = []
        var completion: @Sendable () -> Void
    }

    private struct State {
        var groups: [Int: Group] = [:]
        var groupOf = EventIDTable()
        var nextGroup = 0
    }

    private let state = Locked(State())
    /// How many groups are open, readable without the lock: with none (every event of a hub that nobody
    /// waits on), dispatching and delivering cost no lock here. A group is opened (the count raised)
    /// before any of its events is queued, and an event joins a group only while its parent, in it, is
    /// being processed, so a zero read can only be about events in no group.
    private let open = Atomic<Int>(0)

    /// Registers events about to be dispatched: as a new group with `completion`, or each in its parent's
    /// group, if that is open.
    func enter<S: Sequence<Event>>(_ events: S, completion: (@Sendable () -> Void)?) {
        if completion == nil && open.load(ordering: .acquiring) == 0 { return }
        let empty: (@Sendable () -> Void)? = state.withLock { s in
            if let completion {
                let g = s.nextGroup
                s.nextGroup += 1
                var group = Group(completion: completion)
                for e in events {
                    group.outstanding += 1
                    group.events.append(e.id)
                    s.groupOf[e.id] = g
                }
                if group.outstanding == 0 { return completion }
                s.groups[g] = group
                open.add(1, ordering: .releasing)
            } else if !s.groups.isEmpty {
                for e in events {
                    guard let parent = e.parentID, let g = s.groupOf[parent] else { continue }
                    s.groups[g]!.outstanding += 1
                    s.groups[g]!.events.append(e.id)
                    s.groupOf[e.id] = g
                }
            }
            return nil
        }
        empty?()
    }

    /// `event` left the hub loop for `deliveries` extensions (its one unit becomes that many).
    func fanOut(_ event: Event, to deliveries: Int) {
        if deliveries == 1 || open.load(ordering: .acquiring) == 0 { return }
        let done: (@Sendable () -> Void)? = state.withLock { s in
            guard !s.groups.isEmpty, let g = s.groupOf[event.id] else { return nil }
            s.groups[g]!.outstanding += deliveries - 1
            return self.closeIfDone(&s, g)
        }
        done?()
    }

    /// One extension has had `events` (their listeners ran).
    func delivered<C: Collection<Event>>(_ events: C) {
        if events.isEmpty || open.load(ordering: .acquiring) == 0 { return }
        let done: [@Sendable () -> Void] = state.withLock { s in
            var done: [@Sendable () -> Void] = []
            for event in events {
                guard !s.groups.isEmpty else { break }
                guard let g = s.groupOf[event.id] else { continue }
                s.groups[g]!.outstanding -= 1
                if let completion = self.closeIfDone(&s, g) { done.append(completion) }
            }
            return done
        }
        for completion in done { completion() }
    }

    private func closeIfDone(_ s: inout State, _ g: Int) -> (@Sendable () -> Void)? {
        guard let group = s.groups[g], group.outstanding <= 0 else { return nil }
        s.groups[g] = nil
        open.subtract(1, ordering: .releasing)
        for id in group.events { s.groupOf[id] = nil }
        return group.completion
    }
}
