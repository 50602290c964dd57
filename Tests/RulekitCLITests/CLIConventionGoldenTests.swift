import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// Every convention fix of issue 19 pinned end to end: stdout, stderr and exit code of the built tool,
/// each in `Golden/conv-<name>.txt` (`RULEKIT_UPDATE_GOLDEN=1` rewrites them). One rule for the whole
/// tool: 0 success, 1 findings, 2 bad usage or unreadable input, and the same message for the same
/// mistake in every command.
@Suite struct CLIConventionGoldenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var args: [String]
        var stdin: String? = nil
        /// Run in a fresh temporary folder (relative paths in the transcript) instead of the repository.
        var scratch: Bool = false
        var testDescription: String { name }
    }

    static let fixtures = "Tests/RulekitCLITests/Fixtures"

    static let cases: [Case] = [
        // Version and a bare call.
        Case(name: "version", args: ["--version"]),
        Case(name: "bare", args: []),
        // A rule that can never run is an error (exit 1), with where and why.
        Case(name: "lint-eqq-only", args: ["lint", "\(fixtures)/eqq-only.json"]),
        // A YAML rule is told about `when`, its own word, not Launch's `condition`.
        Case(name: "lint-no-when", args: ["lint", "\(fixtures)/no-when.yaml"]),
        Case(name: "lint-empty-file", args: ["lint", "\(fixtures)/empty.yaml"]),
        Case(name: "lint-stdin-broken", args: ["lint", "-"], stdin: "rules: [\n"),
        // A folder converts whole; one with no rules files is a usage error with a message.
        Case(name: "convert-folder", args: ["convert", "\(fixtures)/two-files", "--to", "yaml"]),
        Case(name: "convert-no-rules", args: ["convert", "\(fixtures)/no-rules", "--to", "yaml"]),
        // A rules path that is not there: exit 2 and one message, in every command.
        Case(name: "missing-rules-run", args: ["run", "--rules", "NoSuchRules"]),
        Case(name: "missing-rules-match", args: ["match", "--rules", "NoSuchRules"]),
        Case(name: "missing-rules-lint", args: ["lint", "NoSuchRules"]),
        Case(name: "missing-rules-explain", args: ["explain", "--rules", "NoSuchRules", "--event", "Examples/purchase-event.json"]),
        Case(name: "missing-rules-convert", args: ["convert", "NoSuchRules", "--to", "yaml"]),
        Case(name: "missing-rules-report", args: ["report", "--rules", "NoSuchRules", "--out", "unused.html"]),
        // A schema folder that is not there is a usage error, not "no schema with $id".
        Case(name: "missing-schemas-lint", args: ["lint", "--schemas", "NoSuchFolder"]),
        Case(name: "missing-schemas-run", args: ["run", "--schemas", "NoSuchFolder"]),
        Case(
            name: "missing-schemas-xdm-paths",
            args: ["xdm", "paths", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "--schemas", "NoSuchFolder"]),
        // A data folder that cannot be one.
        Case(name: "unusable-data-dir", args: ["run", "--data-dir", "Examples/events.jsonl/sub"]),
        // Typed options say what they take.
        Case(name: "bad-xdm-policy", args: ["run", "--xdm-policy", "lenient"]),
        // Rule tests: a rules file, an empty test file, a missing one.
        Case(name: "test-rules-file", args: ["test", "Rules/commerce.yaml"]),
        Case(name: "test-empty-file", args: ["test", "\(fixtures)/empty.test.yaml"]),
        Case(name: "test-missing", args: ["test", "NoSuchTests"]),
        // Help: only the options a command takes, each default once, examples that exist.
        Case(name: "xdm-paths-help", args: ["xdm", "paths", "--help"]),
        Case(name: "run-help", args: ["run", "--help"]),
        Case(name: "shared-help", args: ["shared", "--help"]),
        // Shared containers: no member is silently replaced, no folder is created by a read.
        Case(name: "shared-increment-double", args: ["shared", "increment", "data", "c", "--key", "double"], scratch: true),
        Case(name: "shared-increment-string", args: ["shared", "increment", "data", "c", "--key", "string"], scratch: true),
        Case(name: "shared-increment-array", args: ["shared", "increment", "data", "c", "--key", "array"], scratch: true),
        Case(name: "shared-increment-times", args: ["shared", "increment", "data", "c", "--times", "0"], scratch: true),
        Case(name: "shared-get-mistyped", args: ["shared", "get", "dta", "c"], scratch: true),
        Case(name: "shared-list-mistyped", args: ["shared", "list", "dta"], scratch: true),
    ]

    @Test(arguments: cases)
    func transcriptMatchesGolden(_ c: Case) throws {
        var directory: URL?
        if c.scratch {
            let dir = Scratch.url("rk-conv-\(UUID())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let seeded = try CLIRunner.run(
                ["shared", "set", "data", "c", #"{"count":1,"double":1.5,"string":"x","array":[1]}"#], in: dir)
            #expect(seeded.status == 0, "\(seeded.stderr)")
            directory = dir
        }
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        let out = try CLIRunner.run(c.args, stdin: c.stdin, in: directory)
        if let diff = CLIRunner.compare(out, golden: "conv-" + c.name) { Issue.record("\(diff)") }
        #expect([0, 1, 2].contains(out.status), "a user mistake must be an exit code, never a signal")
        if let directory {
            // A refused increment leaves the collection as it was; a mistyped container is not created.
            let after = try CLIRunner.run(["shared", "get", "data", "c"], in: directory)
            #expect(after.stdout.contains(#""double":1.5"#) && after.stdout.contains(#""count":1"#), "\(after.stdout)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("dta").path))
        }
    }
}
