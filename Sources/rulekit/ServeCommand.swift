import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitFetch
import RuleKitHistory
import RuleKitServe
import RuleKitSources
import RuleKitTooling

/// `rulekit serve`: the same rules as `rulekit run`, as an enrichment service for a fleet.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the rules as an HTTP enrichment service.",
        discussion: """
            POST /v1/events takes a batch of events (JSON lines, a JSON array, or {"events":[...],"states":{...},\
            "xdmStates":{...}} with the device's states for the batch) and answers with the events they produced, \
            as `rulekit run` writes them. POST /v1/xdm/validate validates payloads; GET /v1/rules, /healthz, \
            /readyz and /metrics (Prometheus) tell how it is doing. SIGHUP, or a change to a rules file, reloads \
            the rules (a broken set is refused whole and the previous rules keep serving); SIGTERM stops taking \
            batches, finishes those in flight and flushes history. See docs/serving.md.

            Example:
              rulekit serve --rules Rules --listen 127.0.0.1:8080 \\
                --history sqlite:/tmp/rulekit-history.sqlite \\
                --state com.adobe.module.configuration=Examples/state.json
            """
    )

    @Option(name: .long, help: "Rules file, folder, zip or https URL (repeatable; default Rules/).")
    var rules: [String] = []

    @OptionGroup var fetch: FetchOptions

    @Option(
        name: .customLong("rules-poll"),
        help: "How often rules URLs are polled with a conditional GET (30s, 5m, 500ms; default: at start and on SIGHUP only).")
    var rulesPoll: PollInterval?

    @Option(name: .customLong("rules-cache"), help: "The folder rules URLs are cached in (default: the user's cache folder).")
    var rulesCache: String?

    @OptionGroup var stateOptions: StateArguments

    @OptionGroup var check: CheckOptions

    @Option(help: "The folder of XDM schemas (alignment and /v1/xdm/validate; default: Schemas).")
    var schemas: String?

    @Option(name: .customLong("xdm-policy"), help: "warn (report misaligned XDM) or enforce (coerce or drop it).")
    var xdmPolicy: XDMAlignment.Policy = .warn

    @Option(help: "HOST:PORT to listen on (port 0: any free port, printed when listening).")
    var listen = "127.0.0.1:8080"

    @Option(help: "Where event history lives: sqlite:FILE, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or memory.")
    var history = "sqlite:rulekit-history.sqlite"

    @Option(help: "Where in an event its identity lives (a dotted path such as xdm.identityMap.ECID.0.id): history per identity.")
    var identity: String?

    @Option(parsing: .unconditional, help: "Hubs evaluating batches at once (default: one per core).")
    var workers: Int?

    @Option(name: .customLong("max-events"), parsing: .unconditional, help: "Most events in one request.")
    var maxEvents = 10_000

    @Option(name: .customLong("max-body"), parsing: .unconditional, help: "Largest request body, in bytes.")
    var maxBody = 16 << 20

    @Option(name: .customLong("queue"), parsing: .unconditional, help: "Batches that may wait for a worker before requests get 429.")
    var queue = 64

    @Option(
        parsing: .unconditional,
        help: """
            History records kept in the spool while the history store is unreachable, replayed in order when it \
            answers again (beyond: batches get 503 and are not answered as done).
            """)
    var spool = 100_000

    @Option(
        name: .customLong("history-spool"),
        help: """
            The spool's file, which survives a restart (default: FILE.spool beside a SQLite history, \
            rulekit-history.spool in the current folder for PostgreSQL, none for memory).
            """)
    var historySpool: String?

    @Option(
        name: .customLong("history-timeout"), parsing: .unconditional,
        help: "Milliseconds a history read or write may wait for the store before the breaker opens.")
    var historyTimeout = 1000

    @Option(
        name: .customLong("auth-token-file"),
        help:
            "Bearer tokens, one per line: every route but /healthz and /readyz then needs Authorization: Bearer TOKEN (reloaded on SIGHUP)."
    )
    var authTokenFile: String?

    @OptionGroup var postbacks: ServePostbackOptions

    @Option(
        name: .customLong("admin-token-file"),
        help: """
            Admin bearer tokens, one per line: the only tokens /v1/history/… (a person's export and delete) and \
            /v1/postbacks/dead… (the postback queue's dead letters) take; without it those routes are off (reloaded \
            on SIGHUP).
            """)
    var adminTokenFile: String?

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain: serve HTTPS (with --tls-key).")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional, help: "Seconds a connection may send nothing before it is closed.")
    var idleTimeout = 30

    /// The options' values, checked before anything starts (exit 2 naming the option).
    func validate() throws {
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard (1...3600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be from 1 to 3600 (seconds)") }
        guard Self.address(listen) != nil else { throw ValidationError("--listen takes HOST:PORT, not '\(listen)'") }
        guard HistoryLocation(history) != nil else {
            throw ValidationError("--history takes sqlite:FILE, postgres://USER@HOST/DATABASE or memory, not '\(history)'")
        }
        if let workers, !(1...256).contains(workers) { throw ValidationError("--workers must be from 1 to 256") }
        if rulesPoll != nil, !rules.contains(where: RemoteRules.isURL) {
            throw ValidationError("--rules-poll polls rules URLs, and no --rules is one (files are watched without it)")
        }
        guard maxEvents > 0, maxBody > 0, queue >= 0, spool >= 0 else {
            throw ValidationError("--max-events and --max-body must be positive, --queue and --spool not negative")
        }
        guard (1...60_000).contains(historyTimeout) else {
            throw ValidationError("--history-timeout must be from 1 to 60000 (milliseconds)")
        }
    }

    /// HOST and PORT of a `--listen` value, nil when it is not one.
    static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        return (String(text[..<colon]), port)
    }

    func run() async throws {
        var options = try serveOptions()
        let transport = try remoteRules(into: &options)
        let postbackTransport = try postbacks.apply(to: &options)
        StderrLogHandler.serviceFormat.withLock { $0 = true }
        var failure: (any Error)?
        do {
            try await ServeApp.run(options) { address in
                // The address on standard output: a supervisor (or a test) reads the port from it.
                _ = systemWrite(STDOUT_FILENO, Array("rulekit serve: listening on \(address)\n".utf8))
            }
        } catch {
            failure = error
        }
        try? await transport?.shutdown()
        await postbackTransport?.shutdown()
        if let e = failure as? DiagnosticError {
            Stderr.write(DiagnosticRenderer().render(e.diagnostics) + "\n")
            throw ExitCode(2)
        } else if let failure {
            Stderr.write("error: \(failure)\n")
            throw ExitCode(1)
        }
    }
}
