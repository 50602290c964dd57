// Rules from the configuration's `rules.url`, as the reference SDKs load them (launch-rules-reference §7,
// §12.1): at registration the cached rules of the last URL (or a bundled zip on a first launch) before any
// network answers; on each configuration change, a fetch — a conditional GET when the URL is the one in
// force, where a 304 keeps the rules without a reset —, a load, and the reset. A failed fetch or a broken
// archive keeps the rules in force and the cache untouched, and says why (log and diagnostics event).
//
// Unlike the reference, which parses downloaded and bundled rules without a runtime (§2.4: their
// historical conditions drop out until a later launch), RuleKit loads them as any rules: their historical
// conditions run from the first load.
internal import RuleKitCore
internal import RuleKitHub
public import RuleKitSources

/// How a rules extension follows the configuration's `rules.url` (off unless the host hands one in).
public struct RulesURLSource: Sendable {
    /// The publisher's network and its options.
    public var remote: RemoteRules
    /// Where fetched rules are kept, keyed by URL, with the last URL loaded (nil: nothing kept).
    public var cache: RulesCache?
    /// A rules zip shipped with the host, loaded at registration when the cache has nothing.
    public var bundled: String?
    /// The extension whose shared state holds `rules.url`.
    public var configurationState = "com.adobe.module.configuration"
    /// The key of the rules URL in that state.
    public var urlKey = "rules.url"

    /// A source as given.
    ///
    /// - Parameters:
    ///   - remote: the network.
    ///   - cache: the cache, or nil.
    ///   - bundled: a bundled rules zip, or nil.
    public init(remote: RemoteRules, cache: RulesCache? = nil, bundled: String? = nil) {
        self.remote = remote
        self.cache = cache
        self.bundled = bundled
    }
}

/// The URL in force and its validators; fetches run one at a time, in the order configurations came.
final class RulesURLFollower: Sendable {
    let source: RulesURLSource
    private let state = Locked<(current: RulesCache.Entry?, tail: Task<Void, Never>?, followed: Int)>((nil, nil, 0))

    init(_ source: RulesURLSource) {
        self.source = source
    }

    /// The rules to load at registration: the cached rules of the last URL, else the bundled zip.
    func initial() -> RuleSnapshot? {
        if let cache = source.cache, let url = cache.lastURL(), let entry = cache.load(url) {
            state.withLock { $0.current = entry }
            return RuleSnapshot.load([url], fetched: [url: entry.body])
        }
        if let bundled = source.bundled { return RuleSnapshot.load([bundled]) }
        return nil
    }

    /// Follows a configuration naming `url`: queued after the fetches before it.
    func follow(
        _ url: String, install: @escaping @Sendable (RuleSnapshot) -> RulesLoadOutcome?, report: @escaping @Sendable (String) -> Void
    ) {
        state.withLock { s in
            s.followed += 1
            let previous = s.tail
            s.tail = Task {
                await previous?.value
                await self.fetch(url, install: install, report: report)
            }
        }
    }

    /// How many configurations naming a URL were followed (a test waits for its own before settling: the
    /// shared-state event reaches this extension on its own queue, which a settle marker it does not take
    /// does not wait for).
    var followed: Int { state.withLock { $0.followed } }

    /// Waits for the fetches queued so far (tests, a host's shutdown).
    func settle() async {
        let tail = state.withLock { $0.tail }
        await tail?.value
    }

    private func fetch(_ url: String, install: @Sendable (RuleSnapshot) -> RulesLoadOutcome?, report: @Sendable (String) -> Void) async {
        let current = state.withLock { $0.current }
        // Same URL: the validators of the rules in force. Another: the cache's for it, if any.
        let known = current?.url == url ? current : source.cache?.load(url)
        let fetched: RulesFetch
        do { fetched = try await source.remote.fetch(url, etag: known?.etag, lastModified: known?.lastModified) } catch {
            report("\(error.diagnostics.first?.message ?? "\(error)"); the rules in force stay")
            return
        }
        let entry: RulesCache.Entry
        switch fetched {
        case .notModified:
            guard let known else {
                report("'\(RemoteRules.redacted(url))' answered 304 to an unconditional GET; the rules in force stay")
                return
            }
            if current?.url == url { return }  // the rules in force are current: no reload, no reset
            entry = known
        case .fetched(let e): entry = e
        }
        let snapshot = RuleSnapshot.load([url], fetched: [url: entry.body])
        guard let outcome = install(snapshot), outcome.loaded else {
            report("the rules at '\(RemoteRules.redacted(url))' did not load; the rules in force stay")
            return
        }
        state.withLock { $0.current = entry }
        if let cache = source.cache {
            do {
                try cache.store(entry)
                try cache.setLastURL(url)
            } catch {
                report("the rules from '\(RemoteRules.redacted(url))' run but were not cached: \(error.diagnostics.first?.message ?? "")")
            }
        }
    }
}
