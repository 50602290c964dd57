import Foundation
import RuleKitCore
import RuleKitSources
import RuleKitTestSupport
import RuleKitXDM
import RuleKitYAML
import Testing

@testable import RuleKitTooling

/// Rule tests read like rules (issue 19): a typed loader whose unknown keys are located errors, so a
/// misspelled `expect:` can no longer make a case pass by testing nothing; expectations per event.
@Suite struct RuleTestFileTests {
    static func write(_ text: String, name: String = "x.test.yaml") throws -> String {
        let dir = Scratch.url("rk-tests-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aMisspelledExpectationIsALocatedError() throws {
        let path = try Self.write(
            """
            rules: r.yaml
            cases:
              - name: typo
                events: [{type: t, source: s}]
                expcet: {fired: [a]}
            """)
        let (file, found) = RuleTestFile.load(path: path)
        #expect(file == nil)
        let typo = try #require(found.first { $0.message.contains("'expcet'") })
        #expect(typo.message.contains("did you mean 'expect'?"))
        #expect(typo.location?.line == 5)
        #expect(found.contains { $0.message.contains("expects nothing") })
    }

    @Test func aMisspelledEventsKeyIsAnError() throws {
        let (file, found) = RuleTestFile.load(path: try Self.write("cases:\n  - name: x\n    evnts: []\n    expect: {fired: []}\n"))
        #expect(file == nil)
        #expect(found.contains { $0.message.contains("unknown key 'evnts'") })
        #expect(found.contains { $0.message.contains("needs 'events'") })
    }

    @Test func anEmptyFileSaysWhatIsMissing() throws {
        let (_, found) = RuleTestFile.load(path: try Self.write(""))
        #expect(found.first?.location?.line == 1)
        #expect(found.contains { $0.message.contains("needs 'cases'") })
    }

    @Test func expectationsPerEventAndPerCase() throws {
        let dir = Scratch.url("rk-tests-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try """
        rules:
          - {id: a, when: {key: n, eq: 1}, then: []}
          - {id: b, when: {key: n, eq: 2}, then: []}
        """.write(to: dir.appendingPathComponent("r.yaml"), atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("r.test.yaml").path
        try """
        cases:
          - name: both events count
            events:
              - {type: t, source: s, data: {n: 1}, expect: {fired: [a]}}
              - {type: t, source: s, data: {n: 2}, expect: {fired: [b], notFired: [a]}}
            expect: {fired: [a, b]}
          - name: a wrong per-event expectation fails
            events:
              - {type: t, source: s, data: {n: 1}, expect: {fired: [b]}}
              - {type: t, source: s, data: {n: 2}}
            expect: {fired: [a, b]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let (loaded, found) = RuleTestFile.load(path: path)
        let file = try #require(loaded, "\(found)")
        let rules = RuleSnapshot.load(file.rulesPaths())
        let results = RuleTestRunner.run(file, rules)
        #expect(results.map(\.passed) == [true, false])
        #expect(results[1].problems == [#"event 1: fired ["a"], expected ["b"]"#])
    }

    @Test func theShippedTestsFitTheLoaderAndTheSchema() throws {
        let schema = try JSONSchemaValidator(schema: try JSONReader.value(RuleTestSchema.json))
        let rules = SharedCorpus.repositoryRoot.appendingPathComponent("Rules")
        var seen = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: rules.path) where name.hasSuffix(".test.yaml") {
            let path = rules.appendingPathComponent(name).path
            let (file, found) = RuleTestFile.load(path: path)
            #expect(file != nil, "\(name): \(found)")
            let doc = try YAMLReader.read(try ByteInput.readAll(path), file: path)
            #expect(schema.validate(doc.value).isEmpty, "\(name): \(schema.validate(doc.value))")
            seen += 1
        }
        #expect(seen == 2)
        // The schema refuses what the loader refuses.
        #expect(!schema.isValid(try JSONReader.value(#"{"cases": [{"events": [{}], "expcet": {}}]}"#)))
    }
}
