import ArgumentParser
import RuleKitCore
import RuleKitRules
import RuleKitSources

/// `rulekit pack`: a Launch rules.zip from any rule source, as an operator publishes one.
struct PackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Make a Launch rules.zip (rules.json inside) from rules, to publish at a URL.",
        discussion: """
            The rules are checked as `run` checks them and converted as `convert --to launch-json` converts \
            them; the zip holds them as the entry rules.json, as Tags publishes a property's rules. The \
            archive is written whole or not at all.

            Example:
              rulekit pack Rules --out rules.zip
              rulekit run --rules rules.zip Examples/events.jsonl
            """
    )

    @Argument(help: "The rules file, folder, zip or https URL to pack.")
    var rules: String

    @Option(help: "The zip to write ('-' for standard output).")
    var out: String

    @OptionGroup var check: CheckOptions

    @OptionGroup var fetch: FetchOptions

    func run() throws {
        let (set, _) = try ConvertCommand.checkedSet(rules, check, fetch)
        let json = try ConvertCommand.launchJSON(set)
        let zip: [UInt8]
        do { zip = try RuleArchive.launchZip(rulesJSON: Array(json.utf8)) } catch {
            Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
            throw ExitCode(2)
        }
        try OutputFile.write(zip, to: out)
        Stderr.write("packed \(set.rules.count { $0.enabled }) rules into \(out) (\(zip.count) bytes)\n")
    }
}
