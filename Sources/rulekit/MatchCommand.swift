import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitSources

/// `rulekit match`: which rules a recorded stream of events matches, without running consequences.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Count the events each rule matches in a stream of recorded events (no consequences run).",
        discussion: """
            Reads events as JSON lines {"name","type","source","data"} and evaluates every rule against each \
            one, against the given shared states, as the engine would on a device (conditions only: no \
            consequence runs, so no event is dispatched and nothing is recorded in history). Prints, per \
            rule, how many events it matched, and a total. With --each, prints instead one JSON line per \
            event with a match: {"line","rules"}. Events are matched in blocks, the fast path for streams \
            (rule index keys of many events walked together). With no arguments it reads \
            Examples/events.jsonl against Rules/.

            Example:
              rulekit match --state com.adobe.module.configuration=Examples/state.json \\
                Examples/events.jsonl
            """
    )

    @Option(name: .long, help: "Rules file or folder (repeatable; default Rules/).")
    var rules: [String] = []

    @OptionGroup var stateOptions: StateArguments

    @Flag(help: "One JSON line per event with a match, instead of counts per rule.")
    var each = false

    @Option(
        parsing: .unconditional,
        help: "Threads that read, parse and match blocks of events (0: all on one thread; default: one per processor).")
    var threads: Int?

    @Argument(help: "Events as JSON lines ('-' for standard input).")
    var events: String = "Examples/events.jsonl"

    func validate() throws {
        if let threads, threads < 0 || threads > 64 { throw ValidationError("--threads must be between 0 and 64") }
    }

    /// Lines per block handed to a worker.
    static let blockSize = 4096
    /// Events matched per call of the batch API: read, then matched at once, while still in cache.
    static let groupSize = 16

    func run() throws {
        let (states, xdm) = try stateOptions.load()
        let reader = try openEvents(events)
        let files = RuleSnapshot.load(rules.isEmpty ? ["Rules"] : rules, keepsDocuments: true)
        if files.hasErrors {
            Stderr.write(files.render(files.errors) + "\n")
            throw files.exitCode
        }
        let compiled = files.compiled
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdm)

        var counts = [Int](repeating: 0, count: compiled.rules.count)
        var eventCount = 0
        var eventsMatched = 0
        var bad = 0
        var out = ""
        let progress = isatty(STDERR_FILENO) == 1
        let name = InputFiles.displayName(events)
        // Blocks are read, parsed and matched on worker threads (each with its own resolver); counts and
        // output are gathered here in input order.
        try JSONLinesPipeline.run(reader, blockSize: Self.blockSize, workers: threads ?? JSONLinesPipeline.defaultWorkers + 1) {
            var resolver: Resolver?
            return { block in
                var result = MatchedBlock()
                var batch: [Event] = []
                batch.reserveCapacity(Self.groupSize)
                // Event data read into tapes: the engine reads the keys it needs there, and no tree is made. A
                // few events at a time, matched as soon as they are read, while their tapes are in cache.
                block.records(tapeOf: "data", sharing: EventJSON.knownStrings, groupsOf: Self.groupSize) { records in
                    batch.removeAll(keepingCapacity: true)
                    for record in records {
                        switch record.value {
                        case .success(.object(let o)):
                            batch.append(EventJSON.event(o, document: record.tape))
                            result.lines.append(record.line)
                        case .success:
                            result.problems.append((record.line, "\(name):\(record.line): error: an event must be an object"))
                        case .failure(let e):
                            result.problems.append((record.line, DiagnosticRenderer().render(e.diagnostics)))
                        }
                    }
                    guard !batch.isEmpty else { return }
                    let first = result.matched.count
                    result.matched.append(contentsOf: repeatElement([], count: batch.count))
                    if resolver == nil { resolver = Resolver(event: batch[0], runtime: runtime, slotCount: compiled.slotCount) }
                    Evaluator.forEachMatch(compiled, events: batch, &resolver!) { e, rule in result.matched[first + e].append(rule) }
                }
                return result
            }
        } consume: { block in
            var problems = block.problems[...]
            for (e, ruleIndexes) in block.matched.enumerated() {
                // Problems are reported in line order among the events' output.
                while let p = problems.first, p.line < block.lines[e] {
                    Stderr.write(p.message + "\n")
                    bad += 1
                    problems = problems.dropFirst()
                }
                eventCount += 1
                guard !ruleIndexes.isEmpty else { continue }
                eventsMatched += 1
                for i in ruleIndexes { counts[i] += 1 }
                if each {
                    let ids = ruleIndexes.map { Value.string(compiled.rules[$0].label) }
                    out += JSONWriter.string(["line": .int(Int64(block.lines[e])), "rules": .array(ids)]) + "\n"
                }
            }
            for p in problems {
                Stderr.write(p.message + "\n")
                bad += 1
            }
            if out.utf8.count > 1 << 16 {
                Stdout.print(out, terminator: "")
                out = ""
            }
            // On a terminal, a running count (a long stream is otherwise silent for seconds).
            if progress { Stderr.write("\r\(eventCount) events, \(eventsMatched) with a match") }
            return nil
        }
        if progress { Stderr.write("\r\u{1B}[K") }
        Stdout.print(out, terminator: "")
        if !each {
            let labels = compiled.rules.map(\.label)
            let width = max(4, labels.map(\.count).max() ?? 0)
            func padded(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
            var table = padded("rule", width) + "  matched\n"
            for (i, label) in labels.enumerated() {
                let n = String(counts[i])
                table += padded(label, width) + "  " + String(repeating: " ", count: max(0, 7 - n.count)) + n + "\n"
            }
            table += "\(eventCount) events, \(eventsMatched) with a match, \(counts.reduce(0, +)) matches\n"
            Stdout.print(table, terminator: "")
        }
        // The rules are not freed: the process ends now, and frees them at once.
        KeptUntilExit.keep(compiled)
        KeptUntilExit.keep(files)
        if bad > 0 { throw ExitCode(1) }
    }
}

/// What a worker makes of one block of `rulekit match`'s input.
struct MatchedBlock: Sendable {
    /// The line of each event of the block.
    var lines: [Int] = []
    /// The indexes of the rules each event matched.
    var matched: [[Int]] = []
    /// Lines that were no event, with their messages.
    var problems: [(line: Int, message: String)] = []
}
