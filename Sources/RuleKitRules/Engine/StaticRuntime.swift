public import Foundation
public import RuleKitCore

/// A runtime with fixed shared states and an in-memory event history, collecting what the engine
/// dispatches: for offline evaluation (`rulekit explain`, `rulekit test`), benchmarks and tests.
public final class StaticRulesRuntime: RulesRuntime {
    /// Shared states by extension name.
    public let states: [String: ValueObject]
    /// XDM shared states by extension name.
    public let xdmStates: [String: ValueObject]
    /// The clock evaluations read.
    public let clock: @Sendable () -> Date
    private let recorded = Locked<([Event], [Event])>(([], []))

    /// A runtime answering with these states and this clock, with an empty history.
    ///
    /// - Parameters:
    ///   - states: shared states by owner.
    ///   - xdmStates: XDM shared states by owner.
    ///   - clock: the clock evaluations read (`~timestamp*`).
    public init(
        states: [String: ValueObject] = [:], xdmStates: [String: ValueObject] = [:],
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.states = states
        self.xdmStates = xdmStates
        self.clock = clock
    }

    /// The state of that name, matched exactly first, then case-insensitively; the same at every event.
    public func sharedState(_ extensionName: String, at event: Event) -> ValueObject? {
        states[extensionName] ?? states.first { $0.key.lowercased() == extensionName.lowercased() }?.value
    }

    /// The XDM state of that name, matched exactly first, then case-insensitively.
    public func xdmSharedState(_ extensionName: String, at event: Event) -> ValueObject? {
        xdmStates[extensionName] ?? xdmStates.first { $0.key.lowercased() == extensionName.lowercased() }?.value
    }

    /// Searches the events recorded so far, by flattened data and time window.
    public func queryHistory(_ requests: [HistoryRequest], enforceOrder: Bool) -> [HistoryResult] {
        let history = recorded.withLock { $0.1 }
        var after: Date?
        return requests.map { req in
            let hits = history.filter { e in
                guard let data = e.data else { return false }
                let flat = Flatten.object(data, arrays: true)
                guard req.mask.allSatisfy({ SwiftDescription.describe(flat[$0.key] ?? .null) == SwiftDescription.describe($0.value) })
                else { return false }
                if let f = req.from, e.timestamp < f { return false }
                if let t = req.to, e.timestamp > t { return false }
                if enforceOrder, let a = after, e.timestamp < a { return false }
                return true
            }
            if enforceOrder { after = hits.map(\.timestamp).min() }
            return HistoryResult(count: hits.count, oldest: hits.map(\.timestamp).min(), newest: hits.map(\.timestamp).max())
        }
    }

    /// Keeps the event in the in-memory history.
    public func recordHistory(_ event: Event) -> Bool {
        recorded.withLock { $0.1.append(event) }
        return true
    }

    /// Collects the event for `dispatched`.
    public func dispatch(_ event: Event) {
        recorded.withLock { $0.0.append(event) }
    }

    /// Reads `clock`.
    public func now() -> Date { clock() }

    /// Everything dispatched so far, in order; `clear` empties the list.
    ///
    /// - Parameter clear: empty the list after reading it.
    /// - Returns: the events, in order.
    public func dispatched(clear: Bool = false) -> [Event] {
        recorded.withLock { r in
            defer { if clear { r.0.removeAll() } }
            return r.0
        }
    }
}
