import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHistory
import RuleKitHub
import RuleKitRules
import RuleKitShared
import RuleKitSources
import RuleKitTooling
import RuleKitXDM

/// `rulekit run`: the main job — events through a hub with the rules extension, delivered events out.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run events through a hub with the rules extension and print the events they produced.",
        discussion: """
            Boots a hub with the rules extension, publishes the given states (each as the shared state of an \
            extension of that name) before the first event, streams the input events (JSON lines \
            {"name","type","source","data"}), and writes the events the input produced — each input event as \
            delivered, after the rules ran, and every event its rules dispatched — in hub order, as JSON lines \
            {"id","name","type","source","data","parentID","responseID"}. The hub's own bookkeeping (rules \
            loaded, shared-state changes, resets) is left out unless --all-events is given; diagnostics go to \
            standard error. \
            Input events are dispatched in blocks of 1024, each followed by everything it causes before the \
            next block, so the output is the same on every run; the next blocks are read and parsed on other \
            threads meanwhile (--threads). Data no rule changed is written exactly as it was read; changed \
            data is written as compact JSON. \
            With no arguments it runs Examples/events.jsonl against Rules/.

            Example:
              rulekit run --state com.adobe.module.configuration=Examples/state.json \\
                Examples/events.jsonl
            """
    )

    @Option(name: .long, help: "Rules file, folder, zip or https URL (repeatable; default Rules/).")
    var rules: [String] = []

    @OptionGroup var stateOptions: StateArguments

    @OptionGroup var check: CheckOptions

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var postbacks: PostbackOptions

    @Option(
        name: .customLong("data-dir"),
        help: "Keep event history in DIR/history.sqlite (default: in memory), read and written a block at a time.")
    var dataDir: String?

    @Option(
        help: """
            Where in an event's data its identity lives (dotted, e.g. xdm.identityMap.ECID.0.id): history is \
            then kept per identity, as `rulekit serve --identity` keeps it.
            """)
    var identity: String?

    @Option(
        name: .customLong("shared"),
        help: """
            A shared data container (directory): its changes arrive as events, and the last good rules are kept \
            there, so a run whose rules are broken runs them instead.
            """)
    var shared: String?

    @Option(help: "The folder of XDM schemas rule-attached XDM is aligned with, if it holds an ExperienceEvent class (default: Schemas).")
    var schemas: String?

    @Option(name: .customLong("xdm-policy"), help: "warn (report misaligned XDM) or enforce (coerce or drop it).")
    var xdmPolicy: XDMAlignment.Policy = .warn

    @Flag(name: .customLong("all-events"), help: "Write every event the hub delivered, its own bookkeeping included.")
    var allEvents = false

    @Argument(help: "Events as JSON lines ('-' for standard input).")
    var events: String = RuleProject.defaultEvents

    @Option(
        parsing: .unconditional,
        help:
            "Threads that read and parse events while the hub runs (0: on the hub's feeding thread; default: one per processor beyond the first)."
    )
    var threads: Int?

    func validate() throws {
        if let threads, threads < 0 || threads > 64 { throw ValidationError("--threads must be between 0 and 64") }
    }

    /// Input events dispatched per block (see `run()`).
    static let blockSize = 1024

    func run() throws {
        let (states, xdm) = try stateOptions.load()
        let reader = try openEvents(events)
        let sending = postbacks.send ? try RunPostbacks(dataDir: dataDir) : nil
        var tap: (@Sendable ([Event]) -> Void)?
        if let sending { tap = { sending.take($0) } }
        let output = EventLines({ Stdout.write($0) }, tap: tap)
        // The hub is made (rules loaded and planned, schemas compiled, extensions registered) on this thread
        // while the worker reads and parses the first blocks.
        var streamed: (any Error)?
        do {
            try stream(reader, output: output) {
                let booted = try host(states: states, xdm: xdm, output: output)
                sending?.outbound.withLock { $0 = booted.rules }
                return booted
            }
        } catch { streamed = error }
        // What the events that were processed queued is delivered whatever the input's fate.
        try sending?.deliver(postbacks)
        if let streamed { throw streamed }
    }

    /// Streams the input through the hub `boot` makes while the first blocks are read (`EventStream`).
    func stream(_ reader: JSONLinesReader, output: EventLines, boot: () throws -> RulesHost) throws {
        let progress = isatty(STDERR_FILENO) == 1
        var options = EventStream.Options()
        options.blockSize = Self.blockSize
        options.workers = threads ?? JSONLinesPipeline.defaultWorkers
        options.observerWrites = allEvents
        let summary: EventStream.Summary
        do {
            summary = try EventStream.run(
                reader, name: InputFiles.displayName(events), options: options, output: output,
                problem: { Stderr.write($0 + "\n") }, progress: progress ? { Stderr.write("\r\($0) events") } : nil,
                boot: boot)
        } catch let e as EventStream.HistoryFailure {
            Stderr.write("error: \(e)\n")
            throw ExitCode(2)
        }
        if progress { Stderr.write("\r\(summary.events) events in, \(summary.delivered) delivered\n") }
        if summary.bad > 0 { throw ExitCode(1) }
    }
}
