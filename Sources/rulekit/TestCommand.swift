import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitSources
import RuleKitTooling
import RuleKitYAML

/// `rulekit test`: runs rule test files (`*.test.yaml`) and reports like a test runner.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run rule test files (*.test.yaml beside the rules) and report each case.",
        discussion: """
            A test file names its rules (default: the rules file of the same name, else every rules file in its \
            folder), optional shared and XDM states and event history, and cases: events to process, and what to \
            expect. An event's `expect` checks that event: the rules it fired, its data after the rules, the \
            events it caused. A case's `expect` checks the case: every rule fired by any of its events (once \
            each, in firing order), the last event's data, and every event the rules dispatched. Unknown keys \
            are errors (`rulekit schema --tests` prints the format's JSON Schema), so a misspelled key never \
            makes a case pass by testing nothing. `history` lists earlier events (`data`, `ageSeconds`) recorded before a case (or every \
            case, at the top level); a case event with a `mask` is recorded after the rules see it, as the hub does.

                rules: commerce.yaml
                states:
                  com.adobe.module.configuration: {global.privacy: optedin}
                cases:
                  - name: big orders get gold
                    events:
                      - type: com.adobe.eventType.edge
                        source: com.adobe.eventSource.requestContent
                        data:
                          xdm: {eventType: commerce.purchases,
                                commerce: {order: {priceTotal: 900.0}}}
                    history:
                      - {data: {lifecycle.launch: Shop}, ageSeconds: 3600}
                    expect:
                      fired: [big-order]
                      dataContains: {data: {customerTier: gold}}

            One line per case, then "N passed, N failed"; exit 1 on any failure.

            Example:
              rulekit test Rules/
            """
    )

    @Argument(help: "Test files or folders, or zips or https URLs holding rules and their tests (default Rules/; '-' for standard input).")
    var paths: [String] = []

    @OptionGroup var fetch: FetchOptions

    func run() throws {
        var files: [String] = []
        var archives: [RuleArchive] = []
        let fetched = try fetch.fetch(paths)
        for p in paths.isEmpty ? ["Rules"] : paths {
            if RuleArchive.isArchive(p) || RemoteRules.isURL(p) {
                archives.append(try Self.archive(p, fetched: fetched.bodies[p]))
                continue
            }
            // Standard input: a test file whose rules paths are relative to the working folder.
            if p == "-" {
                files.append(p)
                continue
            }
            guard let found = RuleSources.testFiles(p) else {
                Stderr.write("error: no such test file or folder '\(p)'\n")
                throw ExitCode(2)
            }
            if found.isEmpty {
                Stderr.write("error: no rule test files (*.test.yaml, *.test.yml, *.test.json) in '\(p)'\n")
                throw ExitCode(2)
            }
            // A file named on its own must be a test file: rules given here by mistake would "pass" nothing.
            if found == [p], !RuleSources.isTestFile(PathText.lastComponent(of: p)) {
                Stderr.write("error: '\(p)' is not a rule test file (they are named *.test.yaml, beside the rules they test)\n")
                throw ExitCode(2)
            }
            files += found
        }
        var passed = 0
        var failed = 0
        var out = StdoutBuffer()
        for archive in archives { Self.run(archive, &out, &passed, &failed) }
        for f in files {
            let (file, found) = RuleTestFile.load(path: f)
            guard let file else {
                failed += 1
                var r = DiagnosticRenderer()
                if let text = try? ByteInput.readAll(f) { r.addSource(String(decoding: text, as: UTF8.self), for: f) }
                out.write("FAIL \(f): the test file has errors\n" + r.render(found.filter { $0.severity == .error }) + "\n")
                continue
            }
            let rules = RuleSnapshot.load(file.rulesPaths())
            if rules.hasErrors {
                failed += 1
                out.write("FAIL \(f): the rules do not load:\n" + rules.render(rules.errors) + "\n")
                continue
            }
            for result in RuleTestRunner.run(file, rules) {
                if result.passed { passed += 1 } else { failed += 1 }
                out.write(result.transcript(file: f))
            }
        }
        out.write("\(passed) passed, \(failed) failed\n")
        if passed + failed == 0, !archives.isEmpty {
            out.flush()
            Stderr.write(
                "error: no rule test files (*.test.yaml, *.test.yml, *.test.json) in \(archives.map(\.name).joined(separator: ", "))\n")
            throw ExitCode(2)
        }
        out.flush()
        if failed > 0 { throw ExitCode(1) }
    }
}
