public import Foundation
public import RuleKitCore

/// History searches and answers are the shared `EventHistoryRequest`/`EventHistoryResult` of RuleKitCore.
public typealias HistoryRequest = EventHistoryRequest
/// The answer to a history search.
public typealias HistoryResult = EventHistoryResult

/// What the engine needs from its host: state lookups, event history, the clock, and a way out for the
/// events consequences produce. The event hub implements it; tests use a mock.
public protocol RulesRuntime: Sendable {
    /// The data of `extensionName`'s standard shared state at `event`'s version, or nil when there is none.
    ///
    /// - Parameters:
    ///   - extensionName: the state's owner.
    ///   - event: the event whose version is read.
    /// - Returns: the state's data, or nil.
    func sharedState(_ extensionName: String, at event: Event) -> ValueObject?
    /// The data of its XDM shared state (`~xdm.`), or nil.
    ///
    /// - Parameters:
    ///   - extensionName: the state's owner.
    ///   - event: the event whose version is read.
    /// - Returns: the state's data, or nil.
    func xdmSharedState(_ extensionName: String, at event: Event) -> ValueObject?
    /// Runs history searches, one result per request (with `enforceOrder`, each search starts after the
    /// previous match).
    ///
    /// - Parameters:
    ///   - requests: the searches.
    ///   - enforceOrder: each search starts after the previous match.
    /// - Returns: one result per request.
    func queryHistory(_ requests: [HistoryRequest], enforceOrder: Bool) -> [HistoryResult]
    /// Records `event` in history; false when recording failed.
    ///
    /// - Parameter event: the event (its `mask` chooses the keys hashed).
    /// - Returns: false when recording failed.
    func recordHistory(_ event: Event) -> Bool
    /// Hands an event the engine produced to the host (it comes back through `process`).
    ///
    /// - Parameter event: the event.
    func dispatch(_ event: Event)
    /// The evaluation clock (`~timestamp*` read it once per evaluation).
    func now() -> Date
    /// What `~sdkver` returns.
    var sdkVersion: String { get }
}

extension RulesRuntime {
    /// No XDM shared states by default.
    public func xdmSharedState(_ extensionName: String, at event: Event) -> ValueObject? { nil }
    /// The error value for every search by default (no history).
    public func queryHistory(_ requests: [HistoryRequest], enforceOrder: Bool) -> [HistoryResult] {
        requests.map { _ in .databaseError }
    }
    /// Records nothing by default.
    public func recordHistory(_ event: Event) -> Bool { false }
    /// The system clock by default.
    public func now() -> Date { Date() }
    /// RuleKit's version by default.
    public var sdkVersion: String { RuleKitVersion.current }
}
