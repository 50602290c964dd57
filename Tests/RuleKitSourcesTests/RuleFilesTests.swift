import Foundation
import RuleKitCore
import RuleKitRules
import RuleKitSources
import RuleKitTestSupport
import RuleKitYAML
import Testing

/// `RuleFiles`: the documents a one-shot command keeps until its end are the ones read (YAML: JSON is read
/// into a tape), and keeping them changes nothing that is loaded.
@Suite struct RuleFilesTests {
    @Test func keptDocumentsAreTheOnesReadAndChangeNothing() throws {
        let dir = Scratch.url("rk-rulefiles-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let yaml = """
            version: 1
            rules:
            - name: yaml rule
              condition: {type: matcher, definition: {key: a, matcher: eq, values: [1]}}
              consequences: [{id: c1, type: add, detail: {eventdata: {x: 1}}}]
            """
        // A merge key: YAML the tape leaves to the document reader.
        let merged = """
            version: 1
            rules:
            - <<: {enabled: true}
              condition: {type: matcher, definition: {key: e, matcher: ex}}
              consequences: []
            """
        let json = """
            {"version": 1, "rules": [{"condition": {"type": "matcher",
              "definition": {"key": "b", "matcher": "ex"}}, "consequences": []}]}
            """
        // Read, but its rules do not load (a document all the same); and text that is no document at all.
        let wrongShape = #"{"version": "one", "rules": {}}"#
        let notJSON = #"{"version": 1,"#
        for (name, text) in [("a.yaml", yaml), ("b.json", json), ("c.json", wrongShape), ("d.json", notJSON), ("e.yaml", merged)] {
            try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        var plain = RuleFiles()
        plain.load([dir.path])
        var keeping = RuleFiles()
        keeping.keepsDocuments = true
        keeping.load([dir.path])

        #expect(plain.documents.isEmpty)
        // JSON rules, and YAML the tape holds, are read into a tape, not a document: only the YAML with a
        // merge key is kept.
        #expect(keeping.documents.map(\.value) == [try YAMLReader.read(merged).value])
        #expect(keeping.documents.allSatisfy { $0.sourceMap != nil })
        #expect(keeping.sets.map(\.set) == plain.sets.map(\.set))
        #expect(keeping.sets.count == 3)
        #expect(keeping.diagnostics == plain.diagnostics)
        #expect(keeping.diagnostics.contains { $0.location?.file.hasSuffix("d.json") == true && $0.severity == .error })
    }
}
