import Foundation
import RuleKitCore
import RuleKitTestSupport
import RuleKitYAML
import Testing

@testable import RuleKitRules

/// Golden diagnostics for broken rules files: what a rule author reads, located to the field.
@Suite struct RulesDiagnosticsTests {
    static let fixtures = [
        "unknown-matcher.yaml", "bad-values.yaml", "bad-structure.yaml", "launch-warnings.json",
        "launch-broken.json",
    ]

    static func diagnose(_ name: String) throws -> String {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let bytes = try #require(SharedCorpus.bytes(dir.appendingPathComponent(name)))
        let path = "Fixtures/\(name)"
        let doc =
            name.hasSuffix(".json")
            ? try JSONReader.read(bytes, file: path, keepSourceMap: true)
            : try YAMLReader.read(bytes, file: path)
        let result = RuleSetLoader.load(doc)
        var diags = result.diagnostics
        if let set = result.ruleSet { diags += Planner().plan(set).diagnostics }
        var all = Diagnostics()
        all.append(contentsOf: diags)
        var renderer = DiagnosticRenderer()
        renderer.addSource(String(decoding: bytes, as: UTF8.self), for: path)
        return renderer.render(all.sorted) + "\n"
    }

    @Test(arguments: fixtures)
    func diagnosticsMatchGolden(_ name: String) throws {
        if let diff = Golden.compare(try Self.diagnose(name), name: name) { Issue.record("\(diff)") }
    }

    /// Token strings are parsed once per rule set, but every rule that holds a bad one is told.
    @Test func aRepeatedBadTokenIsReportedForEachRule() throws {
        let set = try Rules.load(
            """
            dataElements: {total: {path: a.b, type: int}}
            rules:
              - {id: r1, when: {key: x, eq: 1}, then: [{add: {a: "{%unclosed", b: "{%%nope%%}"}}]}
              - {id: r2, when: {key: x, eq: 1}, then: [{add: {a: "{%unclosed", b: "{%%nope%%}"}}]}
            """
        ).get()
        let messages = Planner().plan(set).diagnostics.map(\.message)
        for rule in ["r1", "r2"] {
            #expect(messages.contains { $0.hasPrefix("rule \(rule): unclosed") }, "\(messages)")
            #expect(messages.contains { $0 == "rule \(rule): no data element named 'nope'" }, "\(messages)")
        }
    }

    @Test func launchStructuralErrorsRefuseTheWholeFile() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let doc = try JSONReader.read(
            try #require(SharedCorpus.bytes(dir.appendingPathComponent("launch-broken.json"))),
            keepSourceMap: true)
        let result = LaunchRulesLoader.load(doc)
        #expect(result.ruleSet == nil)
        #expect(result.errors.count >= 5)
        #expect(result.errors.allSatisfy { $0.location != nil })
    }

    @Test func anErrorAfterAFloodOfWarningsStillRefusesTheFile() throws {
        // 800 rules with an unknown key each (warnings past the cap), then one rule with a broken type.
        var rules: [String] = (0..<800).map { i in
            #"{"priority": \#(i), "condition": {"type": "matcher", "definition": {"key": "~type", "matcher": "eq", "values": ["t"]}}, "consequences": []}"#
        }
        rules.append(#"{"condition": {"type": 7, "definition": {}}, "consequences": []}"#)
        let body = rules.joined(separator: ",\n")
        let text = #"{"version": 1, "rules": ["# + body + "]}"
        let result = LaunchRulesLoader.load(try JSONReader.read(text, file: "flood.json", keepSourceMap: true))
        #expect(result.ruleSet == nil)
        #expect(result.errors.count == 1)
        #expect(result.errors.first?.location?.line == 801)
        #expect(result.diagnostics.count { $0.severity == .warning } == 500)
    }

    /// The pruned, byte-wise `closest` gives the hint the plain one gives, on typos of known keys (ASCII,
    /// upper case, non-ASCII, combining marks) against every candidate set.
    @Test func theFastHintIsThePlainOne() {
        let known = [
            "id", "mod", "add", "dispatch", "history", "when", "then", "operation", "content", "searchType",
            "matcher", "value", "définition", "cafe\u{301}", "ÉVÉNEMENT", "x",
        ]
        var words = known
        for k in known {
            let chars = Array(k)
            words.append(k.uppercased())
            words.append(String(chars.dropLast()))
            words.append(String(chars.dropFirst()))
            words.append(k + "s")
            words.append(String(chars.reversed()))
            if chars.count > 2 { words.append(String(chars[0..<1] + chars[2...])) }
        }
        words += ["", "é", "zzzzzzzz", "defin", "dispach", "histroy"]
        for w in words {
            for n in [1, 3, known.count] {
                let set = Array(known.prefix(n))
                #expect(closest(w, in: set) == referenceClosest(w, in: set), "\(w) in \(set)")
            }
        }
    }

    /// Of candidates as close, the hint is the first in lexicographic order, whatever order the candidates
    /// come in (a set's order changes from one run to the next; the fuzzer found the hint changing).
    @Test func aHintIsTheSameWhateverTheCandidatesOrder() throws {
        #expect(closest("md", in: ["mod", "id"]) == "id")
        #expect(closest("md", in: ["id", "mod"]) == "id")
        for n in 0..<50 {
            var known: Set<String> = ["id", "mod"]
            known.reserveCapacity(n)
            #expect(closest("md", in: known) == "id")
        }
        let text = "rules:\n  - when: {key: a, eq: 1}\n    then: [{md: x, mod: {a: 1}}]\n"
        let result = RuleSetLoader.load(try YAMLReader.read(text))
        #expect(result.errors.map(\.message) == ["unknown key 'md' in a 'mod' consequence (did you mean 'id'?)"])
    }
}
