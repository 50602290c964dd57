import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitRules
import RuleKitShared
import RuleKitSources
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

    @Option(name: .long, help: "Rules file or folder (repeatable; default Rules/).")
    var rules: [String] = []

    @OptionGroup var stateOptions: StateArguments

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
    var events: String = "Examples/events.jsonl"

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
    /// Blocks in flight when history is kept per block: enough for a block's read and the write of the
    /// one before to run while the hub evaluates a third.
    static let historyDepth = 3

    func run() throws {
        let (states, xdm) = try stateOptions.load()
        let reader = try openEvents(events)
        let output = EventLines()
        // The hub is made (rules loaded and planned, schemas compiled, extensions registered) on this thread
        // while the worker reads and parses the first blocks.
        try stream(reader, output: output) { try host(states: states, xdm: xdm, output: output) }
    }

    /// The booted hub of this run: its rules, states, shared container, history and XDM alignment.
    func host(states: [String: ValueObject], xdm: [String: ValueObject], output: EventLines) throws -> RulesHost {
        let sources = rules.isEmpty ? ["Rules"] : rules
        var container: SharedContainer?
        if let shared {
            do { container = try SharedContainer(directory: URL(fileURLWithPath: shared)) } catch {
                Stderr.write("error: \(error)\n")
                throw ExitCode(2)
            }
        }
        // The documents read are freed once loaded (no `keepsDocuments`): a run over a long stream would
        // carry them to its end.
        let files = RuleSnapshot.load(sources)
        if files.hasErrors {
            Stderr.write(files.render(files.errors) + "\n")
            // With kept rules the run goes on: the rules extension falls back on them (and says so).
            guard let container, (try? container.read(RulesExtension.lastGoodCollection)) != nil else { throw files.exitCode }
            Stderr.write("warning: running the last good rules kept in \(container.directory.path)\n")
        }
        var configuration = RulesHost.Configuration(
            rules: sources, preloaded: files, states: states, xdmStates: xdm, container: container,
            xdm: try alignment())
        configuration.identityPath = try IdentityOption.parse(identity)
        if let dataDir {
            switch SQLiteEventHistory.open(directory: dataDir) {
            case .success(let store):
                // One read before each block and one transaction after it (`BlockHistory`); no spool: a
                // write the file refuses ends the run (exit 2) rather than forgetting history.
                var options = BlockHistory.Options()
                options.spoolCapacity = 0
                options.timeout = .seconds(60)
                do { configuration.blockHistory = try BlockHistory(backend: store, options: options) } catch {
                    Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
                    throw ExitCode(2)
                }
            case .failure(let e):
                // A folder the user named and that cannot hold history is a usage error: a run that
                // silently forgot history would answer historical conditions differently.
                Stderr.write(DiagnosticRenderer().render(e.diagnostics) + "\n")
                throw ExitCode(2)
            }
        }
        // Worker threads read and parse the input; the hub delivers one event at a time. Nearly all its work is
        // the rules extension's, and a thread per extension taking turns costs switches and cache misses
        // (on two cores, a tenth of the run).
        configuration.serialDelivery = true
        if allEvents { configuration.observer = { output.write($0) } }
        do { return try RulesHost(configuration) } catch {
            Stderr.write("error: \(error)\n")
            throw ExitCode(2)
        }
    }

    /// Streams the input through the hub `boot` makes while the first blocks are read.
    func stream(_ reader: JSONLinesReader, output: EventLines, boot: () throws -> RulesHost) throws {
        var booted: RulesHost?
        let progress = isatty(STDERR_FILENO) == 1
        var count = 0
        var bad = 0
        // Input events go to the hub in blocks, each dispatched once the one before has been delivered,
        // with everything it caused: the output is the same on every run however the threads are timed.
        // Blocks are read and parsed on a worker thread meanwhile (see `JSONLinesPipeline`). With history
        // kept per block, several blocks are in flight: a block's history read and write run while its
        // neighbours are evaluated (`RulesHost.process(_:completion:)` keeps their order).
        let produced = Locked(0)
        var historyFailure: HistoryUnavailable?
        let allEvents = self.allEvents
        /// A block handed to the hub: what it delivered (or why its history could not be kept), once done.
        final class Flight: Sendable {
            private let done = DispatchSemaphore(value: 0)
            private let result = Locked<(Result<[Event], HistoryUnavailable>?, waited: Bool)>((nil, false))
            let block: EventBlock
            init(_ block: EventBlock) { self.block = block }
            /// Called by the hub's side when the block is done.
            func end(_ r: Result<[Event], HistoryUnavailable>) {
                result.withLock { $0.0 = r }
                done.signal()
            }
            /// The block's outcome, waited for (once) when it is not done yet.
            func outcome() -> Result<[Event], HistoryUnavailable>? {
                if !result.withLock({ $0.waited }) {
                    done.wait()
                    result.withLock { $0.waited = true }
                }
                return result.withLock { $0.0 }
            }
        }
        var flights: [Flight] = []
        func write(_ events: [Event]) {
            // The data stream holds events; XDM alignment findings are diagnostics (on standard error).
            if !allEvents { output.write(events) { $0.type != XDMAlignment.diagnosticsEventType } }
        }
        /// Writes what a block that is done delivered (nothing once a block's history could not be kept:
        /// the output stops at the last block kept). Returns its input.
        func land(_ f: Flight) -> EventBlock {
            switch f.outcome() {
            case .success(let events)?:
                if historyFailure == nil {
                    produced.withLock { $0 += events.count }
                    write(events)
                }
            case .failure(let e)?:
                if historyFailure == nil { historyFailure = e }
            case nil:
                break
            }
            return f.block
        }
        /// Hands `block` to the hub; returns the input of a block landed meanwhile, to be freed.
        func send(_ block: EventBlock) -> EventBlock? {
            // `booted` is set before the first block comes (the pipeline's setup).
            guard !block.events.isEmpty, let host = booted else { return nil }
            // Without history one block is in flight: the one before is delivered before this one is
            // dispatched, and written while the hub evaluates this one (the hub's thread, the busiest,
            // does no writing). With history the host keeps the blocks' order itself.
            let depth = host.keepsBlockHistory ? Self.historyDepth : 1
            var before: Flight?
            if depth == 1, !flights.isEmpty {
                before = flights.removeFirst()
                _ = before?.outcome()
            }
            let f = Flight(block)
            flights.append(f)
            host.process(block.events) { f.end($0) }
            var landed = before.map(land)
            while flights.count > depth { landed = land(flights.removeFirst()) }
            return landed
        }
        let name = InputFiles.displayName(events)
        try JSONLinesPipeline.run(reader, blockSize: Self.blockSize, workers: threads ?? JSONLinesPipeline.defaultWorkers) {
            { block in
                var out = EventBlock()
                out.events.reserveCapacity(Self.blockSize)
                // The data of each event is kept as read, in a tape: the engine reads it there, and unchanged
                // data is written out as those bytes.
                for record in block.records(tapeOf: "data", sharing: EventJSON.knownStrings) {
                    switch record.value {
                    case .success(.object(let o)):
                        out.events.append(EventJSON.event(o, dataText: record.memberText, document: record.tape))
                    case .success:
                        out.problems.append(DiagnosticRenderer().render(EventJSON.notAnEvent(file: name, line: record.line)))
                    case .failure(let e): out.problems.append(DiagnosticRenderer().render(e.diagnostics))
                    }
                }
                return out
            }
        } setup: {
            booted = try boot()
        } consume: { block in
            if let failure = historyFailure {
                Stderr.write("error: event history could not be written (\(failure)); the output stops at the last block kept\n")
                throw ExitCode(2)
            }
            for p in block.problems { Stderr.write(p + "\n") }
            bad += block.problems.count
            count += block.events.count
            if progress { Stderr.write("\r\(count) events") }
            // A landed block goes back to the worker that parsed it, to be released there: freed on another
            // thread, every node of every event would go back to the worker's allocator under its lock,
            // against the worker's own allocations.
            return send(block)
        }
        while !flights.isEmpty { _ = land(flights.removeFirst()) }
        if let failure = historyFailure {
            Stderr.write("error: event history could not be written (\(failure)); the output stops at the last block kept\n")
            throw ExitCode(2)
        }
        output.flush()
        if progress { Stderr.write("\r\(count) events in, \(produced.withLock { $0 }) delivered\n") }
        if bad > 0 { throw ExitCode(1) }
    }

    /// The XDM alignment of rule-attached XDM, when the schema folder has an ExperienceEvent class.
    func alignment() throws -> XDMAlignment? {
        guard let schemas = try SchemaFolder.resolve(schemas, skipping: "XDM alignment of rule-attached XDM is") else { return nil }
        do {
            let registry = try XDMRegistry(folder: URL(fileURLWithPath: schemas))
            guard let cls = registry.experienceEventClass else { return nil }
            return try XDMAlignment(registry: registry, classID: cls, policy: xdmPolicy)
        } catch {
            Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
            throw ExitCode(2)
        }
    }
}

/// What the reading thread makes of one block of `rulekit run`'s input.
struct EventBlock: Sendable {
    /// The events of the block's object lines, in order.
    var events: [Event] = []
    /// The messages of the lines that were no event.
    var problems: [String] = []
}

/// Writes events as JSON lines to standard output, buffered.
final class EventLines: Sendable {
    /// The lines not written yet. Written out past `flushBytes` and emptied keeping its memory: one buffer
    /// for the whole run, not a fresh megabyte (fresh pages from the kernel) for every block.
    private let buffer = Locked<[UInt8]>([])
    private static let flushBytes = 1 << 18

    /// Writes one event.
    func write(_ e: Event) {
        buffer.withLock { b in
            EventJSON.writeLine(e, to: &b)
            Self.flushIfFull(&b)
        }
    }

    /// Writes a block's events, those `include` keeps, in order.
    func write(_ events: [Event], where include: (Event) -> Bool) {
        buffer.withLock { b in
            for e in events where include(e) {
                EventJSON.writeLine(e, to: &b)
                Self.flushIfFull(&b)
            }
        }
    }

    private static func flushIfFull(_ b: inout [UInt8]) {
        guard b.count > flushBytes else { return }
        Stdout.write(b)
        b.removeAll(keepingCapacity: true)
    }

    func flush() {
        buffer.withLock { b in
            if !b.isEmpty { Stdout.write(b) }
            b.removeAll()
        }
    }
}
