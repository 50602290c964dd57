// The hub assembly every host of rules needs — the rules extension, state publishers, a shared container,
// event history and XDM alignment on one booted hub — behind one type that `rulekit run` and
// `rulekit serve` share: blocks of input events in, the events they produced out, in hub order.
internal import Foundation
public import RuleKitCore
public import RuleKitHistory
public import RuleKitHub
public import RuleKitShared
public import RuleKitSources

/// A booted hub with the rules extension, fed block by block.
///
/// ```swift
/// let host = try RulesHost(.init(rules: ["Rules"], states: ["com.adobe.module.configuration": config]))
/// let out = await host.process(events)   // the inputs as delivered, and every event their rules dispatched
/// ```
public final class RulesHost: Sendable {
    /// What the hub is made of.
    public struct Configuration: Sendable {
        /// Rules files or folders.
        public var rules: [String]
        /// The same rules as the caller already loaded them (rules from standard input cannot be read twice;
        /// a service's workers share one load).
        public var preloaded: RuleSnapshot?
        /// Shared states published before the first event, by extension name.
        public var states: [String: ValueObject]
        /// XDM shared states published before the first event, by extension name.
        public var xdmStates: [String: ValueObject]
        /// Where event history is kept.
        public var history: any EventHistoryStore
        /// A shared data container: its changes arrive as events, and the last good rules are kept there.
        public var container: SharedContainer?
        /// XDM alignment of rule-attached XDM (nil: off).
        public var xdm: XDMAlignment?
        /// Whether blocks may carry their own states (`process(_:states:xdmStates:)`): a service's devices
        /// send theirs. Off, state reads go straight to the hub.
        public var batchStates = false
        /// Hears each processed event with the labels of the rules that matched it.
        public var onRulesMatched: (@Sendable (Event, [String]) -> Void)?
        /// Where in an event's data its identity lives (`["xdm", "identityMap", "ECID", "0", "id"]`): history
        /// is then kept per identity (see `HistoryIdentity`). Nil: one history.
        public var identityPath: [String]?
        /// Sees every event the hub delivers, its own bookkeeping included, in hub order.
        public var observer: (@Sendable (Event) -> Void)?
        /// Extensions deliver one at a time (`EventHub.Options.serialDelivery`): for a host with one core
        /// for the hub.
        public var serialDelivery = false
        /// History read and written per block (a service's, or a run's with a data folder): its working set
        /// is then the hub's history, in place of `history`, and each block reads its identities' history
        /// before it is dispatched and writes its records before it is answered. Several hosts may share one.
        public var blockHistory: BlockHistory?
        /// Hears how long each block given to `process` spent in each stage (a service's `/metrics`).
        public var onBlockTimed: (@Sendable (BlockTiming) -> Void)?
        /// Whether rules with error findings run anyway (`RulesExtension.Configuration.allowErrors`).
        public var allowErrors = false
        /// Whether a Launch `rules.json`'s findings refuse it too (`RulesExtension.Configuration.strict`).
        public var strict = false

        /// A configuration with the rules of `rules` and nothing else: in-memory history, no states.
        ///
        /// - Parameters:
        ///   - rules: rules files or folders.
        ///   - preloaded: the same rules already loaded (nil: read `rules`).
        ///   - states: shared states published before the first event.
        ///   - xdmStates: XDM shared states published before the first event.
        ///   - history: where event history is kept.
        ///   - container: a shared data container (nil: none).
        ///   - xdm: XDM alignment of rule-attached XDM (nil: off).
        public init(
            rules: [String] = ["Rules"], preloaded: RuleSnapshot? = nil, states: [String: ValueObject] = [:],
            xdmStates: [String: ValueObject] = [:], history: any EventHistoryStore = InMemoryEventHistory(),
            container: SharedContainer? = nil, xdm: XDMAlignment? = nil
        ) {
            self.rules = rules
            self.preloaded = preloaded
            self.states = states
            self.xdmStates = xdmStates
            self.history = history
            self.container = container
            self.xdm = xdm
        }
    }

    /// The hub the rules run in.
    public let hub: EventHub
    /// The rules extension's control: reload, and the outcome of the last load.
    public let rules: RulesControl
    private let batches: Locked<Batches>
    private let blockHistory: BlockHistory?
    private let identityPath: [String]?
    private let onBlockTimed: (@Sendable (BlockTiming) -> Void)?
    /// The hub's history when it is not kept per block: told when a block's events have been delivered.
    private let history: any EventHistoryStore
    /// Whether history is read and written per block (`Configuration.blockHistory`).
    public var keepsBlockHistory: Bool { blockHistory != nil }
    /// Whether a block's history is read from the store before the block (not for a store indexed in this
    /// process: `BlockHistory.readsBlocks`).
    public var readsBlockHistory: Bool { blockHistory?.readsBlocks ?? false }
    /// The turns of blocks given with a completion (dispatched in the order of the calls).
    private let order = TurnLine()

    /// The events each block in flight produced so far, which block every event belongs to, and the
    /// states each block was sent with.
    private struct Batches {
        var next = 0
        var owner = EventIDTable()
        var events: [Int: [Event]] = [:]
        var states: [Int: (standard: [String: ValueObject], xdm: [String: ValueObject])] = [:]
    }

    /// Boots the hub with the configured extensions, waiting on this thread until they are registered: for
    /// code that is not async (`rulekit run`'s feeding thread, a test); async code calls `start`. Rules that
    /// do not load leave the host running with none (as a device would): `rules.lastOutcome` says how the
    /// load went.
    ///
    /// - Parameter configuration: what the hub is made of.
    /// - Throws: `HubError` when an extension could not be registered.
    public convenience init(_ configuration: Configuration) throws(HubError) {
        let boot = Boot()
        self.init(assembling: configuration, boot: boot)
        try boot.wait().get()
    }

    /// Boots the hub with the configured extensions, suspending (no thread waits) until they are
    /// registered: the host `rulekit serve` and any async host start.
    ///
    /// - Parameter configuration: what the hub is made of.
    /// - Returns: the booted host.
    /// - Throws: `HubError` when an extension could not be registered.
    public static func start(_ configuration: Configuration) async throws(HubError) -> RulesHost {
        let boot = Boot()
        let host = RulesHost(assembling: configuration, boot: boot)
        try await boot.value().get()
        return host
    }

    /// Builds the hub and asks it to register the extensions; `boot` hears when that is done.
    private init(assembling configuration: Configuration, boot: Boot) {
        var options = EventHub.Options()
        options.history = configuration.blockHistory?.hubHistory ?? configuration.history
        blockHistory = configuration.blockHistory
        identityPath = configuration.identityPath
        onBlockTimed = configuration.onBlockTimed
        history = configuration.history
        options.serialDelivery = configuration.serialDelivery
        if let path = configuration.identityPath {
            options.identity = { e in HistoryIdentity.value(at: path, of: e) }
        }
        let batches = Locked(Batches())
        self.batches = batches
        let observer = configuration.observer
        // Every event delivered, as the hub hands it out (one call and one lock per batch, not a listener
        // call per event), goes to the block it belongs to.
        options.onDelivering = { events in
            if let observer { for e in events { observer(e) } }
            batches.withLock { b in
                for e in events {
                    let n: Int
                    if let known = b.owner[e.id] {
                        n = known
                    } else {
                        // An event a rule dispatched: its block is its parent's.
                        guard let p = e.parentID, let parent = b.owner[p] else { continue }
                        n = parent
                        b.owner[e.id] = n
                    }
                    b.events[n, default: []].append(e)
                }
            }
        }
        hub = EventHub(options: options)
        var rulesConfiguration = RulesExtension.Configuration(
            sources: configuration.rules, xdm: configuration.xdm, container: configuration.container,
            preloaded: configuration.preloaded)
        rulesConfiguration.onRulesMatched = configuration.onRulesMatched
        rulesConfiguration.allowErrors = configuration.allowErrors
        rulesConfiguration.strict = configuration.strict
        // A block's own states stand in for the published ones while its events (and what they cause) are
        // evaluated.
        if configuration.batchStates {
            rulesConfiguration.stateOverride = { name, event, xdm in
                batches.withLock { b in
                    guard let n = b.owner[event.id] ?? event.parentID.flatMap({ b.owner[$0] }), let states = b.states[n] else {
                        return nil
                    }
                    let table = xdm ? states.xdm : states.standard
                    return table[name] ?? table.first { $0.key.lowercased() == name.lowercased() }?.value
                }
            }
        }
        let extensionConfiguration = rulesConfiguration
        // The extension's control is made here, so the host has it before the hub has registered anything.
        let control = RulesControl(configuration: extensionConfiguration)
        rules = control
        var factories: [EventHub.ExtensionFactory] = [{ runtime in RulesExtension(runtime: runtime, control: control) }]
        if let container = configuration.container { factories.append(SharedDataExtension.factory(container)) }
        for name in Set(configuration.states.keys).union(configuration.xdmStates.keys).sorted() {
            factories.append(
                StatePublisherExtension.factory(name: name, state: configuration.states[name], xdm: configuration.xdmStates[name]))
        }
        hub.registerExtensions(factories: factories) { r in
            switch r {
            case .failure(let e): boot.finish(.failure(e))
            case .success: boot.finish(control.extensionRef == nil ? .failure(.initFailed(RulesExtension.extensionName)) : .success(()))
            }
        }
    }

    /// The hub's registration of a host's extensions: finished once, waited for by a thread (`init`) or a
    /// task (`start`).
    final class Boot: Sendable {
        private let state = Locked<(result: Result<Void, HubError>?, waiting: [CheckedContinuation<Result<Void, HubError>, Never>])>(
            (nil, []))
        private let done = DispatchSemaphore(value: 0)

        func finish(_ r: Result<Void, HubError>) {
            let waiting = state.withLock { s in
                s.result = r
                defer { s.waiting = [] }
                return s.waiting
            }
            for w in waiting { w.resume(returning: r) }
            done.signal()
        }

        /// The outcome, waited for on this thread.
        func wait() -> Result<Void, HubError> {
            done.wait()
            done.signal()
            return state.withLock { $0.result } ?? .failure(.initFailed(RulesExtension.extensionName))
        }

        /// The outcome, awaited.
        func value() async -> Result<Void, HubError> {
            await withCheckedContinuation { c in
                let known = state.withLock { s -> Result<Void, HubError>? in
                    if let r = s.result { return r }
                    s.waiting.append(c)
                    return nil
                }
                if let known { c.resume(returning: known) }
            }
        }
    }

    /// Dispatches `events` as one block and returns, once they and everything they caused have been
    /// delivered, the events they produced: each input as delivered (after the rules ran) and every event
    /// their rules dispatched, in hub order. With `blockHistory`, the block's history is read before and
    /// its records made durable before it returns.
    ///
    /// - Parameters:
    ///   - events: the block.
    ///   - states: shared states standing in for the published ones while the block runs (`batchStates`).
    ///   - xdmStates: XDM shared states, the same way.
    /// - Returns: the events produced, in hub order.
    /// - Throws: `HistoryUnavailable` when the block's history records could be kept nowhere.
    public func process(
        _ events: [Event], states: [String: ValueObject] = [:], xdmStates: [String: ValueObject] = [:]
    ) async throws(HistoryUnavailable) -> [Event] {
        guard let history = blockHistory else {
            let start = ContinuousClock.now
            let produced = await dispatchBlock(events, states: states, xdmStates: xdmStates)
            onBlockTimed?(BlockTiming(evaluate: ContinuousClock.now - start))
            return produced
        }
        return try await process(events, states: states, xdmStates: xdmStates, history: history, turn: nil)
    }

    /// A block with its history: read before it is dispatched (once `turn` comes, when given), its records
    /// made durable before it returns.
    private func process(
        _ events: [Event], states: [String: ValueObject], xdmStates: [String: ValueObject], history: BlockHistory,
        turn: Int?
    ) async throws(HistoryUnavailable) -> [Event] {
        // Rules that ask no history question need no identity read (a walk of every event's data).
        let questions = rules.historyQuestions
        let clock = ContinuousClock()
        let start = clock.now
        let ticket = await history.begin(
            identities: questions.isEmpty || !history.readsBlocks ? [] : identities(of: events), questions: questions)
        if let turn { await order.wait(for: turn) }
        let read = clock.now
        let produced = await dispatchBlock(events, states: states, xdmStates: xdmStates)
        if let turn { order.pass(turn) }
        let evaluated = clock.now
        try await history.finish(ticket, causes: produced.map(\.id))
        onBlockTimed?(BlockTiming(read: read - start, evaluate: evaluated - read, write: clock.now - evaluated))
        return produced
    }

    /// The identities whose history `events` may ask: each event's (its data at `identityPath`), and the
    /// one of events without (""): the events their rules dispatch rarely carry one.
    func identities(of events: [Event]) -> Set<String> {
        var out: Set<String> = [""]
        guard let path = identityPath else { return out }
        for e in events { if let id = HistoryIdentity.value(at: path, of: e) { out.insert(id) } }
        return out
    }

    private func dispatchBlock(_ events: [Event], states: [String: ValueObject], xdmStates: [String: ValueObject]) async -> [Event] {
        await withCheckedContinuation { (done: CheckedContinuation<[Event], Never>) in
            dispatchBlock(events, states: states, xdmStates: xdmStates) { done.resume(returning: $0) }
        }
    }

    /// `process(_:)` for callers that block (rule tests): a host without `blockHistory` only.
    ///
    /// - Parameter events: the block.
    /// - Returns: the events it produced, in hub order.
    public func processWaiting(_ events: [Event]) -> [Event] {
        let done = DispatchSemaphore(value: 0)
        let out = Locked<[Event]>([])
        dispatchBlock(events, states: [:], xdmStates: [:]) { result in
            out.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return out.withLock { $0 }
    }

    /// `process(_:states:xdmStates:)` with a completion, for callers outside Swift concurrency (a
    /// command-line run reading its input meanwhile), with blocks kept in the order of the calls: each is
    /// dispatched once the one before it has been delivered, whenever its history read ends. So a block's
    /// read runs while the block before it is evaluated, and its write while the block after it is (a
    /// run's blocks of history cost the store's time only where the hub would wait). `states` and
    /// `xdmStates` (a device's, sent with its events) stand in for the published states of those names
    /// while this block is evaluated, when the host was configured with `batchStates`.
    ///
    /// - Parameters:
    ///   - events: the block.
    ///   - states: shared states standing in for the published ones while the block runs (`batchStates`).
    ///   - xdmStates: XDM shared states, the same way.
    ///   - completion: hears the events produced, or why the block's history could be kept nowhere.
    public func process(
        _ events: [Event], states: [String: ValueObject] = [:], xdmStates: [String: ValueObject] = [:],
        completion: @escaping @Sendable (Result<[Event], HistoryUnavailable>) -> Void
    ) {
        guard let history = blockHistory else {
            dispatchBlock(events, states: states, xdmStates: xdmStates) { completion(.success($0)) }
            return
        }
        let turn = order.take()
        Task {
            do throws(HistoryUnavailable) {
                completion(.success(try await self.process(events, states: states, xdmStates: xdmStates, history: history, turn: turn)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    private func dispatchBlock(
        _ events: [Event], states: [String: ValueObject], xdmStates: [String: ValueObject],
        completion: @escaping @Sendable ([Event]) -> Void
    ) {
        let n = batches.withLock { b -> Int in
            let n = b.next
            b.next += 1
            for e in events { b.owner[e.id] = n }
            b.events[n] = []
            if !states.isEmpty || !xdmStates.isEmpty { b.states[n] = (states, xdmStates) }
            return n
        }
        let batches = self.batches
        // Records of these events were numbered per cause while they were delivered (a keyed store); the
        // numbers go once the block is done, so the same events sent again are keyed as the first time.
        let history = blockHistory == nil && self.history.numbersCauses ? self.history : nil
        hub.dispatch(
            contentsOf: events,
            whenDelivered: {
                let produced = batches.withLock { b -> [Event] in
                    let list = b.events.removeValue(forKey: n) ?? []
                    b.states[n] = nil
                    for e in events { b.owner[e.id] = nil }
                    for e in list { b.owner[e.id] = nil }
                    return list
                }
                history?.release(causes: produced.map(\.id))
                completion(produced)
            })
    }
}

/// Where one block's time went, from the call to its answer. The stages follow each other: a block waits
/// for its history read (with the reads of other blocks it joined), then for the hub to deliver its events
/// and what they caused, then for its records to be durable (behind the writes queued before its own).
public struct BlockTiming: Sendable, Equatable {
    /// Reading the block's history (nil: the host keeps no block history).
    public var read: Duration?
    /// Evaluating the block on the hub, waiting included (blocks of other calls share it).
    public var evaluate: Duration
    /// Making its records durable (nil: the host keeps no block history).
    public var write: Duration?

    /// The stages of one block.
    ///
    /// - Parameters:
    ///   - read: reading the block's history.
    ///   - evaluate: evaluating it on the hub.
    ///   - write: making its records durable.
    public init(read: Duration? = nil, evaluate: Duration, write: Duration? = nil) {
        self.read = read
        self.evaluate = evaluate
        self.write = write
    }
}
