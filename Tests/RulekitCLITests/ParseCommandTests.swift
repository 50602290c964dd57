import Foundation
import RuleKitCore
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
        ("lint-shipped-rules", ["lint"], nil),
        ("lint-traps", ["lint", "\(fixtures)/lint-traps.yaml"], nil),
        ("lint-traps-strict", ["lint", "--strict", "\(fixtures)/lint-traps.yaml"], nil),
        ("lint-traps-json", ["lint", "--format", "json", "\(fixtures)/lint-traps.yaml"], nil),
        ("lint-syntax-error", ["lint", "\(fixtures)/broken.yaml"], nil),
        ("lint-missing-path", ["lint", "\(fixtures)/missing-rules/"], nil),
        ("explain-purchase", ["explain", "--event", "\(fixtures)/purchase-event.json",
                              "--state", "com.adobe.module.configuration=\(fixtures)/configuration-state.json"], nil),
        ("explain-missing-event", ["explain", "--event", "\(fixtures)/nope.json"], nil),
        ("convert-yaml-to-launch", ["convert", "Rules/lifecycle.yaml", "--to", "launch-json"], nil),
        ("convert-unknown-matcher", ["convert", "\(fixtures)/unknown-matcher.yaml", "--to", "launch-json"], nil),
        ("xdm-validate-jsonl", ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                                "--mixin", "https://rulekit.dev/xdm/sdk/commerce-details", "--format", "json",
                                "\(fixtures)/payloads.jsonl"], nil),
        ("xdm-validate-text", ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                               "--mixin", "https://rulekit.dev/xdm/sdk/commerce-details", "\(fixtures)/payloads.jsonl"], nil),
        ("xdm-validate-valid", ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                                "--mixin", "https://rulekit.dev/xdm/sdk/web-details", "Schemas/examples/web-details.example.json"], nil),
        ("xdm-unknown-class", ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevnt", "x.json"], nil),
        ("xdm-paths-marketing", ["xdm", "paths", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                                 "--mixin", "https://rulekit.dev/xdm/sdk/marketing"], nil),
    ]

    @Test(arguments: cases.map(\.golden))
    func outputMatchesGolden(_ golden: String) throws {
        let c = Self.cases.first { $0.golden == golden }!
        let out = try CLIRunner.run(c.args, stdin: c.stdin)
        if let diff = CLIRunner.compare(out, golden: golden) { Issue.record("\(diff)") }
    }

    @Test(arguments: [["parse"], ["lint"], ["convert"], ["explain"], ["xdm", "validate"], ["xdm", "paths"], ["schema"]])
    func helpShowsAnExampleAndExitsZero(_ command: [String]) throws {
        let out = try CLIRunner.run(command + ["--help"])
        #expect(out.status == 0)
        #expect(out.stdout.contains("Example:"))
    }

    @Test func lintWritesSARIF210() throws {
        let out = try CLIRunner.run(["lint", "--format", "sarif", "\(Self.fixtures)/lint-traps.yaml"])
        #expect(out.status == 0)
        let v = try JSONReader.value(out.stdout)
        #expect(v["version"] == "2.1.0")
        let results = v["runs"]?[0]?["results"]?.arrayValue ?? []
        #expect(results.count == 10)
        #expect(results.first?["locations"]?[0]?["physicalLocation"]?["region"]?["startLine"] == 5)
    }

    @Test func schemaPrintsTheRulesFormatSchema() throws {
        let out = try CLIRunner.run(["schema"])
        #expect(out.status == 0)
        #expect(out.stdout.contains("\"title\": \"RuleKit rules\""))
    }

    @Test func convertRoundTripsThroughLaunchJSON() throws {
        let json = try CLIRunner.run(["convert", "Rules/commerce.yaml", "--to", "launch-json"])
        #expect(json.status == 0)
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("rk-\(UUID()).json")
        try json.stdout.write(to: tmp, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let yaml = try CLIRunner.run(["convert", tmp.path, "--to", "yaml"])
        #expect(yaml.status == 0)
        #expect(yaml.stdout.contains("id: big-order"))
        #expect(yaml.stdout.contains("xdm.commerce.order.priceTotal"))
    }
}
