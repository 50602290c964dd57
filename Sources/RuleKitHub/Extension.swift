public import RuleKitCore

/// Receives an event.
public typealias EventListener = @Sendable (Event) -> Void
/// Receives the response to an event, or nil when none came before the time-out.
public typealias ResponseListener = @Sendable (Event?) -> Void
/// Rewrites an event before any listener sees it (the rules engine is one).
public typealias EventPreprocessor = @Sendable (Event) -> Event

/// An extension of the hub: a class the hub creates with a runtime and then calls on the extension's
/// own serial queue (`onRegistered`, `readyForEvent`, listeners), never two at once.
///
/// Extensions are `Sendable` because the hub hands them between threads; keep mutable state confined to
/// the extension's queue (mark the class `@unchecked Sendable`) or behind a lock.
///
/// ```swift
/// final class Greeter: Extension, @unchecked Sendable {
///     let name = "com.example.greeter", friendlyName = "Greeter", version = "1.0.0"
///     let runtime: any ExtensionRuntime
///     init?(runtime: any ExtensionRuntime) { self.runtime = runtime }
///     func onRegistered() {
///         registerListener(type: EventType.wildcard, source: EventSource.wildcard) { print($0.name) }
///     }
///     func onUnregistered() {}
/// }
/// ```
public protocol Extension: AnyObject, Sendable {
    /// Unique name; other extensions read this extension's shared state by it.
    var name: String { get }
    var friendlyName: String { get }
    var version: String { get }
    var metadata: [String: String]? { get }
    /// Names of extensions whose `onRegistered` must finish before this one's starts.
    var dependencies: [String] { get }
    /// An object other extensions and the host look up by this extension's name (`EventHub.api`).
    var api: (any Sendable)? { get }
    var runtime: any ExtensionRuntime { get }

    init?(runtime: any ExtensionRuntime)
    func onRegistered()
    func onUnregistered()
    /// False holds this extension's queue at `event`; it is offered again at the next trigger (a new
    /// event, or `startEvents`).
    func readyForEvent(_ event: Event) -> Bool
    /// Whether the hub may leave out of this extension's queue the events none of its listeners hears
    /// (default false). Saying yes promises that `readyForEvent` holds no event and that every listener is
    /// registered in `onRegistered`: an event no listener hears then changes nothing the extension does,
    /// and skipping it saves a queue hop per event. Barrier reads of the extension's shared states still
    /// see it up to date with the events it was spared.
    var skipsUnheardEvents: Bool { get }
}

extension Extension {
    /// No metadata by default.
    public var metadata: [String: String]? { nil }
    /// No dependencies by default.
    public var dependencies: [String] { [] }
    /// No published API by default.
    public var api: (any Sendable)? { nil }
    /// Ready for every event by default.
    public func readyForEvent(_ event: Event) -> Bool { true }
    /// Every event is offered by default.
    public var skipsUnheardEvents: Bool { false }

    /// Registers a listener through the runtime.
    public func registerListener(type: String, source: String, listener: @escaping EventListener) {
        runtime.registerListener(type: type, source: source, listener: listener)
    }

    /// Dispatches through the runtime.
    public func dispatch(event: Event) { runtime.dispatch(event: event) }

    /// Creates a shared state through the runtime.
    public func createSharedState(data: ValueObject, event: Event?) {
        runtime.createSharedState(data: data, event: event)
    }

    /// Creates a pending shared state through the runtime.
    public func createPendingSharedState(event: Event?) -> SharedStateResolver {
        runtime.createPendingSharedState(event: event)
    }

    /// Creates an XDM shared state through the runtime.
    public func createXDMSharedState(data: ValueObject, event: Event?) {
        runtime.createXDMSharedState(data: data, event: event)
    }

    /// Reads another extension's shared state through the runtime.
    public func getSharedState(
        extensionName: String, event: Event?, barrier: Bool = false,
        resolution: SharedStateResolution = .any
    ) -> SharedStateResult? {
        runtime.getSharedState(extensionName: extensionName, event: event, barrier: barrier, resolution: resolution)
    }

    /// Reads another extension's XDM shared state through the runtime.
    public func getXDMSharedState(
        extensionName: String, event: Event?, barrier: Bool = false,
        resolution: SharedStateResolution = .any
    ) -> SharedStateResult? {
        runtime.getXDMSharedState(extensionName: extensionName, event: event, barrier: barrier, resolution: resolution)
    }

    /// Resumes delivery to this extension.
    public func startEvents() { runtime.startEvents() }
    /// Holds delivery to this extension.
    public func stopEvents() { runtime.stopEvents() }
}

/// What the hub gives each extension.
public protocol ExtensionRuntime: Sendable {
    func registerListener(type: String, source: String, listener: @escaping EventListener)
    /// Calls `listener` once with the response to `triggerEvent`, or with nil after `timeout` seconds.
    func registerResponseListener(triggerEvent: Event, timeout: Double, listener: @escaping ResponseListener)
    func dispatch(event: Event)
    func createSharedState(data: ValueObject, event: Event?)
    func createPendingSharedState(event: Event?) -> SharedStateResolver
    func createXDMSharedState(data: ValueObject, event: Event?)
    func createPendingXDMSharedState(event: Event?) -> SharedStateResolver
    func getSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    func getXDMSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    func startEvents()
    func stopEvents()
    /// Searches event history (see `EventHistoryStore`).
    func getHistoricalEvents(_ requests: [EventHistoryRequest], enforceOrder: Bool) -> [EventHistoryResult]
    /// Records an event in history; false when it could not be recorded.
    func recordHistoricalEvent(_ event: Event) -> Bool
    /// Adds an event preprocessor to the hub (the rules engine is one).
    func registerPreprocessor(_ preprocessor: @escaping EventPreprocessor)
}
