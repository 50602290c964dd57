import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// The tool's conventions a new user trips over (issue 19): one exit-code rule (0 success, 1 findings,
/// 2 bad usage or unreadable input), a version, folders where files are expected.
@Suite struct CLIConventionTests {
    @Test func versionIsPrintedAndABareCallIsUsageError() throws {
        let v = try CLIRunner.run(["--version"])
        #expect(v.status == 0)
        #expect(v.stdout == RuleKitVersion.current + "\n")
        let bare = try CLIRunner.run([])
        #expect(bare.status == 2)
        #expect(bare.stdout.isEmpty)
        #expect(bare.stderr.contains("USAGE: rulekit <subcommand>"))
    }

    @Test func xdmPathsOffersOnlyWhatItTakes() throws {
        let help = try CLIRunner.run(["xdm", "paths", "--help"])
        #expect(!help.stdout.contains("--schema <"))
        let noClass = try CLIRunner.run(["xdm", "paths"])
        #expect(noClass.status == 2)
    }

    @Test(arguments: [
        ["xdm", "paths", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "--schemas", "NoSuchFolder"],
        ["lint", "--schemas", "NoSuchFolder"],
        ["run", "--schemas", "NoSuchFolder"],
    ])
    func aSchemaFolderThatIsNotThereIsUsageError(_ args: [String]) throws {
        let out = try CLIRunner.run(args)
        #expect(out.status == 2, "\(out.stderr)")
        #expect(out.stderr.contains("no schema folder 'NoSuchFolder'"))
    }

    @Test func outsideTheRepositoryLintSaysWhatItSkips() throws {
        let dir = Scratch.url("rk-outside-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = SharedCorpus.repositoryRoot.appendingPathComponent("Rules").path
        let out = try CLIRunner.run(["lint", rules], in: dir)
        #expect(out.stderr.contains("note: no Schemas/ folder here: XDM key and type checks are skipped"))
    }

    @Test func anUnusableDataDirIsUsageError() throws {
        let file = Scratch.url("rk-file-\(UUID())").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let out = try CLIRunner.run(["run", "--data-dir", file + "/sub"])
        #expect(out.status == 2, "\(out.stderr)")
    }

    @Test func aTypedOptionRefusesOtherValues() throws {
        let out = try CLIRunner.run(["run", "--xdm-policy", "lenient"])
        #expect(out.status == 2)
        #expect(out.stderr.contains("'warn' and 'enforce'"))
    }

    @Test func convertTakesAFolderWhole() throws {
        let out = try CLIRunner.run(["convert", "Rules", "--to", "launch-json"])
        #expect(out.status == 0, "\(out.stderr)")
        let rules = try JSONReader.value(out.stdout)["rules"]?.arrayValue ?? []
        var each = 0
        for f in ["Rules/commerce.yaml", "Rules/lifecycle.yaml"] {
            let one = try CLIRunner.run(["convert", f, "--to", "launch-json"])
            each += try JSONReader.value(one.stdout)["rules"]?.arrayValue?.count ?? 0
        }
        #expect(rules.count == each)
        let empty = Scratch.url("rk-empty-\(UUID())").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let none = try CLIRunner.run(["convert", empty, "--to", "yaml"])
        #expect(none.status == 2)
        #expect(none.stderr == "error: no rules files (*.yaml, *.yml, *.json) in '\(empty)'\n")
    }
}

/// `-` is standard input for rules as for events (issue 19).
@Suite struct StandardInputRulesTests {
    @Test func lintConvertAndRunReadRulesFromStandardInput() throws {
        let yaml = try String(contentsOf: SharedCorpus.repositoryRoot.appendingPathComponent("Rules/commerce.yaml"), encoding: .utf8)
        let lint = try CLIRunner.run(["lint", "-"], stdin: yaml)
        #expect(lint.status == 0, "\(lint.stderr)")
        #expect(lint.stdout.hasSuffix("in 1 rules file\n"))
        let json = try CLIRunner.run(["convert", "-", "--to", "launch-json"], stdin: yaml)
        #expect(json.status == 0)
        let back = try CLIRunner.run(["convert", "-", "--to", "yaml"], stdin: json.stdout)
        #expect(back.status == 0)
        #expect(back.stdout.hasPrefix("# converted by rulekit from <stdin>\n"))
        let run = try CLIRunner.run(["run", "--rules", "-", "Examples/events.jsonl"], stdin: yaml)
        #expect(run.status == 0)
        #expect(run.stdout.contains("\"customerTier\":\"gold\""))
        // A test file from standard input names its rules relative to the working folder (`-` used to
        // crash Foundation's path code).
        let tests = try String(contentsOf: SharedCorpus.repositoryRoot.appendingPathComponent("Rules/commerce.test.yaml"), encoding: .utf8)
        let test = try CLIRunner.run(
            ["test", "-"], stdin: tests.replacingOccurrences(of: "rules: commerce.yaml", with: "rules: Rules/commerce.yaml"))
        #expect(test.status == 0, "\(test.stdout)")
        #expect(test.stdout.hasSuffix("4 passed, 0 failed\n"))
        let broken = try CLIRunner.run(["lint", "-"], stdin: "rules: [\n")
        #expect(broken.status == 1)
        #expect(broken.stdout.hasPrefix("<stdin>:2:1: error"))
    }
}

/// Found by fuzz-rules: YAML can hold `.inf` or `1e666`, Launch JSON cannot; converting such a set wrote
/// `null` silently. It is refused, with where.
@Suite struct ConvertUnwritableNumberTests {
    @Test func anInfiniteValueIsRefusedNotWrittenAsNull() throws {
        let yaml = "rules:\n  - {id: a, when: {key: x, eq: 1e666}, then: []}\n  - {id: b, when: {key: y, lt: .inf}, then: []}\n"
        let out = try CLIRunner.run(["convert", "-", "--to", "launch-json"], stdin: yaml)
        #expect(out.status == 1)
        #expect(out.stdout.isEmpty)
        #expect(out.stderr.contains("/rules/0/condition/definition/values/0"))
        #expect(out.stderr.contains("/rules/1/condition/definition/values/0"))
        #expect(try CLIRunner.run(["convert", "-", "--to", "yaml"], stdin: yaml).stdout.contains(".inf"))
    }
}
