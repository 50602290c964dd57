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
        ("test-shipped-rules", ["test"], nil),
        ("test-failing-case", ["test", "\(fixtures)/failing.test.yaml"], nil),
        ("test-missing-path", ["test", "\(fixtures)/nope.test.yaml"], nil),
        ("lint-traps", ["lint", "\(fixtures)/lint-traps.yaml"], nil),
        ("lint-traps-strict", ["lint", "--strict", "\(fixtures)/lint-traps.yaml"], nil),
        ("lint-traps-json", ["lint", "--format", "json", "\(fixtures)/lint-traps.yaml"], nil),
        ("lint-syntax-error", ["lint", "\(fixtures)/broken.yaml"], nil),
        ("lint-missing-path", ["lint", "\(fixtures)/missing-rules/"], nil),
        (
            "explain-purchase",
            [
                "explain", "--event", "\(fixtures)/purchase-event.json",
                "--state", "com.adobe.module.configuration=\(fixtures)/configuration-state.json",
            ], nil
        ),
        ("explain-missing-event", ["explain", "--event", "\(fixtures)/nope.json"], nil),
        ("match-shipped-rules", ["match", "--state", "com.adobe.module.configuration=\(fixtures)/configuration-state.json"], nil),
        ("match-each", ["match", "--each", "--state", "com.adobe.module.configuration=\(fixtures)/configuration-state.json"], nil),
        ("match-bad-line", ["match", "-"], "{\"type\": \"t\", \"source\": \"s\"}\n[1]\n{\"type\": \n"),
        ("convert-yaml-to-launch", ["convert", "Rules/lifecycle.yaml", "--to", "launch-json"], nil),
        ("convert-unknown-matcher", ["convert", "\(fixtures)/unknown-matcher.yaml", "--to", "launch-json"], nil),
        (
            "xdm-validate-jsonl",
            [
                "xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                "--mixin", "https://rulekit.dev/xdm/sdk/commerce-details", "--format", "json",
                "\(fixtures)/payloads.jsonl",
            ], nil
        ),
        (
            "xdm-validate-text",
            [
                "xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                "--mixin", "https://rulekit.dev/xdm/sdk/commerce-details", "\(fixtures)/payloads.jsonl",
            ], nil
        ),
        (
            "xdm-validate-valid",
            [
                "xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                "--mixin", "https://rulekit.dev/xdm/sdk/web-details", "Schemas/examples/web-details.example.json",
            ], nil
        ),
        ("xdm-unknown-class", ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevnt", "x.json"], nil),
        (
            "xdm-paths-marketing",
            [
                "xdm", "paths", "--class", "https://rulekit.dev/xdm/sdk/experienceevent",
                "--mixin", "https://rulekit.dev/xdm/sdk/marketing",
            ], nil
        ),
    ]

    @Test(arguments: cases.map(\.golden))
    func outputMatchesGolden(_ golden: String) throws {
        let c = Self.cases.first { $0.golden == golden }!
        let out = try CLIRunner.run(c.args, stdin: c.stdin)
        if let diff = CLIRunner.compare(out, golden: golden) { Issue.record("\(diff)") }
    }

    @Test(arguments: [
        ["parse"], ["lint"], ["test"], ["run"], ["match"], ["convert"], ["explain"], ["xdm", "validate"], ["xdm", "paths"], ["schema"],
    ])
    func helpShowsAnExampleAndExitsZero(_ command: [String]) throws {
        let out = try CLIRunner.run(command + ["--help"])
        #expect(out.status == 0)
        #expect(out.stdout.contains("Example:"))
    }

    @Test func lintWritesSARIF210() throws {
        let out = try CLIRunner.run(["lint", "--format", "sarif", "\(Self.fixtures)/lint-traps.yaml"])
        #expect(out.status == 1)  // the fixture has rules that never fire or re-trigger: errors
        let v = try JSONReader.value(out.stdout)
        #expect(v["version"] == "2.1.0")
        let results = v["runs"]?[0]?["results"]?.arrayValue ?? []
        #expect(results.count == 10)
        #expect(results.first?["locations"]?[0]?["physicalLocation"]?["region"]?["startLine"] == 5)
    }

    /// UUIDs differ per run: numbered in order of appearance so the transcript can be pinned.
    static func normalizingIDs(_ text: String) -> String {
        var map: [String: String] = [:]
        var out = text
        let pattern = try! NSRegularExpression(pattern: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
        let ns = text as NSString
        for m in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let id = ns.substring(with: m.range)
            if map[id] == nil { map[id] = "ID-\(map.count + 1)" }
        }
        for (id, label) in map { out = out.replacingOccurrences(of: id, with: label) }
        return out
    }

    @Test func runOnTheShippedDefaultsMatchesGolden() throws {
        var out = try CLIRunner.run(["run"])
        out.stdout = Self.normalizingIDs(out.stdout)
        if let diff = CLIRunner.compare(out, golden: "run-defaults") { Issue.record("\(diff)") }
        // --all-events keeps the hub's whole view: its bookkeeping too.
        var all = try CLIRunner.run(["run", "--all-events"])
        all.stdout = Self.normalizingIDs(all.stdout)
        if let diff = CLIRunner.compare(all, golden: "run-all-events") { Issue.record("\(diff)") }
    }

    /// In a pipeline, stdout holds only what the input produced: the input events as delivered and what
    /// their rules dispatched (each naming its trigger as parent), nothing of the hub's bookkeeping.
    @Test func runWritesOnlyWhatTheInputProduced() throws {
        let input = try String(contentsOf: SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl"), encoding: .utf8)
        let out = try CLIRunner.run(["run", "-"], stdin: input)
        #expect(out.status == 0, "\(out.stderr)")
        let events = try out.stdout.split(separator: "\n").map { try JSONReader.value(String($0)) }
        let inputs = input.split(separator: "\n").count
        #expect(events.prefix(inputs).allSatisfy { $0["parentID"] == nil })
        var ids = Set(events.prefix(inputs).compactMap { $0["id"]?.stringValue })
        for e in events.dropFirst(inputs) {
            let parent = try #require(e["parentID"]?.stringValue)
            #expect(ids.contains(parent))
            if let id = e["id"]?.stringValue { ids.insert(id) }
        }
        #expect(!out.stdout.contains("sharedState") && !out.stdout.contains("requestReset") && !out.stdout.contains("Rules loaded"))
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the rules-1000 workload is not run"))
    func runFiresExactlyTheExpectedRulesOnTheBenchmarkWorkload() throws {
        let bench = try #require(SharedCorpus.folder("bench"))
        let state = try JSONReader.read(try #require(SharedCorpus.bytes(bench.appendingPathComponent("state.json")))).value
        var args = ["run", "--rules", bench.appendingPathComponent("rules-1000.json").path]
        for (name, data) in state.objectValue ?? [:] {
            let f = Scratch.url("rk-state-\(UUID()).json")
            try JSONWriter.string(data).write(to: f, atomically: true, encoding: .utf8)
            args += ["--state", "\(name)=\(f.path)"]
        }
        args.append(bench.appendingPathComponent("events-10k.jsonl").path)
        let out = try CLIRunner.run(args)
        #expect(out.status == 0, "\(out.stderr)")
        let expected = try JSONReader.read(try #require(SharedCorpus.bytes(bench.appendingPathComponent("expected.json")))).value
        let samples = expected["sample_matches_rules1000"]?.objectValue ?? [:]
        // Input events come out in input order; those a rule matched carry its ruleIndex.
        let inputs = out.stdout.split(separator: "\n").compactMap { try? JSONReader.value(String($0)) }
            .filter {
                $0["parentID"] == nil && $0["type"]?.stringValue?.hasPrefix("com.adobe.eventType.") == true
                    && $0["source"]?.stringValue != "com.adobe.eventSource.sharedState"
                    && $0["source"]?.stringValue != "com.adobe.eventSource.requestReset"
            }
        #expect(inputs.count == 10_000)
        var matched = 0
        for (i, e) in inputs.enumerated() {
            let got = e["data"]?["ruleIndex"]?.intValue
            if let want = samples[String(i)]?[0]?.intValue {
                #expect(got == want, "event \(i): rule \(String(describing: got)), expected \(want)")
            }
            if got != nil { matched += 1 }
        }
        #expect(matched == Int(expected["rule_sets"]?["1000"]?["sample"]?["events_matched"]?.intValue ?? -1))
        #expect(matched == samples.count)
    }

    /// `rulekit match` (the batch API) against the benchmark workload: the reference's match counts.
    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the benchmark workload is not run"))
    func matchCountsTheBenchmarkWorkloadAsTheReference() throws {
        let bench = try #require(SharedCorpus.folder("bench"))
        let state = try JSONReader.read(try #require(SharedCorpus.bytes(bench.appendingPathComponent("state.json")))).value
        var stateArgs: [String] = []
        for (name, data) in state.objectValue ?? [:] {
            let f = Scratch.url("rk-state-\(UUID()).json")
            try JSONWriter.string(data).write(to: f, atomically: true, encoding: .utf8)
            stateArgs += ["--state", "\(name)=\(f.path)"]
        }
        let expected = try JSONReader.read(try #require(SharedCorpus.bytes(bench.appendingPathComponent("expected.json")))).value
        for n in ["10", "100", "1000"] {
            let out = try CLIRunner.run(
                ["match", "--rules", bench.appendingPathComponent("rules-\(n).json").path] + stateArgs
                    + [bench.appendingPathComponent("events-10k.jsonl").path])
            #expect(out.status == 0, "\(out.stderr)")
            let want = expected["rule_sets"]?[n]?["sample"]?["events_matched"]?.intValue ?? -1
            #expect(out.stdout.hasSuffix("10000 events, \(want) with a match, \(want) matches\n"), "rules-\(n)")
        }
        // Per event: the sampled events match the rules the reference says.
        let out = try CLIRunner.run(
            ["match", "--each", "--rules", bench.appendingPathComponent("rules-1000.json").path]
                + stateArgs + [bench.appendingPathComponent("events-10k.jsonl").path])
        let samples = expected["sample_matches_rules1000"]?.objectValue ?? [:]
        var seen = 0
        for line in out.stdout.split(separator: "\n") {
            let v = try JSONReader.value(String(line))
            let index = Int(v["line"]?.intValue ?? 0) - 1
            guard let want = samples[String(index)]?.arrayValue else { continue }
            seen += 1
            // Launch rules without an id are labelled by position: "#6".
            #expect(v["rules"]?.arrayValue == want.map { .string("#\($0.intValue ?? -1)") }, "event \(index)")
        }
        #expect(seen == samples.count)
    }

    @Test func theExampleHostShowsEnrichedEvents() throws {
        let out = try CLIRunner.run([], executable: "example-host")
        #expect(out.status == 0)
        #expect(out.stdout.contains("\"customerTier\":\"gold\""))
        #expect(out.stdout.contains("messaging is asked: {\"reason\":\"cart-abandon\",\"sku\":\"p0041725\"}"))
    }

    @Test func schemaPrintsTheRulesFormatSchema() throws {
        let out = try CLIRunner.run(["schema"])
        #expect(out.status == 0)
        #expect(out.stdout.contains("\"title\": \"RuleKit rules\""))
    }

    @Test func convertRoundTripsThroughLaunchJSON() throws {
        let json = try CLIRunner.run(["convert", "Rules/commerce.yaml", "--to", "launch-json"])
        #expect(json.status == 0)
        let tmp = Scratch.url("rk-\(UUID()).json")
        try json.stdout.write(to: tmp, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let yaml = try CLIRunner.run(["convert", tmp.path, "--to", "yaml"])
        #expect(yaml.status == 0)
        #expect(yaml.stdout.contains("id: big-order"))
        #expect(yaml.stdout.contains("xdm.commerce.order.priceTotal"))
    }
}
