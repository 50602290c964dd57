import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitSources
import RuleKitTooling

/// `rulekit report`: one self-contained HTML page for rule authors and reviewers.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write an HTML report: lint findings, rule tests, and what the rules do on recorded events.",
        discussion: """
            The page is self-contained (styles and script inline; it works opened from disk). With --events, \
            it shows per-rule match counts, rules that never matched, consequences by type, XDM findings, and \
            for each rule a matched event and its closest miss, traced matcher by matcher. With --baseline \
            (the rules before a change), it shows rules added and removed and the events whose matches or \
            resulting data the change alters. Rule tests are the *.test.yaml files beside the rules.

            Exits 1 when the rules have lint errors, a rule test fails, or a line of --events is not an \
            event (each is named on standard error as well as in the page); 2 on bad usage or unreadable \
            input.

            Example:
              rulekit report --events Examples/events.jsonl \\
                --state com.adobe.module.configuration=Examples/state.json --out report.html
            """
    )

    @Option(name: .long, help: "Rules file, folder, zip or https URL (repeatable; default Rules/).")
    var rules: [String] = []

    @Option(help: "The folder of XDM schemas (default: Schemas).")
    var schemas: String?

    @Option(help: "Recorded events (JSON lines; '-' for standard input).")
    var events: String?

    @OptionGroup var stateOptions: StateArguments

    @OptionGroup var fetch: FetchOptions

    @Option(help: "The rules before the change (file or folder), to compare against on the same events.")
    var baseline: String?

    @Option(help: "Example events (JSON lines) whose keys count as known to lint (default Examples/events.jsonl, if present).")
    var examples: String?

    @Option(help: "Where to write the HTML ('-' for standard output).")
    var out: String

    func run() throws {
        let (states, xdm) = try stateOptions.load()
        let paths = rules.isEmpty ? ["Rules"] : rules
        let files = try RuleSnapshot.loadOrExit(paths, fetch: fetch)
        var builder = RuleReportBuilder(rules: files, linter: try Linter.configured(schemas: schemas, examples: examples))
        builder.testFiles = paths.flatMap(RuleSources.testFiles(besides:))
        builder.events = events
        builder.states = states
        builder.xdmStates = xdm
        if let baseline {
            let before = try RuleSnapshot.loadOrExit([baseline], fetch: fetch)
            if before.hasErrors {
                Stderr.write(
                    "error: the baseline rules do not load:\n" + before.render(before.diagnostics.filter { $0.severity == .error }) + "\n")
                throw ExitCode(1)
            }
            builder.baseline = before
        }
        let report: RuleReport
        do { report = try builder.build() } catch {
            Stderr.write("error: \(error.diagnostics.first?.message ?? "\(error)")\n")
            throw ExitCode(2)
        }
        let html = RuleReportHTML.render(report)
        try OutputFile.write(Array(html.utf8), to: out)
        // As `lint` and `test` do, the page is no excuse for a failure: every one is named on standard error
        // too, and exits 1.
        let errors = report.findings.filter { $0.severity == .error }
        if !errors.isEmpty { Stderr.write(files.render(errors) + "\n") }
        var failedTests = 0
        for t in report.tests {
            if let e = t.error {
                failedTests += 1
                Stderr.write("FAIL \(t.file): \(e)\n")
            }
            for c in t.results where !c.passed {
                failedTests += 1
                Stderr.write(c.transcript(file: t.file))
            }
        }
        let eventsName = report.eventsFile.map(InputFiles.displayName) ?? ""
        for (line, message) in report.badEventLines { Stderr.write("\(eventsName):\(line): error: \(message)\n") }
        if report.badEvents > report.badEventLines.count {
            Stderr.write("error: \(eventsName): \(report.badEvents - report.badEventLines.count) more unreadable lines\n")
        }
        Stderr.write(
            "wrote \(out): \(report.rules.count) rules, \(errors.count) lint errors, \(failedTests) failed tests\(report.eventsFile != nil ? ", \(report.eventCount) events, \(report.badEvents) unreadable lines" : "")\n"
        )
        if !errors.isEmpty || failedTests > 0 || report.badEvents > 0 { throw ExitCode(1) }
    }
}
