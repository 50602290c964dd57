import Foundation
import RuleKitCore
import RuleKitRules
import RuleKitSources
import RuleKitTestSupport
import Testing

/// `RuleProject` decides where a project's parts are, and pairs tests with rules both ways; `RuleSnapshot`
/// runs Load → Plan → Check and says what a host refuses.
@Suite struct RuleProjectTests {
    func project(_ files: [String: String]) throws -> URL {
        let root = Scratch.url("rk-project-\(UUID())")
        for (name, text) in files {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func theDefaultsAreUnderTheRootAndTestsPairWithRulesBothWays() throws {
        let rule = "rules:\n  - {id: a, when: {key: ~type, eq: t}, then: [{add: {x: 1}}]}\n"
        let root = try project([
            "Rules/shop.yaml": rule, "Rules/shop.test.json": "{}", "Rules/other.yml": rule, "Rules/other.test.yaml": "tests: []\n",
            "Examples/events.jsonl": "{}\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let p = RuleProject(root: root.path)
        #expect(p.rules == [root.appendingPathComponent("Rules").path])
        #expect(p.schemas == nil, "no Schemas/ folder: nothing to use")
        #expect(p.events == root.appendingPathComponent("Examples/events.jsonl").path)
        #expect(p.rulesFiles().map { ($0 as NSString).lastPathComponent } == ["other.yml", "shop.yaml"])
        // `.test.json` pairs as `.test.yaml` does (the rule test format is YAML, JSON being YAML).
        let tests = p.testFiles().map { ($0 as NSString).lastPathComponent }
        #expect(tests == ["other.test.yaml", "shop.test.json"])
        for t in p.testFiles() {
            let rules = RuleProject.rules(forTest: t, named: nil).map { ($0 as NSString).lastPathComponent }
            #expect(rules == [t.hasSuffix("shop.test.json") ? "shop.yaml" : "other.yml"])
        }
        // A named file's tests are the one beside it.
        let one = RuleProject(rules: [root.appendingPathComponent("Rules/shop.yaml").path])
        #expect(one.testFiles().map { ($0 as NSString).lastPathComponent } == ["shop.test.json"])
    }

    @Test func checkErrorsRefuseRuleKitRulesAndOnlyStrictRefusesALaunchFile() throws {
        let rulekit = "rules:\n  - {id: a, when: {key: '%nope%', eq: 1}, then: [{add: {x: 1}}]}\n"
        let launch = """
            {"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {"key": "a", "matcher": "eqq", "values": [1]}},
             "consequences": [{"id": "c", "type": "add", "detail": {"eventdata": {"x": 1}}}]}]}
            """
        let root = try project(["r.yaml": rulekit, "l.json": launch])
        defer { try? FileManager.default.removeItem(at: root) }
        let yaml = RuleSnapshot.load([root.appendingPathComponent("r.yaml").path])
        #expect(!yaml.hasErrors, "it loads")
        #expect(yaml.findings.contains { $0.code == .rulesUnknownDataElement && $0.severity == .error })
        #expect(!yaml.admits(strict: false, allowErrors: false))
        #expect(yaml.admits(strict: false, allowErrors: true))
        let json = RuleSnapshot.load([root.appendingPathComponent("l.json").path])
        #expect(!json.findings.filter { $0.severity == .error }.isEmpty)
        #expect(json.refusals(strict: false).isEmpty)
        #expect(!json.lenient(strict: false).isEmpty)
        #expect(json.admits(strict: false, allowErrors: false))
        #expect(!json.admits(strict: true, allowErrors: false))
        #expect(json.reported(strict: false).allSatisfy { $0.severity != .error })
    }
}
