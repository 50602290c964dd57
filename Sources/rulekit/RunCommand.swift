import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitRules
import RuleKitShared
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
            next block, so the output is the same on every run. \
            With no arguments it runs Examples/events.jsonl against Rules/.

            Example:
              rulekit run --state com.adobe.module.configuration=Examples/state.json \\
                Examples/events.jsonl
            """
    )

    @Option(name: .long, help: "Rules file or folder (repeatable; default Rules/).")
    var rules: [String] = []

    @OptionGroup var stateOptions: StateArguments

    @Option(name: .customLong("data-dir"), help: "Keep event history in DIR/history.sqlite (default: in memory).")
    var dataDir: String?

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

    static let endType = "com.rulekit.eventType.run"
    /// Input events dispatched per block (see `run()`).
    static let blockSize = 1024

    func run() throws {
        let (states, xdm) = try stateOptions.load()
        let reader = try openEvents(events)
        let sources = rules.isEmpty ? ["Rules"] : rules
        var container: SharedContainer?
        if let shared {
            do { container = try SharedContainer(directory: URL(fileURLWithPath: shared)) } catch {
                Stderr.write("error: \(error)\n")
                throw ExitCode(2)
            }
        }
        var files = RuleFiles()
        files.load(sources)
        if files.hasErrors {
            Stderr.write(files.render(files.diagnostics.filter { $0.severity == .error }) + "\n")
            // With kept rules the run goes on: the rules extension falls back on them (and says so).
            guard let container, (try? container.read(RulesExtension.lastGoodCollection)) != nil else { throw files.exitCode }
            Stderr.write("warning: running the last good rules kept in \(container.directory.path)\n")
        }

        var options = EventHub.Options()
        if let dataDir {
            switch SQLiteEventHistory.open(directory: dataDir) {
            case .success(let store): options.history = store
            case .failure(let e):
                // A folder the user named and that cannot hold history is a usage error: a run that
                // silently forgot history would answer historical conditions differently.
                Stderr.write(DiagnosticRenderer().render(e.diagnostics) + "\n")
                throw ExitCode(2)
            }
        }
        let hub = EventHub(options: options)
        let output = RunOutput(allEvents: allEvents)
        hub.registerEventListener(type: EventType.wildcard, source: EventSource.wildcard) { e in output.deliver(e) }
        let policy = xdmPolicy
        var alignment: XDMAlignment?
        if let schemas = try SchemaFolder.resolve(schemas, skipping: "XDM alignment of rule-attached XDM is") {
            do {
                let registry = try XDMRegistry(folder: URL(fileURLWithPath: schemas))
                if let cls = registry.documents.keys.sorted().first(where: { $0.hasSuffix("/experienceevent") }) {
                    alignment = try XDMAlignment(registry: registry, classID: cls, policy: policy)
                }
            } catch {
                Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
                throw ExitCode(2)
            }
        }
        var factories: [EventHub.ExtensionFactory] = [
            RulesExtension.factory(.init(sources: sources, xdm: alignment, container: container, preloaded: files))
        ]
        if let container { factories.append(SharedDataExtension.factory(container)) }
        for name in Set(states.keys).union(xdm.keys).sorted() {
            factories.append(StatePublisherExtension.factory(name: name, state: states[name], xdm: xdm[name]))
        }
        let booted = DispatchSemaphore(value: 0)
        let failure = Locked<HubError?>(nil)
        hub.registerExtensions(factories: factories) { r in
            if case .failure(let e) = r { failure.withLock { $0 = e } }
            booted.signal()
        }
        booted.wait()
        if let e = failure.withLock({ $0 }) {
            Stderr.write("error: \(e)\n")
            throw ExitCode(2)
        }
        let progress = isatty(STDERR_FILENO) == 1
        var count = 0
        var bad = 0
        // Input events go to the hub in blocks, each dispatched at once and followed by everything it causes
        // before the next block: the output is then the same on every run, however the threads are timed
        // (an event dispatched one by one could land before or after a consequence of the previous ones).
        var round = 0
        var block: [Event] = []
        // Consequences are dispatched while events are processed: wait until a round of end markers passes
        // with nothing new delivered before it.
        func settle() {
            while true {
                let before = output.delivered
                hub.dispatch(Event(name: "end \(round)", type: Self.endType, source: "end", data: nil))
                output.waitForEnd(round)
                round += 1
                if output.delivered == before { break }
            }
        }
        // A block is sent once the previous one has settled; the next one is read meanwhile.
        var inFlight = false
        func send() {
            guard !block.isEmpty else { return }
            if inFlight { settle() }
            output.expect(block)
            hub.dispatch(contentsOf: block)
            block.removeAll(keepingCapacity: true)
            inFlight = true
        }
        for record in reader {
            switch record {
            case .success(let v):
                guard case .object(let o) = v else {
                    bad += 1
                    continue
                }
                block.append(
                    Event(
                        name: o["name"]?.stringValue ?? "event", type: o["type"]?.stringValue ?? "",
                        source: o["source"]?.stringValue ?? "", data: o["data"]?.objectValue))
                count += 1
                if block.count == Self.blockSize { send() }
                if progress && count % 10_000 == 0 { Stderr.write("\r\(count) events") }
            case .failure(let e):
                Stderr.write(DiagnosticRenderer().render(e.diagnostics) + "\n")
                bad += 1
            }
        }
        send()
        settle()
        output.flush()
        if progress { Stderr.write("\r\(count) events in, \(output.delivered) delivered\n") }
        if bad > 0 { throw ExitCode(1) }
    }
}

/// Writes delivered events as JSON lines, in hub order (the host listener runs on one serial queue).
///
/// Unless `allEvents`, only the events the input produced are written: the input events and those whose
/// parent is one of them, transitively (consequence events carry their trigger as parent).
final class RunOutput: Sendable {
    private struct State {
        var buffer = ""
        var delivered = 0
        var ends: Set<Int> = []
        /// Events of the block in flight and their descendants so far (cleared when a block is sent:
        /// the previous one has settled, so nothing more descends from it).
        var produced: Set<UUID> = []
    }

    private let state = Locked(State())
    private let signal = DispatchSemaphore(value: 0)
    let allEvents: Bool

    init(allEvents: Bool) {
        self.allEvents = allEvents
    }

    var delivered: Int { state.withLock { $0.delivered } }

    /// The input events about to be dispatched.
    func expect(_ events: [Event]) {
        state.withLock { s in
            s.produced.removeAll(keepingCapacity: true)
            for e in events { s.produced.insert(e.id) }
        }
    }

    func deliver(_ e: Event) {
        if e.type == RunCommand.endType {
            let n = Int(e.name.split(separator: " ").last ?? "") ?? -1
            state.withLock { _ = $0.ends.insert(n) }
            signal.signal()
            return
        }
        // Every delivery counts (the run settles when a round delivers nothing), written or not.
        let keep = state.withLock { s -> Bool in
            s.delivered += 1
            if allEvents || s.produced.contains(e.id) { return true }
            guard let p = e.parentID, s.produced.contains(p) else { return false }
            s.produced.insert(e.id)
            return true
        }
        if !keep { return }
        var o = ValueObject()
        o["id"] = .string(e.id.uuidString)
        o["name"] = .string(e.name)
        o["type"] = .string(e.type)
        o["source"] = .string(e.source)
        if let d = e.data { o["data"] = .object(d) }
        if let p = e.parentID { o["parentID"] = .string(p.uuidString) }
        if let r = e.responseID { o["responseID"] = .string(r.uuidString) }
        let line = JSONWriter.string(.object(o)) + "\n"
        let full = state.withLock { (s: inout State) -> String? in
            s.buffer += line
            guard s.buffer.utf8.count > 1 << 16 else { return nil }
            defer { s.buffer = "" }
            return s.buffer
        }
        if let full { FileHandle.standardOutput.write(Data(full.utf8)) }
    }

    func waitForEnd(_ n: Int) {
        while !state.withLock({ $0.ends.contains(n) }) { signal.wait() }
    }

    func flush() {
        let rest = state.withLock { (s: inout State) -> String in
            defer { s.buffer = "" }
            return s.buffer
        }
        if !rest.isEmpty { FileHandle.standardOutput.write(Data(rest.utf8)) }
    }
}
