// The rules URLs a service runs, with the version of each in force: fetched at start (the cache when the
// publisher cannot be reached), polled with conditional GETs, and replaced only by a version that loads
// through the same snapshot install as a reload — so a fleet of servers polling one URL converges on each
// publish, and a broken publish is refused by every server while each keeps serving the last good version.
public import Foundation
internal import Logging
internal import RuleKitCore
internal import RuleKitSources

/// One rules URL's version in force, as `/v1/rules`, `/readyz` and `/metrics` show it.
public struct RemoteVersion: Sendable, Hashable {
    /// The URL, redacted (no credentials, no query).
    public var url: String
    /// The publisher's ETag of the version in force, when it sent one.
    public var etag: String?
    /// Its Last-Modified, when sent.
    public var lastModified: String?
    /// FNV-1a 64 of the body in force, as hexadecimal.
    public var bodyHash: String
    /// When it was fetched or last confirmed unchanged.
    public var fetchedAt: Date
    /// Whether it came from the cache (the publisher was not reached at start).
    public var fromCache: Bool
}

/// The rules URLs of a service and the body in force for each.
final class RemoteSources: Sendable {
    let urls: [String]
    let remote: RemoteRules?
    let cache: RulesCache?
    private let inForce: Locked<[String: (entry: RulesCache.Entry, fromCache: Bool)]>
    /// The body hash of each URL's last refused version: polled again, it is not loaded again (one refusal
    /// logged per broken publish, not one per poll).
    private let refused = Locked<[String: String]>([:])
    private let logger = Logger(label: "rulekit.serve")

    init(urls: [String], remote: RemoteRules?, cache: RulesCache?, inForce: [String: (entry: RulesCache.Entry, fromCache: Bool)]) {
        self.urls = urls
        self.remote = remote
        self.cache = cache
        self.inForce = Locked(inForce)
    }

    /// Each URL's body in force, for a load.
    var bodies: [String: [UInt8]] { inForce.withLock { $0.mapValues(\.entry.body) } }

    /// The versions in force, in source order.
    var versions: [RemoteVersion] {
        let now = inForce.withLock { $0 }
        return urls.compactMap { url in
            guard let v = now[url] else { return nil }
            return RemoteVersion(
                url: RemoteRules.redacted(url), etag: v.entry.etag, lastModified: v.entry.lastModified,
                bodyHash: Self.hash(v.entry.body), fetchedAt: Date(timeIntervalSince1970: v.entry.fetchedAt), fromCache: v.fromCache)
        }
    }

    static func hash(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(h, radix: 16)
    }

    /// The first version of each URL among `sources`: fetched (conditionally, from the cache's validators),
    /// else the cached one with a warning; a URL with neither keeps the service from starting.
    static func start(_ sources: [String], remote: RemoteRules?, cache: RulesCache?) async throws(DiagnosticError) -> RemoteSources {
        let urls = sources.filter(RemoteRules.isURL)
        var found: [String: (entry: RulesCache.Entry, fromCache: Bool)] = [:]
        let logger = Logger(label: "rulekit.serve")
        for url in urls {
            guard let remote else {
                throw DiagnosticError(.error(.fetchFailed, "rules URL '\(RemoteRules.redacted(url))' given with no way to fetch it"))
            }
            let cached = cache?.load(url)
            do throws(DiagnosticError) {
                switch try await remote.fetch(url, etag: cached?.etag, lastModified: cached?.lastModified) {
                case .fetched(let entry): found[url] = (entry, false)
                case .notModified:
                    guard var cached else {
                        throw DiagnosticError(.error(.fetchFailed, "'\(RemoteRules.redacted(url))' answered 304 to an unconditional GET"))
                    }
                    cached.fetchedAt = Date().timeIntervalSince1970
                    found[url] = (cached, false)
                }
            } catch {
                guard let cached else { throw error }
                logger.warning(
                    "rules URL not reached at start; serving its cached version",
                    metadata: [
                        "url": "\(RemoteRules.redacted(url))", "why": "\(error.diagnostics.first?.message ?? "")",
                        "cachedAgoSeconds": "\(Int(Date().timeIntervalSince1970 - cached.fetchedAt))",
                    ])
                found[url] = (cached, true)
            }
        }
        return RemoteSources(urls: urls, remote: remote, cache: cache, inForce: found)
    }

    /// Puts the cached version back in force for every URL whose fetched version is in force (the fetched
    /// set did not load at start): true when there was one to put back.
    func fallBackToCache() -> Bool {
        guard let cache else { return false }
        return inForce.withLock { now in
            var any = false
            for (url, v) in now where !v.fromCache {
                guard let cached = cache.load(url), cached.body != v.entry.body else { continue }
                refused.withLock { $0[url] = Self.hash(v.entry.body) }
                now[url] = (cached, true)
                any = true
            }
            return any
        }
    }

    /// Puts `candidate` in force (after it loaded) and caches it.
    func commit(_ candidate: [String: RulesCache.Entry]) {
        inForce.withLock { now in for (url, e) in candidate { now[url] = (e, false) } }
        store(candidate.values)
    }

    /// Marks `candidate`'s versions as refused (they did not load).
    func refuse(_ candidate: [String: RulesCache.Entry]) {
        refused.withLock { r in for (url, e) in candidate { r[url] = Self.hash(e.body) } }
    }

    /// Caches versions that loaded; a cache that cannot be written is logged (the rules still serve).
    func store(_ entries: some Sequence<RulesCache.Entry>) {
        guard let cache else { return }
        for e in entries {
            do { try cache.store(e) } catch {
                logger.warning("rules cache not written", metadata: ["why": "\(error.diagnostics.first?.message ?? "")"])
            }
        }
    }

    /// The versions of the start that came from the network, to cache once the service loaded them.
    var fetchedAtStart: [RulesCache.Entry] { inForce.withLock { $0.values.filter { !$0.fromCache }.map(\.entry) } }

    /// One conditional GET of every URL: the new versions found (empty when every publisher answered 304),
    /// and the failures (the rules in force stay).
    func poll() async -> (changed: [String: RulesCache.Entry], failures: [String]) {
        guard let remote else { return ([:], []) }
        var changed: [String: RulesCache.Entry] = [:]
        var failures: [String] = []
        for url in urls {
            let current = inForce.withLock { $0[url]?.entry }
            do {
                switch try await remote.fetch(url, etag: current?.etag, lastModified: current?.lastModified) {
                case .notModified:
                    inForce.withLock { $0[url]?.entry.fetchedAt = Date().timeIntervalSince1970 }
                case .fetched(let e):
                    // A 200 with the very body in force (a publisher without validators) is no new version.
                    if e.body == current?.body {
                        inForce.withLock { $0[url] = (e, false) }
                    } else if refused.withLock({ $0[url] }) != Self.hash(e.body) {
                        changed[url] = e
                    }
                }
            } catch {
                failures.append(error.diagnostics.first?.message ?? "\(error)")
            }
        }
        return (changed, failures)
    }
}
