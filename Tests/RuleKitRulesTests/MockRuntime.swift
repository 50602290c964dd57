import Foundation
import RuleKitCore

@testable import RuleKitRules

/// A test runtime: serves shared states and canned history answers, records everything the engine does.
final class MockRuntime: RulesRuntime {
    struct State {
        var sharedStates: [String: ValueObject?] = [:]
        var xdmStates: [String: ValueObject?] = [:]
        var historyResults: [HistoryResult] = []
        var recordResult = true
        var dispatched: [Event] = []
        var recorded: [Event] = []
        var lastQuery: (count: Int, enforceOrder: Bool)?
    }

    let state = Locked(State())
    let clock: @Sendable () -> Date

    init(sharedStates: [String: ValueObject?] = [:], clock: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
        state.withLock { $0.sharedStates = sharedStates }
    }

    var dispatched: [Event] { state.withLock { $0.dispatched } }

    func sharedState(_ extensionName: String, at event: Event) -> ValueObject? {
        state.withLock { s in s.sharedStates[extensionName] ?? nil }
    }

    func xdmSharedState(_ extensionName: String, at event: Event) -> ValueObject? {
        state.withLock { s in s.xdmStates[extensionName] ?? nil }
    }

    func queryHistory(_ requests: [HistoryRequest], enforceOrder: Bool) -> [HistoryResult] {
        state.withLock { s in
            s.lastQuery = (requests.count, enforceOrder)
            return s.historyResults
        }
    }

    func recordHistory(_ event: Event) -> Bool {
        state.withLock { s in
            s.recorded.append(event)
            return s.recordResult
        }
    }

    func dispatch(_ event: Event) {
        state.withLock { $0.dispatched.append(event) }
    }

    func now() -> Date { clock() }
}
