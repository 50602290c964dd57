import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules

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

    @Argument(help: "Events as JSON lines ('-' for standard input).")
    var events: String = "Examples/events.jsonl"

    /// Events matched per call of the batch API.
    static let blockSize = 4096

    func run() throws {
        let (states, xdm) = try stateOptions.load()
        let reader = try openEvents(events)
        var files = RuleFiles()
        files.load(rules.isEmpty ? ["Rules"] : rules)
        if files.hasErrors {
            Stderr.write(files.render(files.diagnostics.filter { $0.severity == .error }) + "\n")
            throw files.exitCode
        }
        let (compiled, _) = files.compiled()
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdm)

        var counts = [Int](repeating: 0, count: compiled.rules.count)
        var eventCount = 0
        var eventsMatched = 0
        var bad = 0
        var block: [Event] = []
        var lines: [Int] = []
        var resolver: Resolver?
        var out = ""
        func flush() {
            guard !block.isEmpty else { return }
            if resolver == nil { resolver = Resolver(event: block[0], runtime: runtime, slotCount: compiled.slotCount) }
            var matched = [[Int]](repeating: [], count: block.count)
            Evaluator.forEachMatch(compiled, events: block, &resolver!) { e, rule in matched[e].append(rule) }
            for (e, ruleIndexes) in matched.enumerated() where !ruleIndexes.isEmpty {
                eventsMatched += 1
                for i in ruleIndexes { counts[i] += 1 }
                if each {
                    let ids = ruleIndexes.map { Value.string(compiled.rules[$0].label) }
                    out += JSONWriter.string(["line": .int(Int64(lines[e])), "rules": .array(ids)]) + "\n"
                }
            }
            if out.utf8.count > 1 << 16 {
                print(out, terminator: "")
                out = ""
            }
            block.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
            // On a terminal, a running count (a long stream is otherwise silent for seconds).
            if progress { Stderr.write("\r\(eventCount) events, \(eventsMatched) with a match") }
        }
        let progress = isatty(STDERR_FILENO) == 1
        var line = 0
        var records = reader.makeIterator()
        while let record = records.next() {
            line = records.lineNumber
            switch record {
            case .success(let v):
                guard case .object(let o) = v else {
                    Stderr.write("\(events == "-" ? "<stdin>" : events):\(line): error: an event must be an object\n")
                    bad += 1
                    continue
                }
                block.append(
                    Event(
                        name: o["name"]?.stringValue ?? "event", type: o["type"]?.stringValue ?? "",
                        source: o["source"]?.stringValue ?? "", data: o["data"]?.objectValue))
                lines.append(line)
                eventCount += 1
                if block.count == Self.blockSize { flush() }
            case .failure(let e):
                Stderr.write(DiagnosticRenderer().render(e.diagnostics) + "\n")
                bad += 1
            }
        }
        flush()
        if progress { Stderr.write("\r\u{1B}[K") }
        print(out, terminator: "")
        if !each {
            let width = max(4, compiled.rules.map(\.label.count).max() ?? 0)
            print("rule".padding(toLength: width, withPad: " ", startingAt: 0) + "  matched")
            for (i, rule) in compiled.rules.enumerated() {
                let n = String(counts[i])
                print(
                    rule.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + String(repeating: " ", count: max(0, 7 - n.count)) + n)
            }
            print("\(eventCount) events, \(eventsMatched) with a match, \(counts.reduce(0, +)) matches")
        }
        if bad > 0 { throw ExitCode(1) }
    }
}
