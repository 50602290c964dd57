import Foundation
import RuleKitCore
import Testing

@testable import RuleKitRules

/// The behaviours the reference documents but never tests ("source-only" in the reference doc), each
/// pinned here, plus RuleKit's decisions where the reference is ambiguous.
@Suite struct LaunchSemanticsTests {
    @Test func matcherCodesAreExactAndCaseSensitive() {
        for (code, op) in zip(Operation.codes, Operation.allCases) {
            #expect(Operation(code: code) == op)
            #expect(op.code == code)
        }
        for other in ["EQ", "Eq", "e", "eqq", "", "équals", "equals", "q", "e\u{301}q"] {
            #expect(Operation(code: other) == nil, "\(other)")
        }
    }

    @Test func missingKeyBecomesEmptyStringSoNegativeMatchersHold() throws {
        #expect(try Rules.matches("{key: nope, ne: x}", data: ["a": 1]))
        #expect(try Rules.matches("{key: nope, nc: x}", data: ["a": 1]))
        #expect(try Rules.matches("{key: nope, eq: ''}", data: ["a": 1]))
        #expect(try Rules.matches("{key: nope, eq: false}", data: ["a": 1]))
        #expect(try !Rules.matches("{key: nope, gt: 0}", data: ["a": 1]))
        #expect(try !Rules.matches("{key: nope, ex: true}", data: ["a": 1]))
        #expect(try Rules.matches("{key: nope, nx: true}", data: ["a": 1]))
    }

    @Test func nilEventDataMakesEveryPlainKeyEmptyString() throws {
        #expect(try Rules.matches("{key: anything, ex: true}", data: nil))
        #expect(try !Rules.matches("{key: anything, nx: true}", data: nil))
        #expect(try Rules.matches("{key: anything, eq: ''}", data: nil))
    }

    @Test func onlyLeavesAreAddressable() throws {
        #expect(try !Rules.matches("{key: obj, ex: true}", data: ["obj": ["k": 1]]))
        #expect(try Rules.matches("{key: obj.k, ex: true}", data: ["obj": ["k": 1]]))
        #expect(try !Rules.matches("{key: empty, ex: true}", data: ["empty": [:]]))
        #expect(try Rules.matches("{key: items.1, eq: b}", data: ["items": ["a", "b"]]))
        #expect(try !Rules.matches("{key: 'items[1]', eq: b}", data: ["items": ["a", "b"]]))
        #expect(try Rules.matches("{key: nul, ex: true}", data: ["nul": nil]))
    }

    @Test func pathsThroughLargeObjectsArraysAndEquivalentKeys() throws {
        // Objects of 24 keys and more keep a hash index: the walk takes the indexed lookup there.
        var big: [String: Value] = [:]
        for i in 0..<40 { big["k\(i)"] = .int(Int64(i)) }
        big["inner"] = ["list": [["x": "deep"]]]
        let data: Value = ["big": .object(ValueObject(big.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))]
        #expect(try Rules.matches("{key: big.k39, eq: 39}", data: data))
        #expect(try Rules.matches("{key: big.inner.list.0.x, eq: deep}", data: data))
        #expect(try !Rules.matches("{key: big.inner.list.1.x, ex: true}", data: data))
        #expect(try !Rules.matches("{key: big.k40, ex: true}", data: data))
        // Keys compare as strings do: canonically equivalent spellings are the same key.
        #expect(try Rules.matches("{key: \"caf\\u00e9.x\", eq: 1}", data: ["cafe\u{301}": ["x": 1]]))
        // The Kelvin sign is canonically the letter K: an ASCII path finds a key of another byte count.
        #expect(try Rules.matches("{key: a.K, eq: 1}", data: ["a": ["\u{212A}": 1, "Kx": 2]]))
        let read = try JSONReader.read(#"{"a": {"b": 0, "\u212a": 1}}"#).value
        #expect(try Rules.matches("{key: a.K, eq: 1}", data: read))
        #expect(try !Rules.matches("{key: a.KK, ex: true}", data: read))
    }

    /// When both spellings exist, the nested path wins (docs/rules-semantics.md: the reference leaves the
    /// collision unspecified); a nested container is no leaf, so a dotted spelling is then the answer.
    @Test func bothSpellingsOfADottedPath() throws {
        #expect(try Rules.matches("{key: a.b, eq: 1}", data: ["a": ["b": 1], "a.b": 2]))
        #expect(try Rules.matches("{key: a.b, eq: 2}", data: ["a": ["c": 1], "a.b": 2]))
        #expect(try Rules.matches("{key: a.b, eq: 5}", data: ["a": ["b": ["x": 1]], "a.b": 5]))
        #expect(try Rules.matches("{key: x.a.b, eq: 3}", data: ["x": ["a.b": 3, "a": ["c": 0]]]))
        #expect(try Rules.matches("{key: ~state.s/a.b, eq: 4}", data: [:], states: ["s": ["a": ["q": 1], "a.b": 4]]))
    }

    @Test func dottedKeysAndNestingAreTheSamePath() throws {
        #expect(try Rules.matches("{key: a.b, eq: 1}", data: ["a.b": 1]))
        #expect(try Rules.matches("{key: x.a.b.c, eq: 2}", data: ["x": ["a.b": ["c": 2]]]))
        #expect(try Rules.matches("{key: A.B, eq: 1}", data: ["a": ["b": 1]]) == false)
        // A dotted key must spell whole segments; non-ASCII keys take the character-wise comparison.
        #expect(try !Rules.matches("{key: a.bc, eq: 1}", data: ["a.b": ["c": 1]]))
        #expect(try !Rules.matches("{key: a.b.c, eq: 1}", data: ["a.bc": 1]))
        #expect(try Rules.matches("{key: x.y.z, eq: 1}", data: ["x.y": ["z": 1], "x": ["q": 2]]))
        #expect(try Rules.matches("{key: é.b.c, eq: 1}", data: ["é.b": ["c": 1]]))
        #expect(try !Rules.matches("{key: é.b.c, eq: 1}", data: ["é.bc": 1]))
    }

    /// The byte comparison of dotted keys answers as the character-wise one on ASCII text.
    @Test func dottedKeyEndsAgreeBetweenBytesAndCharacters() {
        let path = FlatPath("state.lifecycle.sessionTimeout.extra")
        let cases: [(String, Int, Int?)] = [
            ("lifecycle.sessionTimeout", 1, 3), ("lifecycle", 1, 2), ("lifecycle.session", 1, nil),
            ("lifecycle.sessionTimeout.extra", 1, 4), ("lifecycle.sessionTimeout.extra.more", 1, nil),
            ("state.lifecycle", 0, 2), ("lifecycle.", 1, nil), ("", 1, nil), ("sessionTimeout", 1, nil),
        ]
        for (key, from, expected) in cases {
            #expect(path.end(ofDottedKey: key, from: from) == expected, "\(key) from \(from)")
        }
    }

    @Test func matcherValueTypeChoosesTheConversion() throws {
        #expect(try Rules.matches("{key: v, eq: 3}", data: ["v": "3"]))
        #expect(try Rules.matches("{key: v, eq: 3}", data: ["v": 3.9]))
        #expect(try !Rules.matches("{key: v, eq: 3}", data: ["v": "3.0"]))
        #expect(try Rules.matches("{key: v, eq: '3'}", data: ["v": 3]))
        #expect(try !Rules.matches("{key: v, eq: '3'}", data: ["v": 3.0]))
        #expect(try Rules.matches("{key: v, eq: '3.0'}", data: ["v": 3.0]))
        #expect(try Rules.matches("{key: v, eq: true}", data: ["v": "TRUE"]))
        #expect(try Rules.matches("{key: v, eq: true}", data: ["v": 1]))
        #expect(try !Rules.matches("{key: v, eq: true}", data: ["v": 2]))
        #expect(try Rules.matches("{key: v, gt: 1.5}", data: ["v": "2"]))
    }

    @Test func unsupportedTypeCombinationsAreFalseEvenForNegativeMatchers() throws {
        #expect(try !Rules.matches("{key: v, gt: '2'}", data: ["v": 3]))
        #expect(try !Rules.matches("{key: v, nc: 5}", data: ["v": "abc"]))
        #expect(try !Rules.matches("{key: v, ne: 5}", data: ["v": "abc"]))
        #expect(try !Rules.matches("{key: v, co: true}", data: ["v": true]))
    }

    @Test func stringOperatorsAreCaseInsensitive() throws {
        #expect(try Rules.matches("{key: v, eq: HeLLo}", data: ["v": "hello"]))
        #expect(try Rules.matches("{key: v, co: WORLD}", data: ["v": "Hello World!"]))
        #expect(try Rules.matches("{key: v, sw: ÉCOLE}", data: ["v": "école primaire"]))
        #expect(try Rules.matches("{key: v, ew: PRIMAIRE}", data: ["v": "école primaire"]))
        #expect(try !Rules.matches("{key: V, eq: hello}", data: ["v": "hello"]))
    }

    @Test func multipleValuesAreOrExceptNeAndNcWhichAreAnd() throws {
        #expect(try Rules.matches("{key: v, eq: [a, b]}", data: ["v": "b"]))
        #expect(try !Rules.matches("{key: v, ne: [a, b]}", data: ["v": "b"]))
        #expect(try Rules.matches("{key: v, ne: [a, b]}", data: ["v": "c"]))
        #expect(try !Rules.matches("{key: v, nc: [x, y]}", data: ["v": "xx"]))
    }

    @Test func unknownLogicIsAlwaysFalseAndInvalidMembersWidenAGroup() throws {
        #expect(try !Rules.matches("{group: {logic: AND, conditions: [{key: v, eq: 1}]}}", data: ["v": 1]))
        // A Launch 'and' with an unknown matcher loses that member: the rest decides alone.
        let launch: Value = [
            "version": 1,
            "rules": [
                [
                    "condition": [
                        "type": "group",
                        "definition": [
                            "logic": "and",
                            "conditions": [
                                ["type": "matcher", "definition": ["key": "v", "matcher": "eq", "values": [1]]],
                                ["type": "matcher", "definition": ["key": "w", "matcher": "equals", "values": [2]]],
                            ],
                        ],
                    ],
                    "consequences": [],
                ]
            ],
        ]
        let result = LaunchRulesLoader.load(Document(value: launch))
        let set = Planner().plan(try result.get())
        #expect(set.diagnostics.contains { $0.code == .rulesUnknownMatcher && $0.message.contains("did you mean 'eq'") })
        var r = Resolver(
            event: Event(name: "e", type: "t", source: "s", data: ["v": 1, "w": 5]),
            runtime: StaticRulesRuntime())
        #expect(Evaluator.matchCount(set, &r) == 1)
    }

    @Test func aRuleWithNothingValidLeftIsDropped() throws {
        let launch: Value = [
            "version": 1,
            "rules": [
                [
                    "condition": ["type": "matcher", "definition": ["key": "v", "matcher": "eq", "values": [nil, [1]]]],
                    "consequences": [],
                ]
            ],
        ]
        let set = Planner().plan(try LaunchRulesLoader.load(Document(value: launch)).get())
        #expect(set.rules.isEmpty)
        #expect(set.diagnostics.contains { $0.code == .rulesDroppedRule })
    }

    @Test func xdmSharedStatesAreReadByTheXDMPrefixOnly() throws {
        let xdm: [String: ValueObject] = ["com.example.edge": ["xdm": ["eventType": "commerce.purchases"]]]
        #expect(try Rules.matches("{key: ~xdm.com.example.edge/xdm.eventType, eq: commerce.purchases}", data: [:], xdm: xdm))
        #expect(try !Rules.matches("{key: ~state.com.example.edge/xdm.eventType, eq: commerce.purchases}", data: [:], xdm: xdm))
        let states: [String: ValueObject] = ["com.adobe.module.configuration": ["global.privacy": "optedin"]]
        #expect(
            try Rules.matches(
                "{key: ~state.com.adobe.module.configuration/global.privacy, eq: optedin}", data: [:],
                states: states))
        #expect(try !Rules.matches("{key: ~state.nope, ex: true}", data: [:], states: states))
    }

    @Test func templatesRenderAsTheReferenceDoes() throws {
        let runtime = StaticRulesRuntime()
        var r = Resolver(
            event: Event(name: "e", type: "T", source: "S", data: ["n": 2, "d": 22.0, "s": "x y"]),
            runtime: runtime)
        func render(_ s: String) -> String { Evaluator.render(Template.parse(s), &r) }
        #expect(render("n={%n%}") == "n=2")
        #expect(render("{%d%}") == "22.0")
        #expect(render("{%urlenc(s)%}") == "x%20y")
        #expect(render("{% s %}") == "")  // keys are verbatim: " s " is not "s"
        #expect(render("{%int(d)%}") == "22")
        #expect(render("{%nope(s)%}") == "x y")
        #expect(render("{%int(s)%}") == "x y")  // a failed conversion leaves the value
        #expect(render("a {%s") == "")  // unclosed: the whole string is ""
        #expect(render("{%%}x") == "x")
        #expect(render("{%missing%}!") == "!")
        #expect(render("{%~type%}/{%~source%}") == "T/S")
    }

    @Test func explainKeepsNoMatchApartFromError() throws {
        let set = try Rules.compile(
            """
            rules:
              - id: r
                when: {all: [{key: v, gt: 5}, {key: w, gt: 1}, {key: x, eq: a}]}
                then: []
            """)
        var r = Resolver(
            event: Event(name: "e", type: "t", source: "s", data: ["v": "abc", "w": 0, "x": "A"]),
            runtime: StaticRulesRuntime())
        let traces = Evaluator.explain(set, &r)
        guard case .group(_, let result, let children) = traces[0].condition else {
            Issue.record("not a group")
            return
        }
        #expect(!result)
        guard case .comparison(let a) = children[0], case .comparison(let b) = children[1],
            case .comparison(let c) = children[2]
        else {
            Issue.record("not comparisons")
            return
        }
        #expect(a.outcome == .conversionFailed("\"abc\" is not an integer"))
        #expect(b.outcome == .noMatch)
        #expect(c.outcome == .match)
        #expect(ExplainText.render(traces).contains("error: \"abc\" is not an integer"))
    }
}
