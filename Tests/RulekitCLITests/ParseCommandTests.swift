import Foundation
import RuleKitTestSupport
import Testing

/// End-to-end: the built `rulekit parse`, with stdout, stderr and exit code pinned by golden files.
@Suite struct ParseCommandTests {
    static let fixtures = "Tests/RulekitCLITests/Fixtures"

    static let cases: [(golden: String, args: [String], stdin: String?)] = [
        ("parse-scalars", ["parse", "\(fixtures)/scalars.yaml"], nil),
        ("parse-compact-json", ["parse", "--compact", "\(fixtures)/event.json"], nil),
        ("parse-stdin", ["parse", "-"], "a: [1, 0x1F, yes]\n"),
        ("parse-syntax-error", ["parse", "\(fixtures)/broken.yaml"], nil),
        ("parse-duplicate-key", ["parse", "\(fixtures)/duplicate.yaml"], nil),
        ("parse-bad-json", ["parse", "\(fixtures)/bad.json"], nil),
        ("parse-missing-file", ["parse", "\(fixtures)/no-such-file.yaml"], nil),
        ("parse-quiet-ok", ["parse", "--quiet", "\(fixtures)/event.json"], nil),
        ("parse-no-files", ["parse"], nil),
        ("parse-bad-format", ["parse", "--format", "xml", "x"], nil),
    ]

    @Test(arguments: cases.map(\.golden))
    func outputMatchesGolden(_ golden: String) throws {
        let c = Self.cases.first { $0.golden == golden }!
        let out = try CLIRunner.run(c.args, stdin: c.stdin)
        if let diff = CLIRunner.compare(out, golden: golden) { Issue.record("\(diff)") }
    }

    @Test func helpShowsAnExampleAndExitsZero() throws {
        let out = try CLIRunner.run(["parse", "--help"])
        #expect(out.status == 0)
        #expect(out.stdout.contains("Example:"))
    }
}
