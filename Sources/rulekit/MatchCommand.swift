import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitSources
import RuleKitTooling

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

    @Option(name: .long, help: "Rules file, folder, zip or https URL (repeatable; default Rules/).")
    var rules: [String] = []

    @OptionGroup var stateOptions: StateArguments

    @OptionGroup var check: CheckOptions

    @OptionGroup var fetch: FetchOptions

    @Flag(help: "One JSON line per event with a match, instead of counts per rule.")
    var each = false

    @Option(
        parsing: .unconditional,
        help: "Threads that read, parse and match blocks of events (0: all on one thread; default: one per processor).")
    var threads: Int?

    @Argument(help: "Events as JSON lines ('-' for standard input).")
    var events: String = RuleProject.defaultEvents

    func validate() throws {
        if let threads, threads < 0 || threads > 64 { throw ValidationError("--threads must be between 0 and 64") }
    }

    func run() throws {
        let (states, xdm) = try stateOptions.load()
        let reader = try openEvents(events)
        let files = try RuleSnapshot.loadChecked(RuleProject(rules: rules).rules, check: check, fetch: fetch, keepsDocuments: true)
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
        try MatchStream.run(
            reader, sets: [compiled], runtime: runtime, name: name, workers: threads ?? JSONLinesPipeline.defaultWorkers + 1
        ) { block in
            var problems = block.problems[...]
            for (e, ruleIndexes) in block.matched[0].enumerated() {
                // Problems are reported in line order among the events' output.
                while let p = problems.first, p.line < block.lines[e] {
                    Stderr.write(DiagnosticRenderer().render(p.diagnostic) + "\n")
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
                Stderr.write(DiagnosticRenderer().render(p.diagnostic) + "\n")
                bad += 1
            }
            if out.utf8.count > 1 << 16 {
                Stdout.print(out, terminator: "")
                out = ""
            }
            // On a terminal, a running count (a long stream is otherwise silent for seconds).
            if progress { Stderr.write("\r\(eventCount) events, \(eventsMatched) with a match") }
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
