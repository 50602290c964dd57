import Foundation
import RuleKitCore
import RuleKitTestSupport
import RuleKitYAML
import Testing

@testable import RuleKitRules

/// Launch JSON → RuleKit YAML → Launch JSON gives back the same rules, for every rules fixture of the
/// aep-rules corpus (the reference drops null `meta` entries on read, so those are compared without).
@Suite struct RoundTripTests {
    static func normalized(_ v: Value) -> Value {
        guard case .object(var root) = v, case .array(let rules)? = root["rules"] else { return v }
        root["rules"] = .array(
            rules.map { r in
                guard case .object(var o) = r, case .object(var m)? = o["meta"] else { return r }
                for k in m.keys where m[k] == .null { m[k] = nil }
                o["meta"] = .object(m)
                return .object(o)
            })
        return .object(root)
    }

    static func roundTrip(_ rules: Value) throws -> (yaml: String, back: Value) {
        let set = try LaunchRulesLoader.load(Document(value: rules)).get()
        let yaml = RuleKitFormatWriter.yaml(set)
        let doc = try YAMLReader.read(yaml, file: "roundtrip.yaml")
        let reread = RuleSetLoader.load(doc)
        guard let set2 = reread.ruleSet else {
            throw DiagnosticError(reread.diagnostics + [.error("test", "YAML did not load:\n\(yaml)")])
        }
        let same = set2.withoutLocations() == set.withoutLocations()
        #expect(same, "model differs after YAML:\n\(yaml)")
        return (yaml, LaunchRulesWriter.value(set2))
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the round trip over the corpus is not run"))
    func everyCorpusRuleSetSurvivesYAMLAndBack() throws {
        let dir = try #require(SharedCorpus.folder("corpora/aep-rules"))
        var checked = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where f.hasSuffix(".json") {
            let c = try JSONReader.read(try #require(SharedCorpus.bytes(dir.appendingPathComponent(f)))).value
            guard let rules = c["rules"], rules != .null, LaunchRulesLoader.load(Document(value: rules)).ruleSet != nil else {
                continue
            }
            let (yaml, back) = try Self.roundTrip(rules)
            let same = back == Self.normalized(rules)
            #expect(same, "\(f) changed in the round trip:\n\(yaml)\n\(back)")
            checked += 1
        }
        print("round trip: \(checked) rule sets Launch → YAML → Launch unchanged")
        #expect(checked >= 90)
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent"))
    func benchmarkRuleSetsSurviveYAMLAndBack() throws {
        let dir = try #require(SharedCorpus.folder("bench"))
        let rules = try JSONReader.read(try #require(SharedCorpus.bytes(dir.appendingPathComponent("rules-100.json")))).value
        let (_, back) = try Self.roundTrip(rules)
        let same = back == rules
        #expect(same)
    }

    @Test func oddShapesUseTheLaunchFormAndSurvive() throws {
        let rules: Value = [
            "version": 2,
            "rules": [
                [
                    "condition": [
                        "type": "group",
                        "definition": [
                            "logic": "xor",
                            "conditions": [
                                ["type": "matcher", "definition": ["key": "a", "matcher": "eqq", "values": [1]]],
                                ["type": "matcher", "definition": ["key": "b", "matcher": "ex", "values": [true]]],
                                ["type": "matcher", "definition": ["key": "c", "matcher": "eq"]],
                                [
                                    "type": "matcher",
                                    "definition": ["key": "d", "matcher": "eq", "values": [nil, [1], "yes", 22.0, "0x10"]],
                                ],
                                ["type": "matcher", "definition": ["matcher": "eq", "values": ["x"]]],
                                [
                                    "type": "historical",
                                    "definition": ["events": [["k": "v"]], "matcher": "ge", "value": 1, "searchType": "sideways"],
                                ],
                                ["type": "group", "definition": ["logic": "and", "conditions": [], "key": "stray"]],
                            ],
                        ],
                    ],
                    "consequences": [
                        ["id": "c1", "type": "add", "detail": ["eventdata": ["n": 1], "extra": true]],
                        ["id": "c2", "type": "dispatch", "detail": ["type": "t", "source": "s", "eventdataaction": "move"]],
                        [
                            "id": "c3", "type": "schema",
                            "detail": [
                                "id": "other", "schema": .string(RulesEventNames.historySchema),
                                "data": ["operation": "insert", "content": ["a": 1]],
                            ],
                        ],
                        ["id": "c4", "type": "url", "detail": [:]],
                    ],
                    "meta": ["reEvaluate": true],
                ]
            ],
        ]
        let (yaml, back) = try Self.roundTrip(rules)
        let same = back == rules
        #expect(same, "\(yaml)\n\(back)")
    }
}

/// Found by fuzz-rules: strings the YAML writer left plain or raw that YAML does not read back.
@Suite struct YAMLTextFuzzRegressions {
    @Test(arguments: ["@dm.commerce.order.priceTotal", "a\u{7F}b", "\u{85}x\u{9F}", "x\u{FFFE}", "@", "tab\there", "a\u{2028}b\u{2029}c"])
    func stringsReadBackAsWritten(_ s: String) throws {
        let text = "k: " + YAMLText.string(s) + "\n"
        let v = try YAMLReader.read(text).value
        #expect(v["k"] == .string(s), "\(text.debugDescription)")
    }
}
