// Turns handed out in call order and served in that order, for work whose first part may run at once
// (a block's history read) and whose second must keep the callers' order (the block's dispatch).
internal import RuleKitCore

/// Numbered turns: `take()` in call order, `wait(for:)` until every earlier turn has `pass`ed.
final class TurnLine: Sendable {
    private struct State {
        var issued = 0
        var serving = 0
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// The next turn.
    func take() -> Int {
        state.withLock { s in
            defer { s.issued += 1 }
            return s.issued
        }
    }

    /// Returns once `turn` is served (every earlier turn passed).
    func wait(for turn: Int) async {
        await withCheckedContinuation { (go: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.serving == turn { return true }
                s.waiting[turn] = go
                return false
            }
            if now { go.resume() }
        }
    }

    /// Ends `turn` (the one being served) and serves the next.
    func pass(_ turn: Int) {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            precondition(s.serving == turn, "a turn passed out of order")
            s.serving = turn + 1
            return s.waiting.removeValue(forKey: turn + 1)
        }
        next?.resume()
    }
}
