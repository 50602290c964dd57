import RuleKitCore
import Testing

@testable import RuleKitYAML

@Suite struct YAMLStructureTests {
    @Test func keyOrderIsKept() throws {
        let v = try YAMLReader.read("z: 1\na: 2\nm: 3\n").value
        #expect(v.objectValue?.keys == ["z", "a", "m"])
    }

    /// The reader tells each mapping whether a key has a dot (rules look dotted keys up only then).
    @Test func mappingsKnowWhetherAKeyHasADot() throws {
        let v = try YAMLReader.read(
            "plain: {a: 1, b: 2}\ndotted: {a: 1, x.y: 2}\nk: &k p.q\nviaAlias: {*k : 3}\nmerged: {<<: {m.n: 1}, c: 2}\n"
        ).value
        #expect(v["plain"]?.objectValue?.mayHaveDottedKeys == false)
        #expect(v["dotted"]?.objectValue?.mayHaveDottedKeys == true)
        #expect(v["viaAlias"]?.objectValue?.mayHaveDottedKeys == true)
        #expect(v["merged"]?.objectValue?.mayHaveDottedKeys == true)
        #expect(v.objectValue?.mayHaveDottedKeys == false)
    }

    @Test func anchorsAndAliasesCopyTheNode() throws {
        let v = try YAMLReader.read("base: &b {x: 1, y: [2]}\nuse: *b\n").value
        #expect(v["use"] == v["base"])
    }

    @Test func mergeKeysMergeAndExplicitKeysWin() throws {
        let yaml = """
            a: &a {x: 1, y: 1}
            b: &b {y: 2, z: 2}
            c:
              <<: [*a, *b]
              x: 9
            """
        let c = try #require(try YAMLReader.read(yaml).value["c"])
        #expect(c == ["x": 9, "y": 1, "z": 2])
    }

    @Test func mergeOfAScalarIsAnError() {
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("a: 1\nb:\n  <<: 3\n") }
    }

    @Test func duplicateKeysAreErrorsAtTheSecondKey() {
        do {
            _ = try YAMLReader.read("a: 1\nb: 2\na: 3\n", file: "d.yaml")
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.diagnostics.first?.code == .yamlDuplicateKey)
            #expect(error.diagnostics.first?.location == SourceLocation(file: "d.yaml", line: 3, column: 1))
        }
    }

    /// Keys compare as strings (canonical equivalence), as JSON keys do: "é" precomposed and decomposed
    /// are one key, though their bytes and lengths differ; ASCII keys that only share a length are two.
    @Test func duplicateKeysCompareAsStrings() {
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("caf\u{E9}: 1\nb: 2\ncafe\u{301}: 3\n") }
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("cafe\u{301}: 1\ncaf\u{E9}: 3\n") }
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("ab: 1\ncd: 2\nab: 3\n") }
        #expect(throws: Never.self) { try YAMLReader.read("ab: 1\ncd: 2\nef: 3\nabc: 4\n") }
        let many = (0..<40).map { "k\($0): \($0)" }.joined(separator: "\n")
        #expect(throws: DiagnosticError.self) { try YAMLReader.read(many + "\nk7: again\n") }
        #expect(throws: Never.self) { try YAMLReader.read(many + "\nk40: new\n") }
    }

    @Test func complexKeysAreRejected() {
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("? [a, b]\n: c\n") }
    }

    @Test func undefinedAliasIsAnError() {
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("a: *nope\n") }
    }

    @Test func multiDocumentStreamsGiveOneDocumentEach() throws {
        let docs = try YAMLReader.readAll(Array("--- 1\n--- {a: 2}\n---\n".utf8))
        #expect(docs.map(\.value) == [.int(1), ["a": 2], .null])
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("--- 1\n--- 2\n") }
    }

    @Test func emptyStreamIsNull() throws {
        #expect(try YAMLReader.read("").value == .null)
        #expect(try YAMLReader.readAll([]).isEmpty)
    }

    @Test func nonStringKeysBecomeTheirText() throws {
        let v = try YAMLReader.read("1: a\ntrue: b\n1.5: c\n").value
        #expect(v.objectValue?.keys == ["1", "true", "1.5"])
    }

    @Test func everyNodeCarriesItsSourcePosition() throws {
        let yaml = """
            rules:
              - id: first
                condition:
                  matcher: eq
                  values: [a, "b"]
            """
        let root = try YAMLReader.read(yaml, file: "r.yaml").root
        let rule = try #require(root["rules"]?[0])
        #expect(rule.location == SourceLocation(file: "r.yaml", line: 2, column: 5))
        let values = try #require(rule["condition"]?["values"])
        #expect(values.location == SourceLocation(file: "r.yaml", line: 5, column: 15))
        #expect(values[1]?.location == SourceLocation(file: "r.yaml", line: 5, column: 19))
        #expect(values.keyLocation == nil || values.keyLocation == SourceLocation(file: "r.yaml", line: 5, column: 7))
        let matcher = try #require(rule["condition"]?["matcher"])
        #expect(matcher.keyLocation == SourceLocation(file: "r.yaml", line: 4, column: 7))
        #expect(matcher.pointer == "/rules/0/condition/matcher")
    }

    @Test func nodesInsideAnAliasPointAtTheAlias() throws {
        let root = try YAMLReader.read("a: &x {k: [1, 2]}\nb: *x\n", file: "f").root
        #expect(root["b"]?["k"]?[1]?.location == SourceLocation(file: "f", line: 2, column: 4))
        #expect(root["a"]?["k"]?[1]?.location == SourceLocation(file: "f", line: 1, column: 15))
    }

    @Test func membersAndElementsWalkWithPositions() throws {
        let root = try YAMLReader.read("a: 1\nb: [x, y]\nc: {d: 2}\n", file: "f").root
        let members = root.members
        #expect(members.map(\.key) == ["a", "b", "c"])
        #expect(members.map { $0.value.location?.line } == [1, 2, 3])
        #expect(members[1].value.elements.map { $0.location?.column } == [5, 8])
    }

    @Test func syntaxErrorsAreLocated() {
        do {
            _ = try YAMLReader.read("a: [1, 2\nb: 3\n", file: "s.yaml")
            Issue.record("accepted")
        } catch {
            let d = error.diagnostics[0]
            #expect(d.code == .yamlSyntax)
            #expect(d.location?.file == "s.yaml")
            #expect((d.location?.line ?? 0) >= 1)
        }
    }
}
