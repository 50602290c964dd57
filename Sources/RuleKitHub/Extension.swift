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

    /// Made by the hub at registration (nil: the extension cannot run, and is not registered).
    ///
    /// - Parameter runtime: what the hub gives the extension.
    init?(runtime: any ExtensionRuntime)
    /// Called on the extension's queue once it is registered: register listeners, publish states.
    func onRegistered()
    /// Called on the extension's queue once it is unregistered: release what it holds.
    func onUnregistered()
    /// False holds this extension's queue at `event`; it is offered again at the next trigger (a new
    /// event, or `startEvents`).
    ///
    /// - Parameter event: the next event of the extension's queue.
    /// - Returns: whether the extension takes it now.
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
    ///
    /// - Parameter event: the event offered.
    /// - Returns: true.
    public func readyForEvent(_ event: Event) -> Bool { true }
    /// Every event is offered by default.
    public var skipsUnheardEvents: Bool { false }

    /// Registers a listener through the runtime.
    ///
    /// - Parameters:
    ///   - type: the event type heard (`EventType.wildcard` for all).
    ///   - source: the event source heard (`EventSource.wildcard` for all).
    ///   - listener: called on the extension's queue with each matching event.
    public func registerListener(type: String, source: String, listener: @escaping EventListener) {
        runtime.registerListener(type: type, source: source, listener: listener)
    }

    /// Dispatches through the runtime.
    ///
    /// - Parameter event: the event.
    public func dispatch(event: Event) { runtime.dispatch(event: event) }

    /// Creates a shared state through the runtime.
    ///
    /// - Parameters:
    ///   - data: the state's data.
    ///   - event: the event it is versioned at (nil: the next version).
    public func createSharedState(data: ValueObject, event: Event?) {
        runtime.createSharedState(data: data, event: event)
    }

    /// Creates a pending shared state through the runtime.
    ///
    /// - Parameter event: the event it is versioned at (nil: the next version).
    /// - Returns: the resolver that sets its data.
    public func createPendingSharedState(event: Event?) -> SharedStateResolver {
        runtime.createPendingSharedState(event: event)
    }

    /// Creates an XDM shared state through the runtime.
    ///
    /// - Parameters:
    ///   - data: the state's data.
    ///   - event: the event it is versioned at (nil: the next version).
    public func createXDMSharedState(data: ValueObject, event: Event?) {
        runtime.createXDMSharedState(data: data, event: event)
    }

    /// Reads another extension's shared state through the runtime.
    ///
    /// - Parameters:
    ///   - extensionName: the owner.
    ///   - event: the event whose version is read (nil: the latest).
    ///   - barrier: a set state counts as pending until its owner has processed the events before `event`.
    ///   - resolution: `.any` or `.lastSet`.
    /// - Returns: the state and its status, or nil when no such extension is registered.
    public func getSharedState(
        extensionName: String, event: Event?, barrier: Bool = false,
        resolution: SharedStateResolution = .any
    ) -> SharedStateResult? {
        runtime.getSharedState(extensionName: extensionName, event: event, barrier: barrier, resolution: resolution)
    }

    /// Reads another extension's XDM shared state through the runtime.
    ///
    /// - Parameters:
    ///   - extensionName: the owner.
    ///   - event: the event whose version is read (nil: the latest).
    ///   - barrier: a set state counts as pending until its owner has processed the events before `event`.
    ///   - resolution: `.any` or `.lastSet`.
    /// - Returns: the state and its status, or nil when no such extension is registered.
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
    /// Registers a listener.
    ///
    /// - Parameters:
    ///   - type: the event type heard (`EventType.wildcard` for all).
    ///   - source: the event source heard (`EventSource.wildcard` for all).
    ///   - listener: called on the extension's queue with each matching event.
    func registerListener(type: String, source: String, listener: @escaping EventListener)
    /// Calls `listener` once with the response to `triggerEvent`, or with nil after `timeout` seconds.
    ///
    /// - Parameters:
    ///   - triggerEvent: the request.
    ///   - timeout: seconds to wait.
    ///   - listener: called once, with the response or nil.
    func registerResponseListener(triggerEvent: Event, timeout: Double, listener: @escaping ResponseListener)
    /// Dispatches an event to the hub.
    ///
    /// - Parameter event: the event.
    func dispatch(event: Event)
    /// Creates a shared state.
    ///
    /// - Parameters:
    ///   - data: the state's data.
    ///   - event: the event it is versioned at (nil: the next version).
    func createSharedState(data: ValueObject, event: Event?)
    /// Creates a pending shared state, set later by the resolver.
    ///
    /// - Parameter event: the event it is versioned at (nil: the next version).
    /// - Returns: the resolver that sets its data.
    func createPendingSharedState(event: Event?) -> SharedStateResolver
    /// Creates an XDM shared state.
    ///
    /// - Parameters:
    ///   - data: the state's data.
    ///   - event: the event it is versioned at (nil: the next version).
    func createXDMSharedState(data: ValueObject, event: Event?)
    /// Creates a pending XDM shared state, set later by the resolver.
    ///
    /// - Parameter event: the event it is versioned at (nil: the next version).
    /// - Returns: the resolver that sets its data.
    func createPendingXDMSharedState(event: Event?) -> SharedStateResolver
    /// Reads an extension's shared state.
    ///
    /// - Parameters:
    ///   - extensionName: the owner.
    ///   - event: the event whose version is read (nil: the latest).
    ///   - barrier: a set state counts as pending until its owner has processed the events before `event`.
    ///   - resolution: `.any` or `.lastSet`.
    /// - Returns: the state and its status, or nil when no such extension is registered.
    func getSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    /// Reads an extension's XDM shared state.
    ///
    /// - Parameters:
    ///   - extensionName: the owner.
    ///   - event: the event whose version is read (nil: the latest).
    ///   - barrier: a set state counts as pending until its owner has processed the events before `event`.
    ///   - resolution: `.any` or `.lastSet`.
    /// - Returns: the state and its status, or nil when no such extension is registered.
    func getXDMSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    /// Resumes delivery to this extension.
    func startEvents()
    /// Holds delivery to this extension (events wait in its queue).
    func stopEvents()
    /// Searches event history (see `EventHistoryStore`).
    ///
    /// - Parameters:
    ///   - requests: the masks asked about, each with its time window.
    ///   - enforceOrder: each request's match must come after the previous one's.
    /// - Returns: a result per request.
    func getHistoricalEvents(_ requests: [EventHistoryRequest], enforceOrder: Bool) -> [EventHistoryResult]
    /// Records an event in history.
    ///
    /// - Parameter event: the event (its `mask` chooses the keys hashed).
    /// - Returns: false when it could not be recorded.
    func recordHistoricalEvent(_ event: Event) -> Bool
    /// Adds an event preprocessor to the hub (the rules engine is one).
    ///
    /// - Parameter preprocessor: rewrites an event before any listener hears it.
    func registerPreprocessor(_ preprocessor: @escaping EventPreprocessor)
}
