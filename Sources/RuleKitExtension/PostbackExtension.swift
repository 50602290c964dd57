// The postback extension of a hub host (Launch's Signal, launch-rules-reference §12.2, with RuleKit's
// queue): it hears the rules consequence events of types `pb`, `pii` and `url`; a `pb`/`pii` hit goes
// through the rules' outbound stage once and is written to the durable queue before its event is done; a
// `url` goes to the host's opener. As the reference, every consequence is passed over while the
// configuration's state is missing or `global.privacy` is `optedout` (read at the event), and an opt-out
// clears the queue and stops sending until the device opts in again.
internal import Foundation
internal import RuleKitCore
public import RuleKitHub
public import RuleKitPostbacks

/// Sends the postbacks the rules fire, from a hub host.
///
/// ```swift
/// let queue = try PostbackQueue(directory: dataFolder)
/// let postbacks = PostbackExtension.Configuration(queue: queue, transport: try HTTPPostbackTransport())
/// hub.registerExtensions(factories: PostbackExtension.factories(rules: .init(sources: ["Rules"]), postbacks: postbacks)) { _ in }
/// ```
public final class PostbackExtension: Extension, @unchecked Sendable {
    /// The extension's name.
    public static let extensionName = "com.rulekit.postbacks"

    /// Where hits go and how.
    public struct Configuration: Sendable {
        /// The durable queue.
        public var queue: PostbackQueue
        /// How hits are sent (`HTTPPostbackTransport` in RuleKitFetch).
        public var transport: any PostbackTransport
        /// Retries, age and attempts, hits in flight per receiver.
        public var policy = PostbackDelivery.Policy()
        /// The rules whose outbound stage each hit passes once as it is queued (nil: none;
        /// `factories(rules:postbacks:)` sets it).
        public var outbound: RulesControl?
        /// Opens the URL of a `url` consequence (default: logged, not opened).
        public var openURL: @Sendable (String) -> Void = { url in
            RuleKitLog.postbacks.info("a url consequence asks to open \(url); the host handed in no opener")
        }
        /// The extension whose shared state holds `global.privacy`.
        public var configurationState = "com.adobe.module.configuration"
        /// Whether consequences are passed over while that state is missing (the reference: yes). A host with
        /// no configuration extension says no.
        public var requiresConfiguration = true
        /// How often retries coming due are looked for.
        public var poll: Duration = .milliseconds(200)
        /// Told each hit's outcome (a host's metrics).
        public var observe: @Sendable (QueuedPostback, PostbackOutcome) -> Void = { _, _ in }

        /// Hits of `queue` sent through `transport`.
        ///
        /// - Parameters:
        ///   - queue: the durable queue.
        ///   - transport: how hits are sent.
        public init(queue: PostbackQueue, transport: any PostbackTransport) {
            self.queue = queue
            self.transport = transport
        }
    }

    /// The extension's name.
    public let name = PostbackExtension.extensionName
    /// Shown in the hub's shared state.
    public let friendlyName = "Postbacks"
    /// Its version.
    public let version = RuleKitVersion.current
    /// The hub's runtime.
    public let runtime: any ExtensionRuntime
    /// Every listener is registered in `onRegistered` and no event is held.
    public var skipsUnheardEvents: Bool { true }

    let configuration: Configuration
    private let state = Locked<(ordinals: PostbackOrdinals, sending: Task<Void, Never>?, optedOut: Bool)>((PostbackOrdinals(), nil, false))

    /// A factory for `registerExtensions(factories:)`.
    ///
    /// - Parameter configuration: where hits go.
    /// - Returns: the factory.
    public static func factory(_ configuration: Configuration) -> EventHub.ExtensionFactory {
        { runtime in PostbackExtension(runtime: runtime, configuration: configuration) }
    }

    /// The rules extension and a postback extension whose hits pass those rules' outbound stage.
    ///
    /// - Parameters:
    ///   - rules: the rules extension's configuration.
    ///   - postbacks: the postback extension's (its `outbound` is set here).
    /// - Returns: both factories, the rules first.
    public static func factories(rules: RulesExtension.Configuration, postbacks: Configuration) -> [EventHub.ExtensionFactory] {
        let control = RulesControl(configuration: rules)
        var postbacks = postbacks
        postbacks.outbound = control
        return [{ runtime in RulesExtension(runtime: runtime, control: control) }, factory(postbacks)]
    }

    /// An extension with no queue cannot be made this way: use `factory(_:)`.
    ///
    /// - Parameter runtime: unused.
    public init?(runtime: any ExtensionRuntime) { nil }

    /// An extension sending as `configuration` says.
    ///
    /// - Parameters:
    ///   - runtime: what the hub gives the extension.
    ///   - configuration: where hits go.
    public init(runtime: any ExtensionRuntime, configuration: Configuration) {
        self.runtime = runtime
        self.configuration = configuration
    }

    /// Hears consequences and the configuration; starts sending what the queue holds.
    public func onRegistered() {
        registerListener(type: EventType.rulesEngine, source: EventSource.responseContent) { [weak self] e in self?.consequence(e) }
        registerListener(type: EventType.hub, source: EventSource.sharedState) { [weak self] e in
            guard let self, case .string(let owner)? = e.data?[EventHub.stateOwnerKey], owner == configuration.configurationState else {
                return
            }
            privacy(optedOut: Self.optedOut(getSharedState(extensionName: owner, event: nil)?.value))
        }
        privacy(optedOut: Self.optedOut(getSharedState(extensionName: configuration.configurationState, event: nil)?.value))
    }

    /// Stops sending; what is queued stays for the next registration.
    public func onUnregistered() {
        state.withLock { s in
            s.sending?.cancel()
            s.sending = nil
        }
    }

    static func optedOut(_ configuration: ValueObject?) -> Bool {
        configuration?["global.privacy"]?.stringValue?.lowercased() == "optedout"
    }

    /// An opt-out clears the queue and stops sending; anything else sends.
    private func privacy(optedOut: Bool) {
        let (stop, start) = state.withLock { s -> (Task<Void, Never>?, Bool) in
            s.optedOut = optedOut
            if optedOut {
                defer { s.sending = nil }
                return (s.sending, false)
            }
            return (nil, s.sending == nil)
        }
        if optedOut {
            stop?.cancel()
            do {
                let cleared = try configuration.queue.clear()
                if cleared > 0 { RuleKitLog.postbacks.info("privacy is opted out: \(cleared) queued postbacks cleared") }
            } catch {
                RuleKitLog.postbacks.error("privacy is opted out, but the postback queue could not be cleared: \(error)")
            }
        } else if start {
            let c = configuration
            let delivery = PostbackDelivery(queue: c.queue, transport: c.transport, policy: c.policy, observe: c.observe)
            // Hits queued from now on leave at once, before the task (which looks again for retries coming
            // due, and sends what an earlier run left) has a thread.
            delivery.start()
            let task = Task { await delivery.run(poll: c.poll) }
            // Opted out again meanwhile: that call found no task to stop.
            let keep = state.withLock { s -> Bool in
                guard !s.optedOut, s.sending == nil else { return false }
                s.sending = task
                return true
            }
            if !keep { task.cancel() }
        }
    }

    /// A rules consequence event: a `url` opened, a `pb`/`pii` hit queued (or why not, logged).
    private func consequence(_ e: Event) {
        guard case .object(let c)? = e.data?["triggeredconsequence"], case .string(let type)? = c["type"],
            type == "url" || Postback.Kind(rawValue: type) != nil
        else { return }
        let id = c["id"]?.stringValue ?? ""
        let config = getSharedState(extensionName: configuration.configurationState, event: e)?.value
        if config == nil && configuration.requiresConfiguration {
            RuleKitLog.postbacks.debug("a \(type) consequence (\(id)) passed over: no configuration yet")
            return
        }
        if Self.optedOut(config) || state.withLock({ $0.optedOut }) {
            RuleKitLog.postbacks.debug("a \(type) consequence (\(id)) passed over: privacy is opted out")
            return
        }
        if type == "url" {
            configuration.openURL(c["detail"]?.objectValue?["url"]?.stringValue ?? "")
            return
        }
        let ordinal = state.withLock { $0.ordinals.next(e) }
        switch Postback.from(consequence: e, ordinal: ordinal) {
        case .failure(let refusal)?: RuleKitLog.postbacks.warning("\(refusal)")
        case .success(let made)?:
            let hit = configuration.outbound?.outbound(made) ?? made
            if let refusal = hit.refusal(consequence: id) {
                RuleKitLog.postbacks.warning("after the outbound rules, \(refusal)")
                return
            }
            do { try configuration.queue.enqueue([hit]) } catch {
                RuleKitLog.postbacks.error("a \(type) consequence (\(id)) to \(hit.receiver) was not queued: \(error)")
            }
        case nil: break
        }
    }
}
