import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitSources
import RuleKitTooling
import RuleKitXDM

/// `rulekit lint`: every problem that can be known without running, with locations and stable codes.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check rules offline: syntax, structure, Launch traps, keys and types against Schemas/.",
        discussion: """
            Findings carry file:line:column, the rule id, a severity and a stable code. Exit 1 when there is an \
            error (with --strict, also a warning).

            Example:
              rulekit lint Rules/ --format sarif > rulekit.sarif
            """
    )

    enum Format: String, ExpressibleByArgument { case text, json, sarif }

    @Argument(help: "Rules files, folders, zip archives or https URLs (default Rules/).")
    var paths: [String] = []

    @OptionGroup var fetch: FetchOptions

    @Option(help: "text, json or sarif (SARIF 2.1.0).")
    var format: Format = .text

    @Option(help: "The folder of XDM schemas (default: Schemas).")
    var schemas: String?

    @Option(help: "Example events (JSON lines) whose keys count as known (default Examples/events.jsonl, if present).")
    var examples: String?

    @Flag(help: "Fail on warnings too.")
    var strict = false

    @Option(
        help: """
            The engines the rules are meant for: mobile (the reference RuleKit runs), web (the Web SDK's engine) \
            or both; web and both add a finding (target.*) for each condition the two engines answer differently.
            """)
    var target: RuleTarget = .mobile

    func run() throws {
        let linter = try Linter.configured(schemas: schemas, examples: examples)
        let sources = try RuleSnapshot.loadOrExit(RuleProject(rules: paths).rules, fetch: fetch, keepsDocuments: true, context: linter)
        KeptUntilExit.keep(sources)
        var all = Diagnostics(cap: 5000)
        all.append(contentsOf: target == .mobile ? sources.findings : linter.lint(sources, target: target))
        let findings = all.sorted
        switch format {
        case .text:
            if !findings.isEmpty { Stdout.print(sources.render(findings)) }
            let e = findings.count { $0.severity == .error }
            let w = findings.count { $0.severity == .warning }
            Stdout.print(
                "\(e) error\(e == 1 ? "" : "s"), \(w) warning\(w == 1 ? "" : "s") in \(sources.files.fileCount) rules file\(sources.files.fileCount == 1 ? "" : "s")"
            )
        case .json:
            Stdout.print(JSONWriter.string(.array(findings.map(FindingReport.json)), options: .pretty))
        case .sarif:
            Stdout.print(JSONWriter.string(FindingReport.sarif(findings), options: .pretty))
        }
        if findings.contains(where: { $0.severity == .error || (strict && $0.severity == .warning) }) { throw ExitCode(1) }
    }
}

extension Linter {
    /// The linter as the CLI sets it up: the ExperienceEvent class of the schema folder (with all its field
    /// groups) and the keys of the example events.
    /// The linter with the schema folder's ExperienceEvent and the example events' keys. A folder or file
    /// the user named must be readable, whole (exit 2 naming what is wrong); the defaults may be absent
    /// (outside the repository), and then the checks they enable are skipped with a note, never silently.
    static func configured(schemas: String?, examples: String?) throws -> Linter {
        var linter = Linter()
        if let folder = try SchemaFolder.resolve(schemas, skipping: "XDM key and type checks are") {
            do {
                if try !linter.useSchemas(folder: folder) {
                    Stderr.write("note: no ExperienceEvent class in '\(folder)': XDM key and type checks are skipped\n")
                }
            } catch {
                Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
                throw ExitCode(2)
            }
        }
        let path = examples ?? defaultExamples
        if examples == nil, !FileManager.default.fileExists(atPath: path) {
            Stderr.write("note: no \(defaultExamples) here: keys are checked without example events (give --examples)\n")
            return linter
        }
        do { try linter.addExampleKeys(from: path) } catch {
            Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
            throw ExitCode(2)
        }
        return linter
    }

    /// The example events read when `--examples` is not given.
    static let defaultExamples = RuleProject.defaultEvents
}
