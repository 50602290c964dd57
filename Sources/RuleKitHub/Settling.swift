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
        let id: Int
        var outstanding = 0
        var events: [UUID] = []
        var completion: @Sendable () -> Void
    }

    private struct State {
        /// The open groups in the order they were opened, so sorted by id: found by bisection, which for
        /// the usual one or two open groups is a comparison or two, not a hash of the id.
        var groups: [Group] = []
        var groupOf = EventIDTable()
        var nextGroup = 0

        /// Where group `g` is in `groups`, if it is open.
        func index(of g: Int) -> Int? {
            var low = 0
            var high = groups.count
            while low < high {
                let mid = (low + high) / 2
                if groups[mid].id < g { low = mid + 1 } else { high = mid }
            }
            return low < groups.count && groups[low].id == g ? low : nil
        }
    }

    private let state = Locked(State())
    /// How many groups are open, readable without the lock: with none (every event of a hub that nobody
    /// waits on), dispatching and delivering cost no lock here. A group is opened (the count raised)
    /// before any of its events is queued, and an event joins a group only while its parent, in it, is
    /// being processed, so a zero read can only be about events in no group.
    private let open = Atomic<Int>(0)

    /// Whether any group is open: without one, delivering settles nothing.
    var isTracking: Bool { open.load(ordering: .acquiring) != 0 }

    /// Registers events about to be dispatched: as a new group with `completion`, or each in its parent's
    /// group, if that is open.
    func enter<S: Sequence<Event>>(_ events: S, completion: (@Sendable () -> Void)?) {
        if completion == nil && open.load(ordering: .acquiring) == 0 { return }
        let empty: (@Sendable () -> Void)? = state.withLock { s in
            if let completion {
                let g = s.nextGroup
                s.nextGroup += 1
                var group = Group(id: g, completion: completion)
                for e in events {
                    group.outstanding += 1
                    group.events.append(e.id)
                    s.groupOf[e.id] = g
                }
                if group.outstanding == 0 { return completion }
                s.groups.append(group)
                open.add(1, ordering: .releasing)
            } else if !s.groups.isEmpty {
                for e in events {
                    guard let parent = e.parentID, let g = s.groupOf[parent], let i = s.index(of: g) else { continue }
                    s.groups[i].outstanding += 1
                    s.groups[i].events.append(e.id)
                    s.groupOf[e.id] = g
                }
            }
            return nil
        }
        empty?()
    }

    /// `events` left the hub loop for `deliveries[i]` extensions each (the others skip them): each one's
    /// unit becomes that many, under one lock.
    func fanOut(_ events: [Event], deliveries: [Int]) {
        precondition(events.count == deliveries.count)
        if events.isEmpty || open.load(ordering: .acquiring) == 0 { return }
        let done: [@Sendable () -> Void] = state.withLock { s in
            var done: [@Sendable () -> Void] = []
            for i in events.indices where deliveries[i] != 1 {
                guard !s.groups.isEmpty else { break }
                guard let g = s.groupOf[events[i].id] else { continue }
                if let completion = self.settle(&s, g, by: 1 - deliveries[i]) { done.append(completion) }
            }
            return done
        }
        for completion in done { completion() }
    }

    /// One extension has had `events` (their listeners ran).
    func delivered<C: Collection<Event>>(_ events: C) {
        settle(events, by: 1)
    }

    /// Takes `units` off the count of each event's group, under one lock, and runs the completions of the
    /// groups that closed.
    private func settle<C: Collection<Event>>(_ events: C, by units: Int) {
        if events.isEmpty || open.load(ordering: .acquiring) == 0 { return }
        let done: [@Sendable () -> Void] = state.withLock { s in
            var done: [@Sendable () -> Void] = []
            for event in events {
                guard !s.groups.isEmpty else { break }
                guard let g = s.groupOf[event.id] else { continue }
                if let completion = self.settle(&s, g, by: units) { done.append(completion) }
            }
            return done
        }
        for completion in done { completion() }
    }

    /// Takes `units` off group `g`'s count, and closes the group when nothing is left: its completion.
    /// The group is changed in place (reading it whole would copy its event list and its completion, a
    /// retain and a release each, for every event and every extension).
    private func settle(_ s: inout State, _ g: Int, by units: Int) -> (@Sendable () -> Void)? {
        guard let i = s.index(of: g) else { return nil }
        s.groups[i].outstanding -= units
        guard s.groups[i].outstanding <= 0 else { return nil }
        let group = s.groups.remove(at: i)
        open.subtract(1, ordering: .releasing)
        for id in group.events { s.groupOf[id] = nil }
        return group.completion
    }
}
