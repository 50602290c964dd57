// The time limit of each call to a history store. A block makes two calls (its read and its write), each
// bounded in time. One timer watches every call in flight and wakes about once per time limit, not once
// per call: a sleeping task per call cost a task's start and a pool thread's wake-up when the call ended
// (`docs/performance.md`).
internal import Dispatch
internal import RuleKitCore

/// No answer within the time given.
package struct HistoryTimeout: Error {
    package init() {}
}

/// `body`, or `HistoryTimeout` when it has not finished within `limit`. The body is then cancelled and
/// not waited for: a client that does not answer cancellation at once (a query on a connection whose
/// server went away) must not hold up the caller past the limit.
package func withTimeout<T: Sendable>(
    _ limit: Duration, watchedBy deadlines: HistoryDeadlines = .shared, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Locked<Bool>(false)
    let work = Locked<Task<Void, Never>?>(nil)
    let watch = Locked<Int?>(nil)
    let result: Result<T, any Error> = await withCheckedContinuation { (done: CheckedContinuation<Result<T, any Error>, Never>) in
        // Whichever ends first resumes; the other finds `outcome` set and does nothing.
        let finish: @Sendable (Result<T, any Error>) -> Void = { r in
            let first = outcome.withLock { o -> Bool in
                defer { o = true }
                return !o
            }
            if first { done.resume(returning: r) }
        }
        // The time-out is delivered through a task, as the body's answer is: when the pool is busy, an answer
        // that came before the deadline is queued before the time-out and wins, so a process slow to get to
        // the answer does not take it for a store that did not give one.
        watch.withLock { $0 = deadlines.add(after: limit) { Task { finish(.failure(HistoryTimeout())) } } }
        work.withLock {
            $0 = Task {
                do { finish(.success(try await body())) } catch { finish(.failure(error)) }
            }
        }
    }
    if let id = watch.withLock({ $0 }) { deadlines.remove(id) }
    work.withLock { $0?.cancel() }
    return try result.get()
}

/// Deadlines watched by one timer: each fires its action once it is due, unless removed first, in the
/// order they fall due. The timer is armed for the earliest deadline, and re-armed after each sweep while
/// any is left; a deadline added ahead of the armed time arms it earlier. Actions run on the timer's own
/// queue.
package final class HistoryDeadlines: Sendable {
    package static let shared = HistoryDeadlines()

    private struct Entry {
        let due: DispatchTime
        let fire: @Sendable () -> Void
    }

    private struct State {
        var next = 0
        var entries: [Int: Entry] = [:]
        /// When the sweep asked for last runs (nil: none asked for).
        var armed: DispatchTime?
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "rulekit.history.deadlines")

    /// Watches a deadline `limit` from now; returns its id, for `remove`.
    func add(after limit: Duration, _ fire: @escaping @Sendable () -> Void) -> Int {
        let due = DispatchTime.now() + Self.interval(limit)
        let (id, arm) = state.withLock { s -> (Int, Bool) in
            let id = s.next
            s.next += 1
            s.entries[id] = Entry(due: due, fire: fire)
            let arm = s.armed.map { due < $0 } ?? true
            if arm { s.armed = due }
            return (id, arm)
        }
        if arm { schedule(at: due) }
        return id
    }

    /// Stops watching deadline `id` (nothing if it has fired).
    func remove(_ id: Int) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// How many deadlines are watched (for tests).
    var watched: Int { state.withLock { $0.entries.count } }

    private func schedule(at time: DispatchTime) {
        queue.asyncAfter(deadline: time) { [self] in sweep() }
    }

    /// Fires what is due, then arms the timer for the earliest deadline left (unless armed earlier).
    private func sweep() {
        let now = DispatchTime.now()
        let (due, rearm) = state.withLock { s -> ([Entry], DispatchTime?) in
            var due: [Entry] = []
            var earliest: DispatchTime?
            for (id, e) in s.entries {
                if e.due <= now {
                    due.append(e)
                    s.entries[id] = nil
                } else if earliest.map({ e.due < $0 }) ?? true {
                    earliest = e.due
                }
            }
            // A sweep asked for earlier than this one (by an `add`) is still to come: it re-arms itself.
            if let armed = s.armed, armed > now { return (due, nil) }
            s.armed = earliest
            return (due, earliest)
        }
        // Outside the lock: an action resumes a caller.
        for e in due.sorted(by: { $0.due < $1.due }) { e.fire() }
        if let rearm { schedule(at: rearm) }
    }

    /// `limit` as a dispatch interval (nanoseconds, at least 1 ms, at most a day).
    static func interval(_ limit: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = limit.components
        let day: Int64 = 86_400
        guard seconds < day else { return .seconds(Int(day)) }
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        return .nanoseconds(Int(max(1_000_000, nanoseconds)))
    }
}
