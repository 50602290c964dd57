// The service without its HTTP: a set of rules hosts (one hub per worker, all sharing one history store),
// a bounded queue in front of them, XDM validation, and reloads that refuse a broken rule set whole.
public import Foundation
internal import Logging
public import RuleKitCore
internal import RuleKitExtension
public import RuleKitHistory
internal import RuleKitHub
public import RuleKitPostbacks
internal import RuleKitRules
internal import RuleKitSources
internal import RuleKitXDM
internal import ServiceLifecycle

/// Why a batch was not processed.
public enum ServeError: Error, Sendable, Equatable {
    /// The queue is full: retry after the given seconds.
    case overloaded(retryAfter: Int)
    /// The service is shutting down.
    case stopping
    /// The postback queue is full: retry later.
    case postbacksFull
    /// The batch's history could not be kept (the store is down and the spool full): retry later.
    case historyUnavailable(String)
}

/// What the rules in force are, and how the last load went (`GET /v1/rules`).
public struct RulesStatus: Sendable {
    /// Whether the last attempt loaded (false: the previous rules kept serving).
    public var lastAttemptLoaded: Bool
    /// Rules in force.
    public var count: Int
    /// A hash of the rules files in force as they were read (`RuleSnapshot.contentHash`).
    public var contentHash: String
    /// When the rules in force were loaded.
    public var loadedAt: Date
    /// When the last attempt was made.
    public var attemptedAt: Date
    /// The findings of the last attempt.
    public var diagnostics: [Diagnostic]
    /// The version in force of each rules URL (empty for rules from files).
    public var versions: [RemoteVersion] = []
}

/// The enrichment service: batches of events in, the events they produced out.
public final class EnrichmentService: Sendable {
    let options: ServeOptions
    let hosts: [RulesHost]
    let metrics: ServeMetrics
    let validator: JSONSchemaValidator?
    let history: BlockHistory
    /// The history store's client, run by the service group first and stopped last (nil when it has none).
    let historyClient: (any Service)?
    /// The history store as it answers for one person (export, erase): nil for a store that cannot.
    let personal: (any HistoryExporting)?
    /// The postback queue (`--postbacks`), written before a batch is answered; nil when not sending.
    public let postbacks: PostbackQueue?
    /// What delivery did so far.
    let postbackCounts = Locked(PostbackCounts())
    private let logger = Logger(label: "rulekit.serve")
    private let queue = Locked(Queue())

    /// Batches in flight, and who waits for there to be none (`drain`).
    private struct Queue {
        var inFlight = 0
        var next = 0
        var stopping = false
        var nextWaiter: UInt64 = 0
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }
    private let status: Locked<RulesStatus>
    private let watched: Locked<[String: FileStamp]>
    private let reloads = Locked(ReloadTickets())
    /// Held from a reload's final ticket check through its install (or its refusal's stamps): two reloads
    /// that both pass the check install in ticket order, and the watched stamps are always those of the
    /// newest decision.
    private let installing = Locked(())
    /// The rules URLs among the sources, with the version of each in force.
    let remote: RemoteSources

    /// Builds the hosts and loads the rules, waiting on this thread for each hub to boot (tests and other
    /// code that is not async; `start` from async code). A rule set that does not load, or a history that
    /// cannot be opened, is an error (nothing would be served right).
    ///
    /// - Parameter options: how the service is configured.
    /// - Throws: a `DiagnosticError` saying what keeps it from starting.
    public convenience init(_ options: ServeOptions) throws(DiagnosticError) {
        let parts = try Parts(
            options, remote: RemoteSources(urls: options.rules.filter(RemoteRules.isURL), remote: nil, cache: nil, inForce: [:]))
        var hosts: [RulesHost] = []
        for c in parts.hostConfigurations {
            do { hosts.append(try RulesHost(c)) } catch { throw Parts.hubFailure(error) }
        }
        self.init(parts, hosts: hosts)
    }

    /// Builds the hosts and loads the rules as `init` does, suspending (no thread waits) while each hub
    /// boots: what `rulekit serve` calls.
    ///
    /// - Parameter options: how the service is configured.
    /// - Returns: the service, its hosts booted.
    /// - Throws: a `DiagnosticError` saying what keeps it from starting.
    public static func start(_ options: ServeOptions) async throws(DiagnosticError) -> EnrichmentService {
        // Rules URLs are fetched first (their cached versions when the publisher cannot be reached).
        let remote = try await RemoteSources.start(options.rules, remote: options.remote, cache: options.rulesCache)
        let parts: Parts
        do { parts = try Parts(options, remote: remote) } catch {
            // A publish that does not load never replaces the cached version that did: start on that one.
            guard remote.fallBackToCache() else { throw error }
            Logger(label: "rulekit.serve").error(
                "the rules fetched at start do not load; serving the cached version",
                metadata: ["errors": "\(error.diagnostics.count)"])
            parts = try Parts(options, remote: remote)
        }
        var hosts: [RulesHost] = []
        for c in parts.hostConfigurations {
            do { hosts.append(try await RulesHost.start(c)) } catch { throw Parts.hubFailure(error) }
        }
        remote.store(remote.fetchedAtStart)
        return EnrichmentService(parts, hosts: hosts)
    }

    /// What the service is made of before its hubs boot.
    struct Parts {
        let options: ServeOptions
        let remote: RemoteSources
        let snapshot: RuleSnapshot
        let metrics = ServeMetrics()
        let history: BlockHistory
        let historyClient: (any Service)?
        let personal: (any HistoryExporting)?
        let postbacks: PostbackQueue?
        let validator: JSONSchemaValidator?
        var hostConfigurations: [RulesHost.Configuration] = []

        init(_ options: ServeOptions, remote: RemoteSources) throws(DiagnosticError) {
            self.options = options
            self.remote = remote
            snapshot = RuleSnapshot.load(options.rules, fetched: remote.bodies, context: options.checkContext)
            if !snapshot.admits(strict: options.strict, allowErrors: options.allowErrors) {
                throw DiagnosticError(snapshot.hasErrors ? snapshot.errors : snapshot.refusals(strict: options.strict))
            }
            // History in this process (memory) is recorded into and asked directly by the hubs, each record
            // keyed by its cause, so nothing is read before a block or written after it (no store to wait on).
            let store = try options.history.open()
            historyClient = store.client
            personal = store.backend as? any HistoryExporting
            postbacks = try options.postbacks.map { dir throws(DiagnosticError) in
                try PostbackQueue(directory: dir, maxBytes: options.postbackMaxBytes)
            }
            var historyOptions = BlockHistory.Options()
            historyOptions.spoolFile = options.resolvedSpoolFile.map { URL(fileURLWithPath: $0) }
            historyOptions.spoolCapacity = options.spoolCapacity
            historyOptions.timeout = options.historyTimeout
            historyOptions.prefetchLimit = options.prefetchLimit
            history = try BlockHistory(backend: store.backend, options: historyOptions)
            var alignment: XDMAlignment?
            var validator: JSONSchemaValidator?
            if let schemas = options.schemas {
                let registry = try XDMRegistry(folder: URL(fileURLWithPath: schemas))
                if let cls = registry.experienceEventClass {
                    alignment = try XDMAlignment(registry: registry, classID: cls, policy: options.xdmPolicy)
                    validator = try registry.compose(class: cls, fieldGroups: registry.fieldGroups(for: cls)).validator
                }
            }
            self.validator = validator
            let metrics = self.metrics
            for _ in 0..<max(1, options.workers) {
                var c = RulesHost.Configuration(
                    rules: options.rules, preloaded: snapshot, states: options.states, xdmStates: options.xdmStates, xdm: alignment)
                if let direct = store.direct { c.history = direct } else { c.blockHistory = history }
                c.identityPath = options.identityPath
                c.allowErrors = options.allowErrors
                c.strict = options.strict
                c.batchStates = true
                let fired = metrics.tally()
                c.onRulesMatched = { _, rules in fired.add(rules) }
                c.onBlockTimed = { metrics.timed($0) }
                hostConfigurations.append(c)
            }
        }

        static func hubFailure(_ error: HubError) -> DiagnosticError {
            DiagnosticError(.error("serve.hub", "the hub could not start: \(error)"))
        }
    }

    private init(_ parts: Parts, hosts: [RulesHost]) {
        options = parts.options
        metrics = parts.metrics
        history = parts.history
        historyClient = parts.historyClient
        personal = parts.personal
        postbacks = parts.postbacks
        validator = parts.validator
        remote = parts.remote
        self.hosts = hosts
        let now = Date()
        let snapshot = parts.snapshot
        status = Locked(
            RulesStatus(
                lastAttemptLoaded: true, count: snapshot.ruleCount, contentHash: snapshot.contentHash, loadedAt: now,
                attemptedAt: now, diagnostics: snapshot.reported(strict: options.strict)))
        watched = Locked(snapshot.stamps)
    }

    /// Processes one batch on the next worker, with the device's states; the events it produced, in hub
    /// order (XDM alignment findings, which are diagnostics, left out as `rulekit run` leaves them out).
    ///
    /// - Throws: `ServeError.overloaded` when the queue is full (nothing of the batch was accepted).
    public func enrich(
        _ events: [Event], states: [String: ValueObject] = [:], xdmStates: [String: ValueObject] = [:]
    ) async throws(ServeError) -> [Event] {
        let capacity = hosts.count + options.limits.queueCapacity
        let admitted = queue.withLock { q -> Result<Int, ServeError> in
            if q.stopping { return .failure(.stopping) }
            guard q.inFlight < capacity else { return .failure(.overloaded(retryAfter: 1)) }
            q.inFlight += 1
            q.next += 1
            return .success(q.next)
        }
        let ticket: Int
        switch admitted {
        case .success(let t): ticket = t
        case .failure(let e):
            metrics.rejected.increment()
            throw e
        }
        metrics.queueDepth.record(queue.withLock { $0.inFlight })
        defer {
            let (depth, idle) = queue.withLock { q -> (Int, [CheckedContinuation<Void, Never>]) in
                q.inFlight -= 1
                guard q.inFlight == 0, !q.idleWaiters.isEmpty else { return (q.inFlight, []) }
                defer { q.idleWaiters = [:] }
                return (0, Array(q.idleWaiters.values))
            }
            for waiter in idle { waiter.resume() }
            metrics.queueDepth.record(depth)
        }
        metrics.eventsIn.increment(by: Int64(events.count))
        let produced: [Event]
        do {
            produced = try await hosts[ticket % hosts.count].process(events, states: states, xdmStates: xdmStates)
        } catch {
            throw .historyUnavailable("\(error)")
        }
        let out = produced.filter { $0.type != XDMAlignment.diagnosticsEventType }
        try await queuePostbacks(out, states: states)
        metrics.eventsOut.increment(by: Int64(out.count))
        return out
    }

    /// Validates payloads against the ExperienceEvent class of the schema folder, as
    /// `rulekit xdm validate --format json` does: one verdict per payload.
    public func validate(_ payloads: [(line: Int, value: Value)]) -> [Value]? {
        guard let validator else { return nil }
        return payloads.map { line, v in
            let errors = validator.validate(v)
            return [
                "line": .int(Int64(line)), "valid": .bool(errors.isEmpty),
                "errors": .array(errors.map { ["path": .string($0.instancePath), "message": .string($0.message)] }),
            ]
        }
    }

    /// The rules in force and the last attempt.
    public var rulesStatus: RulesStatus {
        var s = status.withLock { $0 }
        s.versions = remote.versions
        return s
    }

    /// Whether batches are taken (`/readyz`): rules are loaded once the service exists, so until it stops.
    /// An open history breaker does not make it unready: batches are answered, history questions with the
    /// error value (`historyStatus` says so).
    public var isReady: Bool { !queue.withLock { $0.stopping } }

    /// The history breaker and spool now.
    public var historyStatus: BlockHistory.Status { history.status }

    /// Reloads the rules on every worker: the files are read and planned once, and that one snapshot goes to
    /// every worker (none reads the disk again, so all run what was checked). A set with any error is
    /// refused whole, the previous rules keep serving, and the failure shows in the status, the log and
    /// the metrics.
    @discardableResult
    public func reload(reason: String) -> Bool {
        reload(reason: reason, candidate: [:])
    }

    /// Reloads with `candidate`'s versions of rules URLs in place of those in force (put in force, and
    /// cached, only when the set loads).
    @discardableResult
    func reload(reason: String, candidate: [String: RulesCache.Entry]) -> Bool {
        let ticket = reloads.withLock { $0.take() }
        let bodies = remote.bodies.merging(candidate.mapValues(\.body)) { _, new in new }
        let files = RuleSnapshot.load(options.rules, fetched: bodies, context: options.checkContext)
        return install(files, ticket: ticket, reason: reason, candidate: candidate)
    }

    /// As `reload(reason:candidate:)`, with the rules read, planned and checked on a thread of their own
    /// at the lowest priority (`BackgroundLoad`), so that the batches served meanwhile keep their latency.
    @discardableResult
    func reloadInBackground(reason: String, candidate: [String: RulesCache.Entry] = [:]) async -> Bool {
        let ticket = reloads.withLock { $0.take() }
        let bodies = remote.bodies.merging(candidate.mapValues(\.body)) { _, new in new }
        let (rules, context) = (options.rules, options.checkContext)
        let files = await BackgroundLoad.run { RuleSnapshot.load(rules, fetched: bodies, context: context) }
        return install(files, ticket: ticket, reason: reason, candidate: candidate)
    }

    /// The order of reloads: each takes a ticket when it starts, and one whose load finishes after a later
    /// one was installed is dropped (two reloads may run at once: a poll's and a file watch's, or SIGHUP's).
    struct ReloadTickets {
        var next = 0
        var installed = -1
        mutating func take() -> Int {
            next += 1
            return next
        }
    }

    /// Puts `files`, loaded for reload `ticket`, in force on every worker, or refuses them (see `reload`).
    private func install(_ files: RuleSnapshot, ticket: Int, reason: String, candidate: [String: RulesCache.Entry]) -> Bool {
        guard reloads.withLock({ r in r.installed < ticket }) else {
            logger.info("rules reload (\(reason)) overtaken by a later one; not installed")
            return false
        }
        let now = Date()
        let reported = files.reported(strict: options.strict)
        guard files.admits(strict: options.strict, allowErrors: options.allowErrors) else {
            let errors = reported.filter { $0.severity == .error }
            // A refusal is the newest word too: a reload that started before it and ends after is not
            // installed. Its stamps are watched (the same broken files are not read again) unless a later
            // reload decided first.
            installing.withLock { _ in
                let newest = reloads.withLock { r in
                    defer { r.installed = max(r.installed, ticket) }
                    return r.installed < ticket
                }
                if newest { watched.withLock { $0 = files.stamps } }
            }
            metrics.reloadFailures.increment()
            remote.refuse(candidate)
            logger.error(
                "rules reload (\(reason)) refused; the previous rules keep serving", metadata: ["errors": "\(errors.count)"])
            logger.error("\(files.render(errors))")
            status.withLock { s in
                s.lastAttemptLoaded = false
                s.attemptedAt = now
                s.diagnostics = reported
            }
            return false
        }
        // Installed in ticket order: checked again, and installed, under the lock that orders installs.
        var count = files.ruleCount
        let installed = installing.withLock { _ in
            guard
                reloads.withLock({ r in
                    guard r.installed < ticket else { return false }
                    r.installed = ticket
                    return true
                })
            else { return false }
            watched.withLock { $0 = files.stamps }
            remote.commit(candidate)
            for h in hosts {
                let outcome = h.rules.install(files)
                count = outcome?.ruleCount ?? count
            }
            return true
        }
        guard installed else {
            logger.info("rules reload (\(reason)) overtaken by a later one; not installed")
            return false
        }
        metrics.reloads.increment()
        logger.info("rules reloaded (\(reason))", metadata: ["rules": "\(count)"])
        status.withLock { s in
            s = RulesStatus(
                lastAttemptLoaded: true, count: count, contentHash: files.contentHash, loadedAt: now, attemptedAt: now,
                diagnostics: reported)
        }
        return true
    }

    /// Polls every rules URL once (conditional GETs) and reloads when one has a new version; a publisher
    /// that cannot be reached keeps the rules in force (logged and counted).
    func pollRemote() async {
        guard !remote.urls.isEmpty else { return }
        let (changed, failures) = await remote.poll()
        metrics.rulesPolls.increment()
        for f in failures {
            metrics.rulesPollFailures.increment()
            logger.warning("rules URL poll failed; the rules in force keep serving", metadata: ["why": "\(f)"])
        }
        if !changed.isEmpty {
            await reloadInBackground(
                reason: "a new version at \(changed.keys.map(RemoteRules.redacted).sorted().joined(separator: ", "))", candidate: changed)
        }
    }

    /// Reloads when a rules file changed since the last look (its size or modification time).
    func reloadIfChanged() {
        if filesChanged() { reload(reason: "a rules file changed") }
    }

    /// As `reloadIfChanged`, the rules loaded in the background (`reloadInBackground`).
    func reloadIfChangedInBackground() async {
        if filesChanged() { await reloadInBackground(reason: "a rules file changed") }
    }

    /// Whether a rules file changed since the last look (its size, modification time or inode).
    private func filesChanged() -> Bool {
        let now = RuleSources.stamps(options.rules)
        return watched.withLock { old -> Bool in old != now }
    }

    /// Stops taking batches; those in flight finish.
    func beginStopping() {
        queue.withLock { $0.stopping = true }
    }

    /// Batches being processed or waiting for a worker now.
    var batchesInFlight: Int { queue.withLock { $0.inFlight } }

    /// Waits (up to `timeout`) until no batch is in flight: woken by the last batch to end, not by polling.
    func drain(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.idle() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once no batch is in flight, or when the task is cancelled.
    private func idle() async {
        let id = queue.withLock { q -> UInt64 in
            q.nextWaiter += 1
            return q.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                // Checked under the lock the last batch's end takes: no end is missed between the look and
                // the wait. A task cancelled before it waits does not wait.
                let now = queue.withLock { q -> Bool in
                    if q.inFlight == 0 || Task.isCancelled { return true }
                    q.idleWaiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            queue.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }
}
