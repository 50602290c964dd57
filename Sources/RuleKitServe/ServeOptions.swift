// How `rulekit serve` is configured: the same rules, schemas, states and policies as `rulekit run`, plus
// where it listens, where history lives and whose it is, and the limits of a request.
internal import Foundation
public import RuleKitCore
public import RuleKitExtension
public import RuleKitHistory
public import RuleKitPostbacks
public import RuleKitRules
public import RuleKitSources

/// The limits of one request and of the queue.
public struct ServeLimits: Sendable {
    /// Largest request body, in bytes (413 beyond).
    public var maxBodyBytes = 16 << 20
    /// Most events (or payloads) in one request (413 beyond).
    public var maxDocuments = 10_000
    /// Depth, size and count limits of the JSON in a body.
    public var reader = ReaderLimits.default
    /// Batches waiting for a worker beyond those being processed; past this, 429 with `Retry-After`.
    public var queueCapacity = 64

    /// The defaults.
    public init() {}
}

/// Everything `rulekit serve` is started with.
public struct ServeOptions: Sendable {
    /// Rules files or folders.
    public var rules: [String] = ["Rules"]
    /// The schema folder (XDM alignment and `/v1/xdm/validate`), if any.
    public var schemas: String?
    /// The schema checks of the Check phase every load and reload runs (the CLI plugs in its linter with
    /// the schemas); nil for the rules-only checks.
    public var checkContext: (any CheckContext)?
    /// Whether rules with error findings serve anyway (each reported); files that do not load never do.
    public var allowErrors = false
    /// Whether a Launch `rules.json`'s findings refuse it too (by default a device's leniency: reported).
    public var strict = false
    /// What alignment does with misaligned XDM.
    public var xdmPolicy: XDMAlignment.Policy = .warn
    /// Shared states published at start, by extension name.
    public var states: [String: ValueObject] = [:]
    /// XDM shared states published at start, by extension name.
    public var xdmStates: [String: ValueObject] = [:]
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port to listen on (0: any free port, printed when listening).
    public var port = 8080
    /// Where history lives.
    public var history: HistoryLocation = .sqlite("rulekit-history.sqlite")
    /// Where in an event its identity lives (history is then per identity).
    public var identityPath: [String]?
    /// Request and queue limits.
    public var limits = ServeLimits()
    /// Hubs evaluating batches at once (one per core by default).
    public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// How often the rules files are checked for changes.
    public var watchInterval: Duration = .seconds(2)
    /// How rules URLs among `rules` are fetched (nil: a URL source keeps the service from starting).
    public var remote: RemoteRules?
    /// Where fetched rules are cached (the last good version of each URL, served when the publisher cannot
    /// be reached at start); nil, no cache.
    public var rulesCache: RulesCache?
    /// How often rules URLs are polled with a conditional GET (nil: only at start and on SIGHUP).
    public var rulesPoll: Duration?
    /// Records kept locally while the history store is unreachable, replayed when it returns.
    public var spoolCapacity = 100_000
    /// The spool's file, which survives a restart (nil: beside a SQLite history as `FILE.spool`, and
    /// `rulekit-history.spool` in the current folder for PostgreSQL; memory has none).
    public var spoolFile: String?
    /// How long a history read or write may wait for the store before the breaker opens.
    public var historyTimeout: Duration = .seconds(1)
    /// Most history records read for one identity before a block (the newest).
    public var prefetchLimit = 10_000
    /// The file of bearer tokens (`--auth-token-file`): nil, no token is asked for.
    public var authTokenFile: String?
    /// The file of admin bearer tokens (`--admin-token-file`), the only tokens the admin routes (history, dead
    /// letters) take: nil, those routes are off.
    public var adminTokenFile: String?
    /// How long a connection may send nothing (no request, or a request's bytes stopping) before it is
    /// closed, so connections that hold on idle cannot pile up.
    public var idleTimeout: Duration = .seconds(30)
    /// The PEM certificate chain and private key to serve HTTPS with (`--tls-cert`, `--tls-key`): nil, HTTP.
    public var tls: (certificate: String, key: String)?

    /// The folder of the postback queue (`--postbacks`): nil, postbacks are not sent (only answered as
    /// consequence events).
    public var postbacks: String?
    /// How postbacks are sent (the CLI's is AsyncHTTPClient's); nil with `postbacks` keeps them queued.
    public var postbackTransport: (any PostbackTransport)?
    /// Retries and hits in flight per receiver (`--postbacks-in-flight`).
    public var postbackPolicy = PostbackDelivery.Policy()
    /// The bound of the queue's file in bytes (`--postbacks-max-mb`): past it batches that would add
    /// postbacks are answered 503.
    public var postbackMaxBytes = 256 << 20

    /// The spool file in force for `history`.
    public var resolvedSpoolFile: String? { spoolFile ?? history.defaultSpoolFile }

    /// Options with every default.
    public init() {}
}
