internal import Foundation
public import RuleKitCore
public import RuleKitHub
internal import RuleKitRules
public import RuleKitShared
public import RuleKitSources

/// The rules extension: registered like any other, it loads its rules and then enriches every event
/// before any listener sees it.
///
/// ```swift
/// let hub = EventHub()
/// hub.registerExtensions(factories: [RulesExtension.factory(.init(sources: ["Rules"]))]) { _ in }
/// hub.dispatch(event)   // listeners receive the event after the rules ran
/// ```
public final class RulesExtension: Extension, @unchecked Sendable {
    /// What to load and how.
    public struct Configuration: Sendable {
        /// Rules files or folders.
        public var sources: [String]
        /// Most rules-consequence events that may descend from one event (see `docs/rules-extension.md`).
        public var consequenceChainLimit: Int
        /// The engine's name (in its reset and consequence events).
        public var engineName: String
        /// XDM alignment of rule-attached XDM data and published XDM shared states (nil: off).
        public var xdm: XDMAlignment?
        /// Where the last rules set that loaded is kept (collection `rulekit.rules.last-good`), so that a
        /// restart whose sources are broken still runs the last good rules (nil: not kept).
        public var container: SharedContainer?
        /// `sources` as the host already loaded them (rules from standard input cannot be read twice; a
        /// service's workers share one load): the first load uses them; reloads read `sources` again.
        public var preloaded: RuleSnapshot?
        /// States that stand in for the hub's, per event: `(extension name, event, xdm)` → the state, or nil
        /// to read the hub's (a service evaluating a device's batch with the states the device sent).
        public var stateOverride: (@Sendable (String, Event, Bool) -> ValueObject?)?
        /// Hears each processed event with the labels of the rules that matched it (a service's per-rule
        /// counts, a rule test's expectations).
        public var onRulesMatched: (@Sendable (Event, [String]) -> Void)?
        /// Whether rules with error findings of the Check phase run anyway (each reported); files that do not
        /// load never run.
        public var allowErrors = false
        /// Whether a Launch `rules.json`'s findings refuse it too (by default a device's leniency: reported).
        public var strict = false
        /// Rules from the configuration's `rules.url` (nil: off, the default: a host turns it on). With it,
        /// empty `sources` load nothing at registration but the cached or bundled rules.
        public var rulesURL: RulesURLSource?

        /// A configuration; every value has the default the CLI uses.
        ///
        /// - Parameters:
        ///   - sources: rules files or folders.
        ///   - consequenceChainLimit: most consequence events that may descend from one event.
        ///   - engineName: the engine's name in its events.
        ///   - xdm: XDM alignment (nil: off).
        ///   - container: where the last good rules are kept (nil: not kept).
        ///   - preloaded: `sources` as the host already loaded them.
        public init(
            sources: [String] = ["Rules"], consequenceChainLimit: Int = 8,
            engineName: String = RulesExtension.extensionName + ".engine", xdm: XDMAlignment? = nil,
            container: SharedContainer? = nil, preloaded: RuleSnapshot? = nil
        ) {
            self.preloaded = preloaded
            self.sources = sources
            self.consequenceChainLimit = consequenceChainLimit
            self.engineName = engineName
            self.xdm = xdm
            self.container = container
        }
    }

    /// The extension's name on the hub.
    public static let extensionName = "rulekit.rules"
    /// Published after each load attempt: data `{"loaded": Bool, "rules": N, "diagnostics": [...]}`.
    public static let diagnosticsEventType = "com.rulekit.eventType.rules"
    /// The source of the load-diagnostics event.
    public static let diagnosticsEventSource = "com.rulekit.eventSource.diagnostics"
    /// A configuration event with data `{"rulekit.rules": [paths]}` makes the extension reload.
    public static let reloadKey = "rulekit.rules"
    /// The shared-container collection that keeps the last rules set that loaded.
    public static let lastGoodCollection = LastGoodRules.collection

    /// The extension's name on the hub.
    public let name = RulesExtension.extensionName
    /// The name for people.
    public let friendlyName = "RuleKit Rules"
    /// RuleKit's version.
    public let version = RuleKitVersion.current
    /// The hub's side of this extension.
    public let runtime: any ExtensionRuntime
    /// Its listeners are registered in `onRegistered` and it holds no event: the hub skips the rest.
    public var skipsUnheardEvents: Bool { true }
    /// The published API: a `RulesControl` to reload rules and read the last load's outcome.
    public var api: (any Sendable)? { control }

    let engine: RulesEngine
    let hubRuntime: HubRulesRuntime
    let control: RulesControl
    /// Loaded rule sets waiting for their reset event: rules take effect where that event stands in hub
    /// order, so events dispatched before a load are evaluated (and replayed) exactly as on a device.
    let pending = Locked<[UUID: CompiledRuleSet]>([:])

    /// A factory for `EventHub.registerExtensions(factories:)`.
    ///
    /// - Parameter configuration: what to load and how.
    /// - Returns: the factory.
    public static func factory(_ configuration: Configuration) -> EventHub.ExtensionFactory {
        { runtime in RulesExtension(runtime: runtime, configuration: configuration) }
    }

    /// An extension with the default configuration (rules from `Rules/`).
    ///
    /// - Parameter runtime: what the hub gives the extension.
    public convenience init?(runtime: any ExtensionRuntime) {
        self.init(runtime: runtime, configuration: Configuration())
    }

    /// An extension loading rules as `configuration` says.
    ///
    /// - Parameters:
    ///   - runtime: what the hub gives the extension.
    ///   - configuration: what to load and how.
    public convenience init(runtime: any ExtensionRuntime, configuration: Configuration) {
        self.init(runtime: runtime, control: RulesControl(configuration: configuration))
    }

    /// An extension answering to `control` (made before the hub registers it: `RulesHost`).
    init(runtime: any ExtensionRuntime, control: RulesControl) {
        let configuration = control.configuration
        self.runtime = runtime
        hubRuntime = HubRulesRuntime(runtime: runtime, override: configuration.stateOverride)
        engine = RulesEngine(name: configuration.engineName, runtime: hubRuntime, onMatch: configuration.onRulesMatched)
        self.control = control
        control.extensionRef = self
    }

    /// Registers the preprocessor and the reload listener, then loads the rules.
    public func onRegistered() {
        let chain = ConsequenceChain(limit: control.configuration.consequenceChainLimit)
        let engine = self.engine
        let pending = self.pending
        let alignment = control.configuration.xdm
        let runtime = self.runtime
        runtime.registerPreprocessor { event in
            if chain.exceeded(event) { return event }
            // Nearly always empty: no hash of the event's id then.
            if let set = pending.withLock({ $0.isEmpty ? nil : $0.removeValue(forKey: event.id) }) { engine.setRules(set) }
            let processed = engine.process(event)
            if processed.sharesData(with: event) { return event }
            if let overlay = processed.overlay, overlay.base === event.document {
                // A merge over the data as read, answered without making the trees of either. An `add` that
                // changed nothing writes the very bytes of the data as read (and is equal data), so it is
                // not asked; a `mod` may change the text alone (`-0.0` for `0.0`), and then the event stays.
                if overlay.overwrite { guard overlay.changesData() else { return event } }
                if alignment == nil || !overlay.mayChangeMember("xdm") { return event.copy(withDataOf: processed) }
            }
            guard processed.data != event.data else { return event }
            var data = processed.data
            // XDM the rules attached or changed must fit the schemas.
            if let alignment, let xdm = data?["xdm"], xdm != event.data?["xdm"] {
                let (aligned, findings) = alignment.align(xdm)
                if !findings.isEmpty {
                    data?["xdm"] = aligned
                    runtime.dispatch(
                        event: XDMAlignment.report(findings, subject: "event \(event.id)", policy: alignment.policy, cause: event))
                }
            }
            return event.copy(withData: data)
        }
        if let alignment {
            // XDM shared states any extension publishes are checked as they are set.
            registerListener(type: EventType.hub, source: EventSource.sharedState) { [runtime] e in
                guard e.name == EventHub.xdmSharedStateEventName, case .string(let owner)? = e.data?[EventHub.stateOwnerKey],
                    let state = runtime.getXDMSharedState(extensionName: owner, event: nil, barrier: false, resolution: .any)?.value
                else { return }
                let (_, findings) = XDMAlignment(copying: alignment, policy: .warn).align(.object(state))
                if !findings.isEmpty {
                    runtime.dispatch(event: XDMAlignment.report(findings, subject: "XDM shared state of \(owner)", policy: .warn))
                }
            }
        }
        registerListener(type: EventType.configuration, source: EventSource.requestContent) { [weak self] e in
            guard let self, case .array(let paths)? = e.data?[Self.reloadKey] else { return }
            _ = self.control.reload(sources: paths.compactMap(\.stringValue))
        }
        if let follower = control.follower {
            followRulesURL(follower)
            if control.configuration.sources.isEmpty { return }
        }
        _ = control.reload(sources: control.configuration.sources)
    }

    /// Loads the cached or bundled rules, then follows the configuration's `rules.url` as it changes.
    private func followRulesURL(_ follower: RulesURLFollower) {
        if let first = follower.initial() { control.install(first) }
        let source = follower.source
        let control = self.control
        let report: @Sendable (String) -> Void = { [weak self] why in
            RuleKitLog.rules.error("rules.url: \(why)")
            self?.dispatch(
                event: Event(
                    name: "Rules URL not loaded", type: Self.diagnosticsEventType, source: Self.diagnosticsEventSource,
                    data: ["loaded": false, "error": .string(why)]))
        }
        registerListener(type: EventType.hub, source: EventSource.sharedState) { [runtime] e in
            guard case .string(let owner)? = e.data?[EventHub.stateOwnerKey], owner == source.configurationState,
                let state = runtime.getSharedState(extensionName: owner, event: nil, barrier: false, resolution: .any)?.value,
                case .string(let url)? = state[source.urlKey], !url.isEmpty
            else { return }
            follower.follow(url, install: { control.install($0) }, report: report)
        }
    }

    /// Nothing to release: the hub drops the preprocessor with the extension.
    public func onUnregistered() {}

    private let everLoaded = Locked(false)
    private let preloadUsed = Locked(false)

    /// The history questions of the set loaded last and of the one in force: a block dispatched now may be
    /// evaluated by either (a set takes effect at its reset event), so its history read covers both.
    let questions = Locked(HistoryQuestions())

    /// The set takes effect at its reset event, in hub order.
    private func install(_ set: CompiledRuleSet) {
        let current = engine.rules.historyQuestions
        questions.withLock { $0 = set.historyQuestions.union(current) }
        let reset = engine.resetEvent()
        pending.withLock { $0[reset.id] = set }
        runtime.dispatch(event: reset)
    }

    /// Loads `sources` atomically: on any error the rules in force stay; the outcome is published.
    func load(_ sources: [String]) -> RulesLoadOutcome {
        if let pre = control.configuration.preloaded, sources == control.configuration.sources,
            !preloadUsed.withLock({ used in
                defer { used = true }
                return used
            })
        {
            return apply(pre)
        }
        return apply(RuleSnapshot.load(sources))
    }

    /// Puts `snapshot` in force unless it has errors; the outcome is published.
    func apply(_ snapshot: RuleSnapshot) -> RulesLoadOutcome {
        let compiled = snapshot.compiled
        let configuration = control.configuration
        let diagnostics = snapshot.reported(strict: configuration.strict)
        let ok = snapshot.admits(strict: configuration.strict, allowErrors: configuration.allowErrors)
        var restored: CompiledRuleSet?
        var notes: [Diagnostic] = []
        if ok {
            install(compiled)
            if let container = control.configuration.container {
                do { try LastGoodRules.save(snapshot, in: container) } catch {
                    notes.append(.warning(.unreadable, "the last good rules were not kept: \(error)"))
                }
            }
        } else if !everLoaded.withLock({ $0 }), let container = control.configuration.container {
            // Nothing is running yet (a restart): fall back on the last set that loaded, and say so.
            do {
                if let (set, from) = try LastGoodRules.restore(from: container) {
                    restored = set
                    install(set)
                    notes.append(.warning(.unreadable, "running the last good rules (from \(from.joined(separator: ", "))) instead"))
                }
            } catch {
                notes.append(.warning(.unreadable, "the last good rules cannot be used: \(error)"))
            }
        }
        if ok || restored != nil { everLoaded.withLock { $0 = true } }
        let count = ok ? compiled.rules.count : restored?.rules.count ?? engine.rules.rules.count
        let outcome = RulesLoadOutcome(
            loaded: ok, ruleCount: count, diagnostics: diagnostics + notes,
            rendered: snapshot.render(diagnostics + notes))
        dispatch(
            event: Event(
                name: "Rules loaded", type: Self.diagnosticsEventType, source: Self.diagnosticsEventSource,
                data: outcome.value))
        return outcome
    }
}

/// What a load produced.
public struct RulesLoadOutcome: Sendable {
    /// Whether the new rules took effect.
    public var loaded: Bool
    /// Rules in force after the attempt.
    public var ruleCount: Int
    /// The findings of the attempt, sorted.
    public var diagnostics: [Diagnostic]
    /// The diagnostics with source lines, for logs.
    public var rendered: String

    var value: ValueObject {
        [
            "loaded": .bool(loaded), "rules": .int(Int64(ruleCount)),
            "diagnostics": .array(
                diagnostics.map { d in
                    var o: ValueObject = [
                        "severity": .string(d.severity.rawValue), "code": .string(d.code.rawValue),
                        "message": .string(d.message),
                    ]
                    if let l = d.location { o["location"] = .string(l.description) }
                    return .object(o)
                }),
        ]
    }
}

/// The extension's published API: reload on demand, read the last outcome.
public final class RulesControl: Sendable {
    let configuration: RulesExtension.Configuration
    private let state = Locked<(ext: RulesExtension?, last: RulesLoadOutcome?)>((nil, nil))

    init(configuration: RulesExtension.Configuration) {
        self.configuration = configuration
        follower = configuration.rulesURL.map(RulesURLFollower.init)
    }

    /// The follower of the configuration's `rules.url`, when the host turned it on.
    let follower: RulesURLFollower?

    /// Waits until the fetches of `rules.url` asked for so far have ended (loaded or refused).
    public func settleRulesURL() async {
        await follower?.settle()
    }

    var extensionRef: RulesExtension? {
        get { state.withLock { $0.ext } }
        set { state.withLock { $0.ext = newValue } }
    }

    /// Reloads from `sources` (default: the configured ones); atomic.
    ///
    /// - Parameter sources: rules files or folders (nil: the configured ones).
    /// - Returns: the outcome, or nil when the extension is not registered.
    @discardableResult
    public func reload(sources: [String]? = nil) -> RulesLoadOutcome? {
        guard let ext = extensionRef else { return nil }
        let outcome = ext.load(sources ?? configuration.sources)
        state.withLock { $0.last = outcome }
        return outcome
    }

    /// Puts a snapshot loaded elsewhere in force, atomically, as `reload` does with one it reads: a service
    /// loads once and hands the same snapshot to every hub. A snapshot with errors is refused.
    ///
    /// - Parameter snapshot: the loaded rules.
    /// - Returns: the outcome, or nil when the extension is not registered.
    @discardableResult
    public func install(_ snapshot: RuleSnapshot) -> RulesLoadOutcome? {
        guard let ext = extensionRef else { return nil }
        let outcome = ext.apply(snapshot)
        state.withLock { $0.last = outcome }
        return outcome
    }

    /// The outcome of the last load.
    public var lastOutcome: RulesLoadOutcome? { state.withLock { $0.last } }

    /// Rules in force.
    public var ruleCount: Int { extensionRef?.engine.rules.rules.count ?? 0 }

    /// The history questions the rules in force can ask.
    public var historyQuestions: HistoryQuestions { extensionRef?.questions.withLock { $0 } ?? HistoryQuestions() }
}

/// Bounds chains of rules-consequence events: an event descending from `limit` consequence events is
/// delivered unprocessed (and the cut is logged), so a rule that matches its own consequences cannot
/// loop forever. A rule set that terminates in the reference never reaches the bound. The depth is the
/// one the event carries (`ConsequenceDepth`): no table, no lock.
struct ConsequenceChain: Sendable {
    let limit: Int

    /// Whether `event` is too deep.
    func exceeded(_ event: Event) -> Bool {
        let depth = ConsequenceDepth.of(event)
        guard depth > limit else { return false }
        RuleKitLog.rules.warning("consequence chain of \(depth) events cut at event \(event.id) (limit \(limit))")
        return true
    }
}
