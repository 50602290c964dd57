public import RuleKitCore

/// A stand-in hub for unit-testing one extension: simulate incoming events and other extensions'
/// shared states, and inspect what the extension dispatched, shared and registered.
///
/// ```swift
/// let runtime = TestableExtensionRuntime()
/// let ext = Greeter(runtime: runtime)!
/// ext.onRegistered()
/// runtime.simulateSharedState(extensionName: "com.adobe.module.configuration", event: nil, data: ["a": 1])
/// runtime.simulateComingEvent(event)
/// #expect(runtime.dispatchedEvents.count == 1)
/// ```
public final class TestableExtensionRuntime: ExtensionRuntime {
    struct Listener {
        var type: String
        var source: String
        var call: EventListener
    }

    struct State {
        var listeners: [Listener] = []
        var dispatched: [Event] = []
        var created: [(ValueObject?, Event?)] = []
        var createdXDM: [(ValueObject?, Event?)] = []
        var states: [String: (ValueObject?, SharedStateStatus)] = [:]
        var xdmStates: [String: (ValueObject?, SharedStateStatus)] = [:]
        var responseListeners: [(Event, ResponseListener)] = []
        var stopped = false
        var history: [UInt32] = []
        var preprocessors: [EventPreprocessor] = []
    }

    private let state = Locked(State())

    /// A runtime with nothing registered, dispatched or shared.
    public init() {}

    // MARK: simulation

    /// Delivers an event to the extension's matching listeners, synchronously; a response answers the
    /// response listeners registered for its trigger.
    ///
    /// - Parameter event: the event, as the hub would deliver it.
    public func simulateComingEvent(_ event: Event) {
        let listeners = state.withLock { $0.listeners }
        for l in listeners {
            let matches =
                event.responseID != nil
                ? l.type == EventType.wildcard && l.source == EventSource.wildcard
                : (l.type == EventType.wildcard || l.type == event.type) && (l.source == EventSource.wildcard || l.source == event.source)
            if matches { l.call(event) }
        }
        if let rid = event.responseID {
            let answered = state.withLock { s -> [ResponseListener] in
                let hits = s.responseListeners.filter { $0.0.id == rid }.map(\.1)
                s.responseListeners.removeAll { $0.0.id == rid }
                return hits
            }
            for r in answered { r(event) }
        }
    }

    /// Delivers each event as `simulateComingEvent` does, in order.
    ///
    /// - Parameter events: the events, in order.
    public func simulateComingEvents(_ events: Event...) { for e in events { simulateComingEvent(e) } }

    /// Makes `extensionName`'s shared state read as `data` (for any event).
    ///
    /// - Parameters:
    ///   - extensionName: the owner (compared case-insensitively).
    ///   - event: the event the state is for (any event reads it: versions are not simulated).
    ///   - data: the state's data.
    ///   - status: set, pending or none.
    public func simulateSharedState(
        extensionName: String, event: Event?, data: ValueObject?,
        status: SharedStateStatus = .set
    ) {
        state.withLock { $0.states[extensionName.lowercased()] = (data, status) }
    }

    /// Makes `extensionName`'s XDM shared state read as `data` (for any event).
    ///
    /// - Parameters:
    ///   - extensionName: the owner (compared case-insensitively).
    ///   - event: the event the state is for (any event reads it: versions are not simulated).
    ///   - data: the state's data.
    ///   - status: set, pending or none.
    public func simulateXDMSharedState(
        extensionName: String, event: Event?, data: ValueObject?,
        status: SharedStateStatus = .set
    ) {
        state.withLock { $0.xdmStates[extensionName.lowercased()] = (data, status) }
    }

    // MARK: inspection

    /// What the extension dispatched, in order.
    public var dispatchedEvents: [Event] { state.withLock { $0.dispatched } }
    /// The first event the extension dispatched.
    public var firstEvent: Event? { dispatchedEvents.first }
    /// The shared states the extension created, in order.
    public var createdSharedStates: [ValueObject?] { state.withLock { $0.created.map(\.0) } }
    /// The XDM shared states the extension created, in order.
    public var createdXDMSharedStates: [ValueObject?] { state.withLock { $0.createdXDM.map(\.0) } }
    /// How many listeners the extension registered.
    public var listenerCount: Int { state.withLock { $0.listeners.count } }
    /// Whether the extension stopped its events.
    public var isStopped: Bool { state.withLock { $0.stopped } }
    /// Forgets the dispatched events.
    public func resetDispatchedEvents() { state.withLock { $0.dispatched.removeAll() } }

    // MARK: ExtensionRuntime

    /// Keeps the listener for `simulateComingEvent`.
    ///
    /// - Parameters:
    ///   - type: the event type heard (`EventType.wildcard` for all).
    ///   - source: the event source heard (`EventSource.wildcard` for all).
    ///   - listener: called with each matching event.
    public func registerListener(type: String, source: String, listener: @escaping EventListener) {
        state.withLock { $0.listeners.append(Listener(type: type, source: source, call: listener)) }
    }

    /// Keeps the response listener until a simulated response answers it (no time-out).
    ///
    /// - Parameters:
    ///   - triggerEvent: the request whose response is awaited.
    ///   - timeout: not simulated.
    ///   - listener: called with the response.
    public func registerResponseListener(triggerEvent: Event, timeout: Double, listener: @escaping ResponseListener) {
        state.withLock { $0.responseListeners.append((triggerEvent, listener)) }
    }

    /// Records the event in `dispatchedEvents`.
    ///
    /// - Parameter event: the event the extension dispatched.
    public func dispatch(event: Event) { state.withLock { $0.dispatched.append(event) } }

    /// Records the state in `createdSharedStates`.
    ///
    /// - Parameters:
    ///   - data: the state's data.
    ///   - event: the event it is for (nil: the latest).
    public func createSharedState(data: ValueObject, event: Event?) {
        state.withLock { $0.created.append((data, event)) }
    }

    /// Records a pending state; the resolver records the data when called.
    ///
    /// - Parameter event: the event it is for (nil: the latest).
    /// - Returns: the resolver.
    public func createPendingSharedState(event: Event?) -> SharedStateResolver {
        state.withLock { $0.created.append((nil, event)) }
        return { [weak self] data in self?.state.withLock { $0.created.append((data, event)) } }
    }

    /// Records the state in `createdXDMSharedStates`.
    ///
    /// - Parameters:
    ///   - data: the state's data.
    ///   - event: the event it is for (nil: the latest).
    public func createXDMSharedState(data: ValueObject, event: Event?) {
        state.withLock { $0.createdXDM.append((data, event)) }
    }

    /// Records a pending XDM state; the resolver records the data when called.
    ///
    /// - Parameter event: the event it is for (nil: the latest).
    /// - Returns: the resolver.
    public func createPendingXDMSharedState(event: Event?) -> SharedStateResolver {
        state.withLock { $0.createdXDM.append((nil, event)) }
        return { [weak self] data in self?.state.withLock { $0.createdXDM.append((data, event)) } }
    }

    /// The simulated shared state of `extensionName` (names compare case-insensitively).
    ///
    /// - Parameters:
    ///   - extensionName: the owner.
    ///   - event: not simulated (every event reads the one state).
    ///   - barrier: not simulated.
    ///   - resolution: not simulated.
    /// - Returns: the state, or nil when none was simulated.
    public func getSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    {
        state.withLock { s in s.states[extensionName.lowercased()].map { SharedStateResult(status: $0.1, value: $0.0) } }
    }

    /// The simulated XDM shared state of `extensionName` (names compare case-insensitively).
    ///
    /// - Parameters:
    ///   - extensionName: the owner.
    ///   - event: not simulated (every event reads the one state).
    ///   - barrier: not simulated.
    ///   - resolution: not simulated.
    /// - Returns: the state, or nil when none was simulated.
    public func getXDMSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    {
        state.withLock { s in s.xdmStates[extensionName.lowercased()].map { SharedStateResult(status: $0.1, value: $0.0) } }
    }

    /// Marks the extension's events as started.
    public func startEvents() { state.withLock { $0.stopped = false } }
    /// Marks the extension's events as stopped.
    public func stopEvents() { state.withLock { $0.stopped = true } }

    /// Counts recorded hashes for each request (time windows are not simulated).
    ///
    /// - Parameters:
    ///   - requests: the masks asked about.
    ///   - enforceOrder: not simulated.
    /// - Returns: a count per request.
    public func getHistoricalEvents(_ requests: [EventHistoryRequest], enforceOrder: Bool) -> [EventHistoryResult] {
        let history = state.withLock { $0.history }
        return requests.map { r in
            EventHistoryResult(count: history.filter { $0 == EventHistoryHash.hash(r.mask) }.count)
        }
    }

    /// Keeps the preprocessor; `simulateComingEvent` does not run it (`preprocess` does).
    ///
    /// - Parameter preprocessor: rewrites an event before delivery.
    public func registerPreprocessor(_ preprocessor: @escaping EventPreprocessor) {
        state.withLock { $0.preprocessors.append(preprocessor) }
    }

    /// Runs the registered preprocessors on `event`, as the hub would before delivery.
    ///
    /// - Parameter event: the event.
    /// - Returns: the event as the preprocessors leave it.
    public func preprocess(_ event: Event) -> Event {
        let ps = state.withLock { $0.preprocessors }
        return ps.reduce(event) { e, p in p(e) }
    }

    /// Records the event's history hash.
    ///
    /// - Parameter event: the event (its `mask` chooses the keys hashed).
    /// - Returns: false when the hash is 0 (nothing to record).
    public func recordHistoricalEvent(_ event: Event) -> Bool {
        let h = EventHistoryHash.hash(event.data, mask: event.mask)
        state.withLock { $0.history.append(h) }
        return h != 0
    }
}
