import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitRules

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
              rulekit convert rules.json --to yaml
            """
    )

    enum Target: String, ExpressibleByArgument, CaseIterable {
        case yaml, launchJSON = "launch-json"
    }

    @Argument(help: "The rules file (YAML or JSON, either format).")
    var file: String

    @Option(name: .long, help: "yaml or launch-json.")
    var to: Target

    func run() throws {
        var sources = RuleSources()
        do { try sources.load([file]) } catch .unreadable(let m) {
            Stderr.write("error: \(m)\n")
            throw ExitCode(2)
        } catch {
            throw ExitCode(2)
        }
        let errors = sources.diagnostics.filter { $0.severity == .error }
        if !errors.isEmpty || sources.sets.isEmpty {
            Stderr.write(sources.render(errors.isEmpty ? sources.diagnostics : errors) + "\n")
            throw ExitCode(1)
        }
        let set = sources.sets[0].set
        switch to {
        case .yaml:
            print(RuleKitFormatWriter.yaml(set, header: "converted by rulekit from \(file)"), terminator: "")
        case .launchJSON:
            if set.rules.contains(where: { !$0.enabled }) {
                Stderr.write("note: disabled rules are left out of Launch JSON\n")
            }
            print(LaunchRulesWriter.text(set))
        }
    }
}

/// `rulekit schema`: the JSON Schema of the YAML rules format.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of RuleKit's YAML rules format (for editor autocompletion).",
        discussion: """
            Example:
              rulekit schema > .vscode/rulekit-rules.schema.json
            """
    )

    func run() throws {
        print(RulesFormatSchema.json)
    }
}
