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

    public init() {}

    // MARK: simulation

    /// Delivers an event to the extension's matching listeners, synchronously.
    public func simulateComingEvent(_ event: Event) {
        let listeners = state.withLock { $0.listeners }
        for l in listeners {
            let matches = event.responseID != nil
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

    public func simulateComingEvents(_ events: Event...) { for e in events { simulateComingEvent(e) } }

    /// Makes `extensionName`'s shared state read as `data` (for any event).
    public func simulateSharedState(extensionName: String, event: Event?, data: ValueObject?,
                                    status: SharedStateStatus = .set) {
        state.withLock { $0.states[extensionName.lowercased()] = (data, status) }
    }

    public func simulateXDMSharedState(extensionName: String, event: Event?, data: ValueObject?,
                                       status: SharedStateStatus = .set) {
        state.withLock { $0.xdmStates[extensionName.lowercased()] = (data, status) }
    }

    // MARK: inspection

    public var dispatchedEvents: [Event] { state.withLock { $0.dispatched } }
    public var firstEvent: Event? { dispatchedEvents.first }
    public var createdSharedStates: [ValueObject?] { state.withLock { $0.created.map(\.0) } }
    public var createdXDMSharedStates: [ValueObject?] { state.withLock { $0.createdXDM.map(\.0) } }
    public var listenerCount: Int { state.withLock { $0.listeners.count } }
    public var isStopped: Bool { state.withLock { $0.stopped } }
    public func resetDispatchedEvents() { state.withLock { $0.dispatched.removeAll() } }

    // MARK: ExtensionRuntime

    public func registerListener(type: String, source: String, listener: @escaping EventListener) {
        state.withLock { $0.listeners.append(Listener(type: type, source: source, call: listener)) }
    }

    public func registerResponseListener(triggerEvent: Event, timeout: Double, listener: @escaping ResponseListener) {
        state.withLock { $0.responseListeners.append((triggerEvent, listener)) }
    }

    public func dispatch(event: Event) { state.withLock { $0.dispatched.append(event) } }

    public func createSharedState(data: ValueObject, event: Event?) {
        state.withLock { $0.created.append((data, event)) }
    }

    public func createPendingSharedState(event: Event?) -> SharedStateResolver {
        state.withLock { $0.created.append((nil, event)) }
        return { [weak self] data in self?.state.withLock { $0.created.append((data, event)) } }
    }

    public func createXDMSharedState(data: ValueObject, event: Event?) {
        state.withLock { $0.createdXDM.append((data, event)) }
    }

    public func createPendingXDMSharedState(event: Event?) -> SharedStateResolver {
        state.withLock { $0.createdXDM.append((nil, event)) }
        return { [weak self] data in self?.state.withLock { $0.createdXDM.append((data, event)) } }
    }

    public func getSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    {
        state.withLock { s in s.states[extensionName.lowercased()].map { SharedStateResult(status: $0.1, value: $0.0) } }
    }

    public func getXDMSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    {
        state.withLock { s in s.xdmStates[extensionName.lowercased()].map { SharedStateResult(status: $0.1, value: $0.0) } }
    }

    public func startEvents() { state.withLock { $0.stopped = false } }
    public func stopEvents() { state.withLock { $0.stopped = true } }

    public func getHistoricalEvents(_ requests: [EventHistoryRequest], enforceOrder: Bool) -> [EventHistoryResult] {
        let history = state.withLock { $0.history }
        return requests.map { r in
            EventHistoryResult(count: history.filter { $0 == EventHistoryHash.hash(r.mask) }.count)
        }
    }

    public func registerPreprocessor(_ preprocessor: @escaping EventPreprocessor) {
        state.withLock { $0.preprocessors.append(preprocessor) }
    }

    /// Runs the registered preprocessors on `event`, as the hub would before delivery.
    public func preprocess(_ event: Event) -> Event {
        let ps = state.withLock { $0.preprocessors }
        return ps.reduce(event) { e, p in p(e) }
    }

    public func recordHistoricalEvent(_ event: Event) -> Bool {
        let h = EventHistoryHash.hash(event.data, mask: event.mask)
        state.withLock { $0.history.append(h) }
        return h != 0
    }
}
