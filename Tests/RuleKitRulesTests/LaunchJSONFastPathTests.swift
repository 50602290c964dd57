import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitRules

/// `LaunchRulesLoader.load(json:)` reads a good file straight from its bytes (`LaunchJSONFastPath`) and
/// any other as a document. Whichever path runs, the result must be the document loader's, locations
/// and findings included: these tests hold the two paths to that, and check the fast one really runs.
@Suite struct LaunchJSONFastPathTests {
    /// The document loader's result for `text` (nil rule set and the syntax error if it is not JSON).
    static func viaDocument(_ text: [UInt8], limits: ReaderLimits = .default) -> RulesLoadResult {
        do {
            return LaunchRulesLoader.load(try JSONReader.read(text, file: "r.json", limits: limits, keepSourceMap: true))
        } catch {
            return RulesLoadResult(ruleSet: nil, diagnostics: error.diagnostics)
        }
    }

    static func viaBytes(_ text: [UInt8], limits: ReaderLimits = .default) -> RulesLoadResult {
        do {
            return try LaunchRulesLoader.load(json: text, file: "r.json", limits: limits)
        } catch {
            return RulesLoadResult(ruleSet: nil, diagnostics: error.diagnostics)
        }
    }

    /// Both entry points agree on `text`; returns whether the fast path took it.
    @discardableResult
    static func agree(_ text: String, limits: ReaderLimits = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        -> Bool
    {
        let bytes = Array(text.utf8)
        let fast = LaunchJSONFastPath.load(bytes, file: "r.json", limits: limits)
        let a = viaDocument(bytes, limits: limits)
        let b = viaBytes(bytes, limits: limits)
        #expect(a.ruleSet == b.ruleSet, "rule sets differ for:\n\(text)", sourceLocation: sourceLocation)
        #expect(a.diagnostics == b.diagnostics, "findings differ for:\n\(text)", sourceLocation: sourceLocation)
        if let fast {
            #expect(a.diagnostics.isEmpty, "the fast path took a file with findings:\n\(text)", sourceLocation: sourceLocation)
            #expect(fast == a.ruleSet, sourceLocation: sourceLocation)
        }
        return fast != nil
    }

    static let rule = #"""
        {"condition": {"type": "group", "definition": {"logic": "and", "conditions": [
          {"type": "matcher", "definition": {"key": "~type", "matcher": "eq", "values": ["com.adobe.eventType.edge"]}},
          {"type": "matcher", "definition": {"key": "xdm.é", "matcher": "co", "values": ["ü", 1, 2.5, true]}}]}},
         "consequences": [{"id": "c1", "type": "add", "detail": {"eventdata": {"x": "{%~type%}"}}}]}
        """#

    @Test func aGoodFileTakesTheFastPathWithTheSameLocations() throws {
        let text = "{\"version\": 2, \"rules\": [\n  \(Self.rule),\n    \(Self.rule)]}"
        #expect(Self.agree(text))
        let set = try #require(LaunchJSONFastPath.load(Array(text.utf8), file: "r.json", limits: .default))
        #expect(set.rules.count == 2)
        #expect(set.rules[1].location == RuleKitCore.SourceLocation(file: "r.json", line: 6, column: 5))
        #expect(set.rules[0].condition.definition.conditions?[1].location == RuleKitCore.SourceLocation(file: "r.json", line: 4, column: 3))
        // Columns count characters, not bytes: the condition sits after two 2-byte letters on its line.
        let oneLine =
            #"{"version": 1, "rules": [{"meta": {"é": "ü"}, "condition": {"type": "matcher", "definition": {}}, "consequences": []}]}"#
        #expect(Self.agree(oneLine))
        let one = try #require(LaunchJSONFastPath.load(Array(oneLine.utf8), file: "r.json", limits: .default))
        #expect(one.rules[0].condition.location?.column == 60)
        #expect(Self.agree(#"{"rules": [], "version": 1}"#))
    }

    /// The fast path reads exactly the members the document loader knows (any other key sends a file to
    /// the document loader, which reports it).
    @Test func theFastPathKnowsTheLoadersKeys() {
        func fields<F: FastPathField>(_ keys: Set<String>, _: F.Type) -> [F?] {
            keys.sorted().map { k in
                Array(k.utf8).withUnsafeBufferPointer { F(JSONPull.Key(bytes: $0)) }
            }
        }
        let rule = fields(LaunchRulesLoader.ruleKeys, RuleField.self)
        #expect(!rule.contains(nil) && Set(rule.map { $0!.rawValue }).count == RuleField.allCases.count)
        let definition = fields(LaunchRulesLoader.definitionKeys, DefinitionField.self)
        #expect(!definition.contains(nil) && Set(definition.map { $0!.rawValue }).count == DefinitionField.allCases.count)
        #expect(Array("when".utf8).withUnsafeBufferPointer { RuleField(JSONPull.Key(bytes: $0)) } == nil)
    }

    @Test func everyRuleShapeAgrees() {
        let shapes = [
            // meta with nulls, RuleKit fields, reEvaluate; enabled; id/name/description, non-string ids ignored
            #"{"meta": {"a": null, "id": "m", "reEvaluate": true}, "enabled": false, "id": "r", "name": 3,"#,
            #"{"meta": {"a": null}, "description": "d","#,
            #"{"meta": {}, "name": "n","#,
            #"{"meta": null,"#,
            #"{"id": null,"#,
            "{",
        ]
        let tail =
            #""condition": {"type": "historical", "definition": {"events": [{"a": 1}], "matcher": "ge", "value": 1, "from": 0, "to": 5.0, "searchType": "ordered", "key": null}}, "consequences": []}"#
        for s in shapes {
            #expect(Self.agree(#"{"version": 1, "rules": [\#(s) \#(tail)]}"#), "\(s)")
        }
    }

    @Test func filesWithFindingsOrOddSpellingsAgreeThroughTheDocument() {
        let bad = [
            #"{"version": 1, "rules": [], "extra": 1}"#,  // unknown key
            #"{"version": 1, "version": 2, "rules": []}"#,  // repeated key
            #"{"version": 1.5, "rules": []}"#,  // not an integer
            #"{"version": 1, "rules": {}}"#,
            #"{"version": 1}"#,
            #"{"vers\u0069on": 1, "rules": []}"#,  // escaped key
            #"{"version": 1, "rules": [],}"#,  // trailing comma
            #"{"version": 1, "rules": []} x"#,
            #"{"version": 1, "rules": [{"condition": {"type": "group", "definition": {"logic": "and", "conditions": [], "x": null}}, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "grop", "definition": {}}, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {"key": 5}}, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {"values": 5}}, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "historical", "definition": {"events": [1]}}, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {}}, "consequences": [{"id": 1, "type": "add", "detail": {}}]}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {}}, "consequences": [{"id": "1", "type": "add", "detail": []}]}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {}}, "consequences": [{"id": "1", "type": "add", "detail": {}, "x": 0}]}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {}}, "consequences": null}]}"#,
            #"{"version": 1, "rules": [{"condition": null, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"consequences": []}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {}}, "consequences": [], "enabled": "yes"}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {}}, "consequences": [], "meta": 1}]}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {"key": "a", "key": "b"}}, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"when": {}, "then": []}]}"#,
            "\u{FEFF}{\"version\": 1, \"rules\": []}",
            "[1, 2]",
            "",
        ]
        for text in bad {
            #expect(!Self.agree(text), "the fast path took: \(text)")
        }
    }

    @Test func limitsHoldOnBothPaths() {
        var nested = #"{"type": "matcher", "definition": {"key": "a", "matcher": "eq", "values": ["x"]}}"#
        for _ in 0..<40 { nested = #"{"type": "group", "definition": {"logic": "or", "conditions": [\#(nested)]}}"# }
        let text = #"{"version": 1, "rules": [{"condition": \#(nested), "consequences": []}]}"#
        #expect(Self.agree(text))
        // Too deep for these limits, and too many nodes: the document reader reports both.
        #expect(!Self.agree(text, limits: ReaderLimits(maxDepth: 100)))
        #expect(!Self.agree(text, limits: ReaderLimits(maxNodes: 200)))
        #expect(!Self.agree(text, limits: ReaderLimits(maxScalarBytes: 4)))
        #expect(!Self.agree(text, limits: ReaderLimits(maxDocumentBytes: 100)))
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the corpus rule sets are not compared"))
    func everyCorpusRuleSetLoadsTheSameBothWays() throws {
        let dir = try #require(SharedCorpus.folder("corpora/aep-rules"))
        var fast = 0
        var total = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where f.hasSuffix(".json") {
            let c = try JSONReader.read(try #require(SharedCorpus.bytes(dir.appendingPathComponent(f)))).value
            guard let rules = c["rules"], rules != .null else { continue }
            for options in [JSONWriter.Options.compact, .pretty] {
                total += 1
                if Self.agree(JSONWriter.string(rules, options: options)) { fast += 1 }
            }
        }
        print("fast path: \(fast) of \(total) corpus rule texts (compact and pretty)")
        #expect(fast >= total / 2)
        let bench = try #require(SharedCorpus.folder("bench"))
        for n in [10, 100, 1000] {
            let text = try #require(SharedCorpus.bytes(bench.appendingPathComponent("rules-\(n).json")))
            #expect(Self.agree(String(decoding: text, as: UTF8.self)), "rules-\(n).json")
        }
    }
}
