import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitSources
import RuleKitTooling

/// `rulekit convert`: Launch JSON ⇄ RuleKit YAML, without loss.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert rules between RuleKit YAML and Adobe Launch rules.json.",
        discussion: """
            Converting Launch JSON to YAML and back gives the same rules. Converting YAML to Launch JSON \
            inlines data elements and leaves out disabled rules, so the output loads in the Launch SDK.

            Example:
              rulekit convert Rules/commerce.yaml --to launch-json > rules.json
              rulekit convert Rules/lifecycle.yaml --to launch-json
            """
    )

    enum Target: String, ExpressibleByArgument, CaseIterable {
        case yaml
        case launchJSON = "launch-json"
    }

    @Argument(
        help: "The rules file, folder, zip or https URL (YAML or JSON, either format); a folder's files become one set.")
    var file: String

    @Option(name: .long, help: "yaml or launch-json.")
    var to: Target

    @OptionGroup var check: CheckOptions

    @OptionGroup var fetch: FetchOptions

    func run() throws {
        // The rules converted are checked as a command that runs them checks them: a rule the Check refuses
        // would be written into a file that then runs differently from what its author meant.
        let (set, names) = try Self.checkedSet(file, check, fetch)
        switch to {
        case .yaml:
            Stdout.print(
                RuleKitFormatWriter.yaml(
                    set,
                    header: "converted by rulekit from \(names.map(InputFiles.displayName).joined(separator: ", "))"
                ), terminator: "")
        case .launchJSON: Stdout.print(try Self.launchJSON(set))
        }
    }

    /// The Launch `rules.json` text of `set`, or exit 1 for a number JSON cannot hold.
    static func launchJSON(_ set: RuleSet) throws -> String {
        let unwritable = LaunchRulesWriter.unwritableNumbers(set)
        if !unwritable.isEmpty {
            Stderr.write(
                "error: JSON has no NaN or infinity, and the rules hold one at \(unwritable.prefix(5).joined(separator: ", ")) (write a finite number)\n"
            )
            throw ExitCode(1)
        }
        if set.rules.contains(where: { !$0.enabled }) {
            Stderr.write("note: disabled rules are left out of Launch JSON\n")
        }
        return LaunchRulesWriter.text(set)
    }

    /// The rules of `source`, loaded, checked as a command that runs them checks them, and merged into one
    /// set (with the files it came from); exit 2 for nothing to read, 1 for errors.
    static func checkedSet(_ source: String, _ check: CheckOptions, _ fetch: FetchOptions) throws -> (RuleSet, [String]) {
        let snapshot = try RuleSnapshot.loadOrExit([source], fetch: fetch)
        let sources = snapshot.files
        if sources.fileCount == 0 {
            Stderr.write("error: no rules files (*.yaml, *.yml, *.json) in '\(source)'\n")
            throw ExitCode(2)
        }
        let errors = sources.diagnostics.filter { $0.severity == .error }
        if !errors.isEmpty || sources.sets.isEmpty {
            Stderr.write(sources.render(errors.isEmpty ? sources.diagnostics : errors) + "\n")
            throw ExitCode(1)
        }
        try snapshot.admit(check)
        switch merged(sources.sets) {
        case .success(let s): return (s, sources.sets.map(\.path))
        case .failure(let e):
            Stderr.write("error: \(e.message)\n")
            throw ExitCode(1)
        }
    }
}

extension ConvertCommand {
    struct MergeError: Error {
        var message: String
    }

    /// The rules of several files as one set, in file order; a data element two files define
    /// differently cannot be merged.
    static func merged(_ sets: [(path: String, set: RuleSet)]) -> Result<RuleSet, MergeError> {
        guard var out = sets.first?.set else { return .success(RuleSet()) }
        var elements = Dictionary(out.dataElements.map { ($0.name, ($0, sets[0].path)) }, uniquingKeysWith: { a, _ in a })
        for (path, set) in sets.dropFirst() {
            out.rules += set.rules
            for e in set.dataElements {
                if let (known, where_) = elements[e.name] {
                    if known.path != e.path || known.type != e.type {
                        return .failure(
                            MergeError(
                                message:
                                    "data element '\(e.name)' is '\(known.path)' in \(where_) but '\(e.path)' in \(path)"))
                    }
                    continue
                }
                elements[e.name] = (e, path)
                out.dataElements.append(e)
            }
        }
        return .success(out)
    }
}

/// `rulekit schema`: the JSON Schema of the YAML rules format.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of RuleKit's YAML rules format, or of rule test files (for editors).",
        discussion: """
            Example:
              mkdir -p .vscode && rulekit schema > .vscode/rulekit-rules.schema.json
              rulekit schema --tests > .vscode/rulekit-tests.schema.json
            """
    )

    @Flag(help: "The schema of rule test files (*.test.yaml) instead of rules files.")
    var tests = false

    func run() throws {
        Stdout.print(tests ? RuleTestSchema.json : RulesFormatSchema.json)
    }
}
