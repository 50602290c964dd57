import Foundation
import RuleKitCore
import RuleKitSources
import RuleKitTestSupport
import RuleKitYAML
import Testing

@testable import RuleKitRules

/// Rules are loaded from a tape (JSON: `RuleSetLoader.load(json:)`; YAML: `YAMLReader.tape` and
/// `RuleSetLoader.load(tape:file:)`); the plain reference is the same loader over a `Value` tree with a
/// source map. Both must give the same rules, locations included, and the same findings, with the same
/// locations and JSON pointers.
@Suite struct TapeRulesLoaderTests {
    /// The reference: the text read as a document with a source map.
    static func reference(_ bytes: [UInt8], file: String) throws -> RulesLoadResult {
        LaunchRulesLoader.load(try JSONReader.read(bytes, file: file, keepSourceMap: true))
    }

    /// Whether the tape takes `bytes` (else `load(json:)` reads a document, and the comparison is empty).
    static func taped(_ bytes: [UInt8]) -> Bool { JSONReader.tape(bytes[...], keepingPositions: true) != nil }

    static func expectSame(_ bytes: [UInt8], file: String = "r.json", sourceLocation: Testing.SourceLocation = #_sourceLocation)
        throws
    {
        let fromTape = try LaunchRulesLoader.load(json: bytes, file: file)
        let reference = try Self.reference(bytes, file: file)
        #expect(fromTape.ruleSet == reference.ruleSet, sourceLocation: sourceLocation)
        #expect(fromTape.diagnostics == reference.diagnostics, sourceLocation: sourceLocation)
    }

    /// Problems at every level of a rules file, over several lines, with strings that are not ASCII
    /// before them on their line (columns count Unicode scalars) and escapes (strings the tape decodes).
    static let located: [String] = [
        #"[1, 2]"#,
        #"{"version": "1", "rules": {}}"#,
        #"{"rules": [], "extra": true}"#,
        """
        {"version": 1.0, "rules": [
          3,
          {"condition": {"type": "matchr", "definition": {}}, "consequences": [], "enabled": "yes"},
          {"condition": {"type": 7, "definition": []}, "consequences": {}, "meta": 3},
          {"conditon": {}, "consequences": [{"id": 1, "type": "add", "detail": {}}]},
          {"condition": {"type": "matcher", "definition": {"key": 5, "values": "x", "matcher": "eq", "from": "a"}},
           "consequences": [{"id": "c", "type": 2, "detail": {}}, {"id": "d", "type": "add", "detail": []}, 4]},
          {"condition": {"type": "group", "definition": {"logic": "and", "conditions": {"a": 1}}}, "consequences": []},
          {"condition": {"type": "historical", "definition": {"events": [1, {"a": 2}], "from": 1.5, "to": 2.0,
           "searchType": null, "colour": null, "valu": 1}}, "consequences": [], "meta": null}
        ]}
        """,
        """
        {"version": 1, "rules": [{"meta": {"name": "é → \\u00e9", "id": null}, "condition": {"type": "matcher",
          "definition": {"key": "caf\\u00e9", "matcher": "eq", "values": ["naïve", 1, 2.5e3, true, null, {"x": []}]}},
          "consequences": [{"id": "ü", "type": "add", "detail": {"eventdata": {"a.b": "\\"ß\\"", "n": -0.0}}}],
          "name": "ünïcode", "enabled": false, "description": "d", "id": "r1"}]}
        """,
        // Minified, one line: columns run on along it.
        #"{"version":1,"rules":[{"condition":{"type":"matcher","definition":{"key":"k","matcher":"eq","values":["ä"]}},"consequences":[{"id":"c","type":"add","detail":{"x":1}}]},{"condition":{"type":"group","definition":{"logic":"or","conditions":[{"type":"matcher","definition":{"key":1}}]}},"consequences":[]}]}"#,
        "\r\n  \t{\"version\": 1,\r\n \"rules\": [{\"condition\": {\"type\": \"x\"}, \"consequences\": []}]}\n",
    ]

    @Test(arguments: located.indices)
    func problemsAreFoundWhereTheDocumentFindsThem(_ i: Int) throws {
        let bytes = Array(Self.located[i].utf8)
        #expect(Self.taped(bytes) == (i > 0), "case \(i): the tape takes every object")
        try Self.expectSame(bytes)
    }

    /// The texts the tape does not take are read as documents: same answers, same errors.
    @Test func textsTheTapeRefusesGiveTheDocumentsAnswers() throws {
        let refused = [
            #"{"version": 1, "rules": [], "rules": []}"#,
            #"{"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {"k\u0065y": "a"}}, "consequences": []}]}"#,
            #"{"version": 1, "rules": [{"condition": {"tÿpe": "matcher"}, "consequences": []}]}"#,
        ]
        for text in refused {
            let bytes = Array(text.utf8)
            #expect(!Self.taped(bytes))
            try Self.expectSame(bytes)
        }
        let broken = Array(#"{"version": 1, "rules": [}"#.utf8)
        #expect(throws: DiagnosticError.self) { try LaunchRulesLoader.load(json: broken, file: "b.json") }
        #expect(throws: DiagnosticError.self) { try RuleSetLoader.load(json: broken, file: "b.json") }
    }

    @Test func theFixturesLoadAlike() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        for name in ["launch-broken.json", "launch-warnings.json"] {
            let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
            #expect(Self.taped(bytes))
            try Self.expectSame(bytes, file: name)
        }
    }

    /// RuleKit rules written as JSON are loaded from the tape too, alike.
    @Test func ruleKitRulesInJSONLoadAlike() throws {
        let text = #"{"version": 1, "rules": [{"id": "r", "when": {"key": "a", "eq": 1}, "then": [{"add": {"data": {"x": 1}}}]}]}"#
        #expect(Self.taped(Array(text.utf8)))
        let viaJSON = try RuleSetLoader.load(json: Array(text.utf8), file: "k.json")
        let viaDocument = RuleSetLoader.load(try JSONReader.read(Array(text.utf8), file: "k.json", keepSourceMap: true))
        #expect(viaJSON.ruleSet == viaDocument.ruleSet)
        #expect(viaJSON.diagnostics == viaDocument.diagnostics)
        #expect(viaJSON.ruleSet?.rules.first?.id == "r")
    }

    // MARK: YAML

    /// Loads YAML from its tape and from its document: both results, or nil for the tape's when the tape
    /// does not hold the text.
    static func yamlLoads(_ bytes: [UInt8], file: String) throws -> (tape: RulesLoadResult?, document: RulesLoadResult) {
        let document = try YAMLReader.read(bytes, file: file)
        let reference = RuleSetLoader.load(document)
        let withWarnings = RulesLoadResult(ruleSet: reference.ruleSet, diagnostics: document.warnings + reference.diagnostics)
        guard let (tape, warnings) = YAMLReader.tape(bytes, file: file), let r = RuleSetLoader.load(tape: tape, file: file) else {
            return (nil, withWarnings)
        }
        return (RulesLoadResult(ruleSet: r.ruleSet, diagnostics: warnings + r.diagnostics), withWarnings)
    }

    static func expectSameYAML(_ bytes: [UInt8], file: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let (tape, document) = try yamlLoads(bytes, file: file)
        let fromTape = try #require(tape, "\(file): the tape holds it", sourceLocation: sourceLocation)
        #expect(fromTape.ruleSet == document.ruleSet, "\(file)", sourceLocation: sourceLocation)
        #expect(fromTape.diagnostics == document.diagnostics, "\(file)", sourceLocation: sourceLocation)
    }

    /// Problems at every level of a RuleKit-format file, and Launch rules in YAML.
    static let locatedYAML: [String] = [
        """
        version: one
        rulez: []
        rules:
          - id: a
            when: {key: x, eq: [1, {no: 2}]}
            then: [{add: {data: {y: 1}}}, {mod: 3}, {dispatch: {type: t, source: s, action: move}}]
          - when: [{any: 3}, {group: {logic: xor, conditions: []}}, {key: k, matcher: eqq}, {key: k}]
            then: {add: {}}
            enabled: maybe
            meta: 3
          - id: a
            when: {history: {events: [{a: 1}], matcher: gt, value: 1, searchType: sometimes}}
            then: [{history: {operation: insert, content: {}}}, {type: 1}, {id: 2, add: {a: 1}, mod: {b: 1}}]
          - when: {key: 3, ex: true}
            then: []
            colour: red
          - 7
        dataElements:
          a: {path: x.y, type: int, extra: 1}
          b: 3
          c: {type: strin}
        """,
        """
        version: 1
        rules:
          - name: launch rule
            condition:
              type: group
              definition: {logic: and, conditions: [{type: matcher, definition: {key: k, matcher: eq, values: [yes]}}]}
            consequences: [{id: c, type: add, detail: {eventdata: {a: 1}}}]
            colour: red
        """,
        "shared:\n  c: &c {key: a, eq: 1}\nrules:\n  - id: r\n    when: [*c, {all: [*c]}]\n    then: [{add: {data: &d {x: [1, 2]}}}, {mod: {data: *d}}]\n",
    ]

    @Test(arguments: locatedYAML.indices)
    func yamlProblemsAreFoundWhereTheDocumentFindsThem(_ i: Int) throws {
        try Self.expectSameYAML(Array(Self.locatedYAML[i].utf8), file: "r.yaml")
    }

    /// The fixtures and the shipped rules.
    @Test func theYAMLFixturesAndShippedRulesLoadAlike() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let repo = here.deletingLastPathComponent().deletingLastPathComponent()
        var files = ["bad-structure.yaml", "bad-values.yaml", "unknown-matcher.yaml"].map { here.appendingPathComponent("Fixtures/\($0)") }
        for folder in ["Rules", "Examples"] {
            let dir = repo.appendingPathComponent(folder)
            for case let f as String in FileManager.default.enumerator(atPath: dir.path) ?? FileManager.DirectoryEnumerator()
            where f.hasSuffix(".yaml") && !f.contains(".test.") {
                files.append(dir.appendingPathComponent(f))
            }
        }
        #expect(files.count >= 6)
        for url in files {
            try Self.expectSameYAML(Array(try Data(contentsOf: url)), file: url.lastPathComponent)
        }
    }

    /// What the tape does not hold (a merge key, a tag) is loaded from the document: `RuleFiles` gives the
    /// document's answer, warnings first.
    @Test func yamlTheTapeDoesNotHoldIsLoadedFromTheDocument() throws {
        let text = "rules:\n  - id: r\n    when: {<<: {key: a}, eq: !!int '1'}\n    then: [{add: {x: on}}]\n"
        let bytes = Array(text.utf8)
        let (tape, document) = try Self.yamlLoads(bytes, file: "m.yaml")
        #expect(tape == nil)
        let (set, found) = RuleFiles.parse(bytes, file: "m.yaml")
        #expect(set == document.ruleSet)
        #expect(found == document.diagnostics)
        #expect(set?.rules.first?.condition.definition.values == [.int(1)])
    }

    /// Every rule set of the aep-rules corpus and the benchmark's rule files, written compact and pretty.
    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the corpus rule sets are not compared"))
    func theCorpusRuleSetsLoadAlike() throws {
        let dir = try #require(SharedCorpus.folder("corpora/aep-rules"))
        var compared = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where f.hasSuffix(".json") {
            let bytes = try #require(SharedCorpus.bytes(dir.appendingPathComponent(f)))
            guard let rules = try JSONReader.read(bytes, file: f).value["rules"], rules != .null else { continue }
            for options in [JSONWriter.Options(), .pretty] {
                var text: [UInt8] = []
                JSONWriter.write(rules, to: &text, options: options)
                try Self.expectSame(text, file: f)
                compared += 1
            }
        }
        #expect(compared > 100)
        let bench = try #require(SharedCorpus.folder("bench"))
        for name in ["rules-10.json", "rules-1000.json"] {
            let bytes = try #require(SharedCorpus.bytes(bench.appendingPathComponent(name)))
            #expect(Self.taped(bytes))
            try Self.expectSame(bytes, file: name)
        }
        let yaml = try #require(SharedCorpus.bytes(bench.appendingPathComponent("rules-10k.yaml")))
        try Self.expectSameYAML(yaml, file: "rules-10k.yaml")
    }
}
