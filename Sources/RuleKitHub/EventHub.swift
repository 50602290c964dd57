internal import Foundation
public import RuleKitCore
public import RuleKitHistory

/// Why the hub refused an extension.
public enum HubError: Error, Sendable, Hashable, CustomStringConvertible {
    case initFailed(String)
    case duplicateName(String)
    case missingDependency(extension: String, dependency: String)
    case dependencyCycle([String])
    case notRegistered(String)

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .initFailed(let t): "extension \(t) returned nil from init(runtime:)"
        case .duplicateName(let n): "an extension named '\(n)' is already registered"
        case .missingDependency(let e, let d): "extension '\(e)' depends on '\(d)', which is not registered"
        case .dependencyCycle(let chain): "extension dependencies form a cycle: \(chain.joined(separator: " → "))"
        case .notRegistered(let n): "no extension named '\(n)' is registered"
        }
    }
}

/// The event hub: registers extensions, numbers and preprocesses every event, delivers it to each
/// extension's queue, and keeps versioned shared states and event history (the `MobileCore` role).
///
/// The host owns the hub and keeps it alive while events should flow: extensions reach it through weak
/// references, so once the host releases it, what extensions dispatch goes nowhere.
///
/// ```swift
/// let hub = EventHub()
/// hub.registerExtensions([RulesExtension.self, Greeter.self]) { result in ... }   // boots the hub
/// hub.dispatch(Event(name: "Purchase", type: EventType.edge, source: EventSource.requestContent, data: data))
/// ```
public final class EventHub: Sendable {
    /// The hub's own name, as the owner of its shared state.
    public static let name = "com.adobe.module.eventhub"
    /// The name of the event announcing a shared-state change.
    public static let sharedStateEventName = "Shared state change"
    /// The name of the event announcing an XDM shared-state change.
    public static let xdmSharedStateEventName = "Shared state change (XDM)"
    /// The data key naming the extension whose state changed.
    public static let stateOwnerKey = "stateowner"

    /// How the hub is set up.
    public struct Options: Sendable {
        /// The wrapper type in the hub's shared state (`N`: none).
        public var wrapperType: String
        /// The wrapper name in the hub's shared state.
        public var wrapperName: String
        /// Where event history is kept.
        public var history: any EventHistoryStore
        /// How many event ids the hub remembers for versioning copies of events it did not hand out.
        public var rememberedEventIDs: Int
        /// Whose history an event belongs to (nil: one history for all): set as `HistoryIdentity.current`
        /// while the event is preprocessed (the rules query and record history then) and recorded.
        public var identity: (@Sendable (Event) -> String?)?
        /// Whether every extension's deliveries, and the hub's own dispatching, run one at a time (their
        /// queues all target one serial queue), instead of each extension's queue running beside the others.
        /// Each extension still gets its events in order, one at a time.
        ///
        /// For a host with one core to give the hub: `rulekit run` reads and parses its input on the other,
        /// and extensions taking turns on the one core in threads of their own cost switches, wake-ups and
        /// cache misses (a tenth of its time). The price is the contract's queue per extension: a slow
        /// listener holds up every extension, and a listener must never wait for another extension's
        /// progress (it would wait for itself).
        public var serialDelivery = false
        /// Sees each batch of events the hub loop hands to the extensions, in hub order, after the
        /// preprocessors and before any listener hears them: what a host that collects every event delivered
        /// needs, at one call per batch instead of a listener call per event. Runs on the hub's queue.
        public var onDelivering: (@Sendable ([Event]) -> Void)?

        /// Options with the defaults of a native app and an in-memory history.
        ///
        /// - Parameters:
        ///   - wrapperType: the wrapper's code in the hub's shared state (`N`: native).
        ///   - wrapperName: the wrapper's name in the hub's shared state.
        ///   - history: where event history is kept.
        ///   - rememberedEventIDs: how many recent event ids keep their number (for state reads at an event).
        public init(
            wrapperType: String = "N", wrapperName: String = "None",
            history: any EventHistoryStore = InMemoryEventHistory(), rememberedEventIDs: Int = 65_536
        ) {
            self.wrapperType = wrapperType
            self.wrapperName = wrapperName
            self.history = history
            self.rememberedEventIDs = rememberedEventIDs
        }
    }

    /// A response listener; its time-out finds it gone once a response removed it (exactly once).
    struct ResponseEntry: Sendable {
        var token: UUID
        var listener: ResponseListener
    }

    struct State {
        var started = false
        var nextNumber = 0
        var pending = RingQueue<Event>()
        var drainScheduled = false
        var containers: [String: ExtensionContainer] = [:]
        var order: [ExtensionContainer] = []
        var preprocessors: [EventPreprocessor] = []
        var responseListeners: [UUID: [ResponseEntry]] = [:]
        /// The last `rememberedEventIDs` events dispatched, by id, for `number(of:)` on copies of events
        /// made before the hub numbered them (the host's own): a ring, searched from the newest, because
        /// the hub numbers every event and such lookups are rare.
        var numbered = RingQueue<(id: UUID, number: Int)>()
    }

    let options: Options
    let state = Locked(State())
    /// The containers by lowercased name again, under a lock of their own: extensions read shared states
    /// (by name) for every event they process, and the hub's own lock is busy with every dispatch.
    private let names = Locked<[String: ExtensionContainer]>([:])
    let hubQueue: DispatchQueue
    /// The serial queue every delivery queue targets when `Options.serialDelivery` is set (nil otherwise).
    let deliveryTarget: DispatchQueue?
    let timerQueue = DispatchQueue(label: "rulekit.hub.timers")
    let callbackQueue = DispatchQueue(label: "rulekit.hub.callbacks", attributes: .concurrent)
    let placeholder: ExtensionContainer
    /// What is still to deliver, per block dispatched with a completion.
    let settling = Settling()

    /// A hub, not yet booted: it boots when extensions are registered.
    ///
    /// - Parameter options: delivery, history and the host's wrapper.
    public init(options: Options = Options()) {
        self.options = options
        deliveryTarget = options.serialDelivery ? DispatchQueue(label: "rulekit.delivery") : nil
        hubQueue = DispatchQueue(label: "rulekit.hub", target: deliveryTarget)
        placeholder = ExtensionContainer(label: EventHub.name, settling: settling, target: deliveryTarget)
        let runtime = HubRuntime(hub: self, container: placeholder)
        let ext = HubPlaceholderExtension(runtime: runtime)
        placeholder.state.withLock {
            $0.ext = ext
            $0.registered = true
            // The hub's own listeners: its queue takes only the events one of them hears.
            $0.selective = true
        }
        placeholder.registration.leave()
        state.withLock { s in
            s.containers[EventHub.name.lowercased()] = placeholder
            s.order.append(placeholder)
        }
        names.withLock { $0[EventHub.name.lowercased()] = placeholder }
    }

    // MARK: registration

    /// Makes an extension for a runtime: how extensions that need configuration are registered.
    public typealias ExtensionFactory = @Sendable (any ExtensionRuntime) -> (any Extension)?

    /// Registers the initial extensions (made by factories) concurrently, then boots the hub.
    ///
    /// - Parameters:
    ///   - factories: each makes one extension from its runtime (nil: the extension refuses to start).
    ///   - completion: hears whether every extension registered (the first error otherwise), once the hub
    ///     has booted.
    public func registerExtensions(
        factories: [ExtensionFactory],
        completion: (@Sendable (Result<Void, HubError>) -> Void)? = nil
    ) {
        register(factories.map { f in (f, "extension factory") }) { [self] result in
            start()
            completion?(result)
        }
    }

    /// Registers the initial extensions concurrently, then boots the hub: events dispatched before are
    /// delivered in order after every `onRegistered` finished (in dependency order where declared).
    ///
    /// - Parameters:
    ///   - types: the extensions' types, each made with `init?(runtime:)`.
    ///   - completion: hears whether every extension registered (the first error otherwise), once the hub
    ///     has booted.
    public func registerExtensions(
        _ types: [any Extension.Type],
        completion: (@Sendable (Result<Void, HubError>) -> Void)? = nil
    ) {
        let makers: [(ExtensionFactory, String)] = types.map { t in
            let make: ExtensionFactory = { t.init(runtime: $0) }
            return (make, String(describing: t))
        }
        register(makers) { [self] result in
            start()
            completion?(result)
        }
    }

    /// Registers one more extension, made by a factory, after boot.
    ///
    /// - Parameters:
    ///   - factory: makes the extension from its runtime.
    ///   - completion: hears whether it registered.
    public func registerExtension(
        factory: @escaping ExtensionFactory,
        completion: (@Sendable (Result<Void, HubError>) -> Void)? = nil
    ) {
        register([(factory, "extension factory")]) { [self] result in
            if case .success = result, state.withLock({ $0.started }) { shareHubState() }
            completion?(result)
        }
    }

    /// Registers one more extension after boot.
    ///
    /// - Parameters:
    ///   - type: the extension's type, made with `init?(runtime:)`.
    ///   - completion: hears whether it registered.
    public func registerExtension(
        _ type: any Extension.Type,
        completion: (@Sendable (Result<Void, HubError>) -> Void)? = nil
    ) {
        let make: ExtensionFactory = { type.init(runtime: $0) }
        register([(make, String(describing: type))]) { [self] result in
            if case .success = result, state.withLock({ $0.started }) { shareHubState() }
            completion?(result)
        }
    }

    /// Unregisters an extension: its queue stops, `onUnregistered` runs, the hub state is republished.
    ///
    /// - Parameters:
    ///   - name: the extension's name (any case).
    ///   - completion: hears whether it was registered and is gone.
    public func unregisterExtension(named name: String, completion: (@Sendable (Result<Void, HubError>) -> Void)? = nil) {
        let container = state.withLock { s -> ExtensionContainer? in
            guard let c = s.containers.removeValue(forKey: name.lowercased()) else { return nil }
            s.order.removeAll { $0 === c }
            return c
        }
        names.withLock { _ = $0.removeValue(forKey: name.lowercased()) }
        guard let container else {
            completion?(.failure(.notRegistered(name)))
            return
        }
        container.setStopped(true)
        container.queue.async { [self] in
            container.ext?.onUnregistered()
            if state.withLock({ $0.started }) { shareHubState() }
            completion?(.success(()))
        }
    }

    private func register(_ makers: [(ExtensionFactory, String)], done: @escaping @Sendable (Result<Void, HubError>) -> Void) {
        let group = DispatchGroup()
        let made = Locked<[(ExtensionContainer, (any Extension)?, String)]>([])
        for (make, label) in makers {
            let container = ExtensionContainer(label: label, settling: settling, target: deliveryTarget)
            let runtime = HubRuntime(hub: self, container: container)
            group.enter()
            container.queue.async {
                let ext = make(runtime)
                made.withLock { $0.append((container, ext, label)) }
                group.leave()
            }
        }
        group.notify(queue: hubQueue) { [self] in
            let created = made.withLock { $0 }
            if let failed = created.first(where: { $0.1 == nil }) {
                done(.failure(.initFailed(failed.2)))
                return
            }
            // Names must be unique, dependencies present and acyclic: check everything before anything runs.
            var byName: [String: (ExtensionContainer, any Extension)] = [:]
            let existing = state.withLock { $0.containers }
            for (c, ext, _) in created {
                let key = ext!.name.lowercased()
                if byName[key] != nil || existing[key] != nil {
                    done(.failure(.duplicateName(ext!.name)))
                    return
                }
                byName[key] = (c, ext!)
            }
            if let error = Self.checkDependencies(byName.mapValues { $0.1 }, existing: Set(existing.keys)) {
                done(.failure(error))
                return
            }
            state.withLock { s in
                for (key, (c, ext)) in byName {
                    c.setExtension(ext)
                    s.containers[key] = c
                    s.order.append(c)
                }
            }
            names.withLock { n in for (key, (c, _)) in byName { n[key] = c } }
            let all = DispatchGroup()
            for (_, (c, ext)) in byName {
                let deps = ext.dependencies.compactMap { d in byName[d.lowercased()]?.0 ?? existing[d.lowercased()] }
                all.enter()
                // Dependencies first; independent extensions run their onRegistered concurrently. No queue
                // waits for a dependency: with `serialDelivery`, the dependency would wait behind it.
                Self.afterAll(deps.map(\.registration)[...], on: c.queue) {
                    ext.onRegistered()
                    c.state.withLock { s in
                        s.registered = true
                        s.selective = ext.skipsUnheardEvents
                    }
                    c.registration.leave()
                    c.kick()
                    all.leave()
                }
            }
            all.notify(queue: hubQueue) { done(.success(())) }
        }
    }

    /// Runs `body` on `queue` once every group in `groups` is done, blocking no thread.
    static func afterAll(_ groups: ArraySlice<DispatchGroup>, on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) {
        guard let first = groups.first else { return queue.async(execute: body) }
        first.notify(queue: queue) { afterAll(groups.dropFirst(), on: queue, body) }
    }

    static func checkDependencies(_ exts: [String: any Extension], existing: Set<String>) -> HubError? {
        for (key, ext) in exts.sorted(by: { $0.key < $1.key }) {
            for d in ext.dependencies where exts[d.lowercased()] == nil && !existing.contains(d.lowercased()) {
                return .missingDependency(extension: ext.name, dependency: d)
            }
            // Depth-first walk from each extension, looking for a way back.
            var path = [key]
            func visit(_ k: String) -> [String]? {
                for d in exts[k]?.dependencies ?? [] {
                    let dk = d.lowercased()
                    if let i = path.firstIndex(of: dk) { return Array(path[i...]) + [dk] }
                    guard exts[dk] != nil else { continue }
                    path.append(dk)
                    if let cycle = visit(dk) { return cycle }
                    path.removeLast()
                }
                return nil
            }
            if let cycle = visit(key) {
                return .dependencyCycle(cycle.map { exts[$0]?.name ?? $0 })
            }
        }
        return nil
    }

    /// Starts delivering events (called once registration finished) and publishes the hub's state.
    func start() {
        let already = state.withLock { s -> Bool in
            defer { s.started = true }
            return s.started
        }
        guard !already else { return }
        shareHubState()
        scheduleDrain()
    }

    /// Whether the hub has booted.
    public var isStarted: Bool { state.withLock { $0.started } }

    // MARK: dispatch

    /// Dispatches an event: numbered now, preprocessed and delivered in order on the hub queue.
    ///
    /// - Parameter event: the event.
    public func dispatch(_ event: Event) {
        dispatchBlock(CollectionOfOne(event), completion: nil)
    }

    /// Dispatches events as one block: they are numbered together and delivered one after another, so no
    /// event dispatched meanwhile (by an extension reacting to the first of them) comes between them.
    /// What an offline run needs to deliver the same order every time.
    ///
    /// - Parameter events: the block, in order.
    public func dispatch<S: Sequence<Event>>(contentsOf events: S) {
        dispatch(contentsOf: events, whenDelivered: nil)
    }

    /// Dispatches events as one block (as `dispatch(contentsOf:)`), and calls `completion` once they, and
    /// every event they caused (dispatched with a `parentID` among them, transitively), have been delivered
    /// to every extension: what a host that feeds a stream block by block waits for. An event an extension
    /// holds (stopped, or not ready for it) is not delivered yet.
    ///
    /// - Parameters:
    ///   - events: the block, in order.
    ///   - completion: called once the block and everything it caused were delivered.
    public func dispatch<S: Sequence<Event>>(contentsOf events: S, whenDelivered completion: (@Sendable () -> Void)?) {
        dispatchBlock(Array(events), completion: completion)
    }

    /// Numbers and queues a block (read twice: a collection, so a single event costs no array).
    private func dispatchBlock<C: Collection<Event>>(_ events: C, completion: (@Sendable () -> Void)?) {
        settling.enter(events, completion: completion)
        let schedule = state.withLock { s -> Bool in
            for event in events {
                var e = event
                let n = s.nextNumber
                s.nextNumber += 1
                e.number = n
                s.numbered.append((e.id, n))
                if s.numbered.count > options.rememberedEventIDs { s.numbered.popFirst() }
                s.pending.append(e)
            }
            guard s.started, !s.drainScheduled, !s.pending.isEmpty else { return false }
            s.drainScheduled = true
            return true
        }
        if schedule { hubQueue.async { self.drain() } }
    }

    /// Dispatches `event` and calls `responseCallback` with its response, or nil after `timeout` seconds.
    ///
    /// - Parameters:
    ///   - event: the request.
    ///   - timeout: seconds to wait for a response.
    ///   - responseCallback: hears the first event whose `responseID` is `event`'s id, or nil at the time-out.
    public func dispatch(_ event: Event, timeout: Double = 1, responseCallback: @escaping ResponseListener) {
        registerResponseListener(triggerEvent: event, timeout: timeout, listener: responseCallback)
        dispatch(event)
    }

    /// Adds a preprocessor; they run in order, before any listener sees the event.
    ///
    /// - Parameter p: turns an event into the event the listeners hear.
    public func registerPreprocessor(_ p: @escaping EventPreprocessor) {
        state.withLock { $0.preprocessors.append(p) }
    }

    /// A listener owned by the hub itself (the host's `MobileCore.registerEventListener`): it hears the
    /// events the hub loop hands out after this call.
    ///
    /// - Parameters:
    ///   - type: the event type heard (`EventType.wildcard` for all).
    ///   - source: the event source heard (`EventSource.wildcard` for all).
    ///   - listener: called with each event heard, on the hub's queue.
    public func registerEventListener(type: String, source: String, listener: @escaping EventListener) {
        placeholder.addListener(.init(type: type, source: source, call: listener))
    }

    func registerResponseListener(triggerEvent: Event, timeout: Double, listener: @escaping ResponseListener) {
        let token = UUID()
        let id = triggerEvent.id
        state.withLock { $0.responseListeners[id, default: []].append(ResponseEntry(token: token, listener: listener)) }
        if timeout.isFinite {
            timerQueue.asyncAfter(deadline: .now() + max(0, timeout)) { [self] in
                let fire = state.withLock { s -> Bool in
                    guard var list = s.responseListeners[id], let i = list.firstIndex(where: { $0.token == token }) else {
                        return false
                    }
                    list.remove(at: i)
                    s.responseListeners[id] = list.isEmpty ? nil : list
                    return true
                }
                if fire { listener(nil) }
            }
        }
    }

    private func scheduleDrain() {
        let schedule = state.withLock { s -> Bool in
            guard s.started, !s.drainScheduled, !s.pending.isEmpty else { return false }
            s.drainScheduled = true
            return true
        }
        if schedule { hubQueue.async { self.drain() } }
    }

    /// The hub loop: preprocess, answer response listeners, hand to every extension, record history.
    /// Takes what is pending (at most `drainBatch` events), preprocesses it in hub order, then hands the whole
    /// batch to each extension at once: one wake-up per extension per batch instead of per event, which is
    /// what keeps a slow preprocessor (the rules engine) from paying a thread hand-off for every event.
    /// With an idle producer the batch is one event, so latency is unchanged.
    private static let drainBatch = 64

    private func drain() {
        var batch: [Event] = []
        batch.reserveCapacity(Self.drainBatch)
        while true {
            let next = state.withLock { s -> ([EventPreprocessor], [ExtensionContainer])? in
                while batch.count < Self.drainBatch, let e = s.pending.popFirst() { batch.append(e) }
                guard !batch.isEmpty else {
                    s.drainScheduled = false
                    return nil
                }
                return (s.preprocessors, s.order)
            }
            guard let (preprocessors, containers) = next else { return }
            for i in batch.indices {
                let original = batch[i]
                var event = original
                let identity = options.identity?(original)
                func preprocess() {
                    for p in preprocessors {
                        event = p(event)
                        // Only when a preprocessor made another event: setting it on the same event would
                        // copy the event's storage (shared with `original`) for nothing.
                        if event.number != original.number { event.number = original.number }
                    }
                }
                // The hub queue runs outside any task, so no identity is bound around the drain: without one,
                // binding nil (an allocation per event) changes nothing.
                if let identity {
                    HistoryIdentity.$current.withValue(identity) { preprocess() }
                } else {
                    preprocess()
                }
                if let rid = event.responseID {
                    let entries = state.withLock { $0.responseListeners.removeValue(forKey: rid) } ?? []
                    for entry in entries {
                        let response = event
                        let listener = entry.listener
                        callbackQueue.async { listener(response) }
                    }
                }
                if let mask = original.mask {
                    let hash = EventHistoryHash.hash(event.data, mask: mask.isEmpty ? nil : mask)
                    if hash != 0 {
                        HistoryIdentity.$current.withValue(identity) {
                            _ = options.history.record(hash: hash, timestamp: event.timestamp, cause: original.id)
                        }
                    }
                }
                batch[i] = event
            }
            options.onDelivering?(batch)
            // Which containers take which events, asked before any is handed out: every delivery is
            // counted before a container could finish one and close a block's count early.
            let selections = containers.map { $0.selection(of: batch) }
            if settling.isTracking {
                var deliveries = [Int](repeating: 0, count: batch.count)
                for selection in selections {
                    for i in deliveries.indices where selection.takes(i) { deliveries[i] += 1 }
                }
                settling.fanOut(batch, deliveries: deliveries)
            }
            for (c, selection) in zip(containers, selections) { c.enqueue(contentsOf: batch, selection) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    // MARK: shared state

    /// The number of an event the hub has seen, if any.
    func number(of event: Event?) -> Int? {
        guard let event else { return nil }
        if let n = event.number { return n }
        let id = event.id
        return state.withLock { $0.numbered.last { $0.id == id }?.number }
    }

    func container(named name: String) -> ExtensionContainer? {
        // Names are kept lowercased; most lookups already are (no lowercased copy of the name then).
        names.withLock { $0[name] ?? $0[name.lowercased()] }
    }

    func createSharedState(_ c: ExtensionContainer, data: ValueObject?, event: Event?, xdm: Bool, pending: Bool) -> Int? {
        let isEmpty = c.state.withLock { xdm ? $0.xdm.isEmpty : $0.standard.isEmpty }
        let version: Int
        if let n = number(of: event) {
            version = n
        } else if isEmpty {
            version = 0
        } else {
            version = state.withLock { s in
                defer { s.nextNumber += 1 }
                return s.nextNumber
            }
        }
        let added = c.state.withLock { s in
            xdm
                ? s.xdm.add(version: version, status: pending ? .pending : .set, data: data)
                : s.standard.add(version: version, status: pending ? .pending : .set, data: data)
        }
        guard added else { return nil }
        if !pending { dispatchSharedStateEvent(owner: c, xdm: xdm) }
        return version
    }

    func resolvePending(_ c: ExtensionContainer, version: Int, data: ValueObject?, xdm: Bool) {
        let resolved = c.state.withLock { s in
            xdm ? s.xdm.resolve(version: version, data: data) : s.standard.resolve(version: version, data: data)
        }
        if resolved { dispatchSharedStateEvent(owner: c, xdm: xdm) }
    }

    func dispatchSharedStateEvent(owner c: ExtensionContainer, xdm: Bool) {
        let name = c.ext?.name ?? c.label
        dispatch(
            Event(
                name: xdm ? Self.xdmSharedStateEventName : Self.sharedStateEventName, type: EventType.hub,
                source: EventSource.sharedState, data: [Self.stateOwnerKey: .string(name)]))
    }

    /// Reads `extensionName`'s shared state at `event` (nil: the latest); nil when no such extension.
    ///
    /// - Parameters:
    ///   - extensionName: the owner's name.
    ///   - event: the event whose version is read (nil: the latest).
    ///   - barrier: a set state counts as pending until its owner has processed the events before `event`.
    ///   - resolution: `.any` or `.lastSet` (the latest state that is set, passing over pending ones).
    ///   - xdm: the XDM shared state instead of the standard one.
    /// - Returns: the state and its status, or nil when no such extension is registered.
    public func getSharedState(
        extensionName: String, event: Event?, barrier: Bool = false,
        resolution: SharedStateResolution = .any, xdm: Bool = false
    ) -> SharedStateResult? {
        guard let c = container(named: extensionName) else { return nil }
        let version = number(of: event) ?? Int.max
        let node = c.state.withLock { s in (xdm ? s.xdm : s.standard).resolve(at: version, resolution: resolution) }
        let lastProcessed = c.lastProcessed.load(ordering: .acquiring)
        guard let node else { return SharedStateResult(status: .none, value: nil) }
        var status = node.status
        // Barrier: a set state counts as pending until its owner has processed the event before this one.
        if barrier, status == .set, version != Int.max, lastProcessed < version - 1 { status = .pending }
        return SharedStateResult(status: status, value: node.data)
    }

    func shareHubState() {
        let containers = state.withLock { $0.order }
        var extensions = ValueObject()
        for c in containers where c !== placeholder {
            guard let ext = c.ext else { continue }
            var o: ValueObject = ["version": .string(ext.version), "friendlyName": .string(ext.friendlyName)]
            if let m = ext.metadata, !m.isEmpty {
                o["metadata"] = .object(ValueObject(m.sorted { $0.key < $1.key }.map { ($0.key, Value.string($0.value)) }))
            }
            extensions[ext.name] = .object(o)
        }
        let data: ValueObject = [
            "version": .string(HubVersion.current),
            "wrapper": ["type": .string(options.wrapperType), "friendlyName": .string(options.wrapperName)],
            "extensions": .object(extensions),
        ]
        _ = createSharedState(placeholder, data: data, event: nil, xdm: false, pending: false)
    }

    // MARK: lookups

    /// The API object an extension published, by the extension's name.
    ///
    /// - Parameter name: the extension's name.
    /// - Returns: its `Extension.api`, nil when none.
    public func api(named name: String) -> (any Sendable)? {
        container(named: name)?.ext?.api
    }

    /// The API object an extension published, as `T`.
    ///
    /// - Parameters:
    ///   - name: the extension's name.
    ///   - as: the API's type.
    /// - Returns: its `Extension.api` as `T`, nil when none or of another type.
    public func api<T>(named name: String, as: T.Type) -> T? {
        api(named: name) as? T
    }

    /// Names of the registered extensions (the hub's own excluded).
    public var extensionNames: [String] {
        state.withLock { $0.order }.filter { $0 !== placeholder }.compactMap { $0.ext?.name }
    }

    /// Searches event history.
    ///
    /// - Parameters:
    ///   - requests: one search per mask hash, with its window.
    ///   - enforceOrder: each search counts only records after the oldest match of the one before.
    /// - Returns: one result per request, in order.
    public func historicalEvents(_ requests: [EventHistoryRequest], enforceOrder: Bool) -> [EventHistoryResult] {
        var after: Date?
        return requests.map { r in
            let result = options.history.query(hash: r.hash, from: r.from, to: r.to, after: enforceOrder ? after : nil)
            if enforceOrder, result.count > 0 { after = result.oldest }
            return result
        }
    }

    /// Deletes history records, as the reference's `deleteEvents`: for each request, the records of its
    /// mask's hash within its window (from the first record, up to now, where it gives none), of
    /// `HistoryIdentity.current` (the device's one history when unset). Each deletion leaves a tombstone,
    /// so a record it covers that is written later is dropped.
    ///
    /// - Parameter requests: one deletion per mask, with its window.
    /// - Returns: how many records were deleted; nil when the store keeps nothing it could delete by
    ///   (a store that is not `HistoryExporting`) or failed.
    public func deleteHistoricalEvents(_ requests: [EventHistoryRequest]) async -> Int? {
        guard let store = options.history as? any HistoryExporting else { return nil }
        let identity = HistoryIdentity.current ?? ""
        let now = Date().timeIntervalSince1970 * 1000
        var gone = 0
        for r in requests {
            let erasure = HistoryErasure(
                identity: identity, hashes: [r.hash], from: r.from.map { $0.timeIntervalSince1970 * 1000 },
                to: r.to.map { $0.timeIntervalSince1970 * 1000 }, at: now)
            do { gone += try await store.erase(erasure) } catch { return nil }
        }
        return gone
    }

    /// Records an event in history by the hash of its (masked) data. Its cause is the event it was chained
    /// from (the event a rule recorded on), or itself.
    ///
    /// - Parameter event: the event, its mask applied to its data.
    /// - Returns: whether a record was kept (false for an event whose masked data hashes to nothing).
    public func recordHistoricalEvent(_ event: Event) -> Bool {
        let hash = EventHistoryHash.hash(event.data, mask: event.mask)
        guard hash != 0 else { return false }
        return options.history.record(hash: hash, timestamp: event.timestamp, cause: event.parentID ?? event.id)
    }
}

/// The hub's version: RuleKit's (`RuleKitVersion`), the one version of every module.
public enum HubVersion {
    /// The version the hub reports in its shared state.
    public static let current = RuleKitVersion.current
}

/// The hub's own extension: owner of the hub's shared state and of host-registered listeners.
final class HubPlaceholderExtension: Extension, @unchecked Sendable {
    let name = EventHub.name
    let friendlyName = "EventHub"
    let version = HubVersion.current
    let runtime: any ExtensionRuntime

    init?(runtime: any ExtensionRuntime) { self.runtime = runtime }
    func onRegistered() {}
    func onUnregistered() {}
}
