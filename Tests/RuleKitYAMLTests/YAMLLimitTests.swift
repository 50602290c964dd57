import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitYAML

/// Hostile documents stop with a bounded, located error: never a crash, hang or unbounded memory.
@Suite struct YAMLLimitTests {
    static func billionLaughs(levels: Int) -> String {
        var s = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for i in 1..<levels {
            let refs = Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ")
            s += "a\(i): &a\(i) [\(refs)]\n"
        }
        return s
    }

    @Test func billionLaughsHitsTheAliasExpansionBudget() {
        let limits = ReaderLimits(maxNodes: 1_000_000)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            do {
                _ = try YAMLReader.read(Self.billionLaughs(levels: 10), limits: limits)
                Issue.record("an alias bomb was accepted")
            } catch let error as DiagnosticError {
                #expect(error.diagnostics[0].code == .limitExceeded)
                #expect(error.diagnostics[0].message.contains("alias expansion"))
                #expect(error.diagnostics[0].location != nil)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(elapsed < .seconds(5))
    }

    @Test func modestAliasUseIsFine() throws {
        let v = try YAMLReader.read(Self.billionLaughs(levels: 3)).value
        #expect(v["a2"]?.arrayValue?.count == 10)
    }

    @Test func nestedAnchorsFarUnderTheNodeLimitAreRefusedByRatio() {
        // Issue 15: 518 bytes of rules whose anchors nest loaded into ~300,000 matchers (2 GB). The
        // expansion stays under `maxNodes` but is far over 10× what the document writes out.
        var s = "defs:\n  - &l0 {key: a, eq: 1}\n"
        for i in 1...5 {
            s += "  - &l\(i) {all: [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ", ") + "]}\n"
        }
        s += "rules:\n  - {id: bomb, when: *l5, then: []}\n"
        #expect(s.utf8.count < 520)
        #expect {
            try YAMLReader.read(s)
        } throws: { error in
            guard let d = (error as? DiagnosticError)?.diagnostics.first else { return false }
            return d.code == .limitExceeded && d.message.contains("alias expansion") && d.location?.line != nil
        }
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the bench corpus is not run"))
    func theBenchmarkRulesStayUnderTheExpansionRatio() throws {
        guard let bench = SharedCorpus.folder("bench") else {
            Issue.record("../shared is here but bench is not")
            return
        }
        let bytes = try [UInt8](Data(contentsOf: bench.appendingPathComponent("rules-10k.yaml")))
        #expect(throws: Never.self) { try YAMLReader.read(bytes) }
    }

    @Test func deepNestingIsRefused() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        do {
            _ = try YAMLReader.read(deep, limits: ReaderLimits(maxDepth: 200))
            Issue.record("accepted")
        } catch {
            #expect(error.diagnostics[0].code == .limitExceeded)
            #expect(error.diagnostics[0].message.contains("nesting"))
        }
    }

    @Test func deepBlockNestingIsRefusedToo() {
        var s = ""
        for i in 0..<300 { s += String(repeating: " ", count: i) + "k:\n" }
        #expect(throws: DiagnosticError.self) { try YAMLReader.read(s, limits: ReaderLimits(maxDepth: 100)) }
    }

    @Test func oversizedScalarIsRefused() {
        let big = "v: " + String(repeating: "x", count: 10_000)
        do {
            _ = try YAMLReader.read(big, limits: ReaderLimits(maxScalarBytes: 1_000))
            Issue.record("accepted")
        } catch {
            #expect(error.diagnostics[0].code == .limitExceeded)
        }
    }

    @Test func oversizedDocumentIsRefusedBeforeParsing() {
        let doc = String(repeating: "a: 1\n", count: 1)
        #expect(throws: DiagnosticError.self) {
            try YAMLReader.read(doc + String(repeating: "#\n", count: 100), limits: ReaderLimits(maxDocumentBytes: 50))
        }
    }
}

/// Found by fuzz-yaml: libyaml puts the end of a text without a final line break on a line after the
/// last; diagnostics and empty nodes there now point at the end of the text.
@Suite struct YAMLEndPositionTests {
    @Test func aSyntaxErrorAtTheEndPointsInsideTheText() {
        #expect {
            try YAMLReader.read("  [1, 1, 3`  \n  ")
        } throws: { error in
            guard let l = (error as? DiagnosticError)?.diagnostics.first?.location else { return false }
            return l.line == 2 && l.column == 3
        }
        // Columns count characters: the end of "♥ x\nWWW" is line 2, column 4.
        #expect {
            try YAMLReader.read("---\nw: love'\u{2665} and\nWWWWWW")
        } throws: { error in
            guard let l = (error as? DiagnosticError)?.diagnostics.first?.location else { return false }
            return l.line == 3 && l.column == 7
        }
    }

    /// Found by fuzz-yaml: a merge key whose value is the empty node at the end of a text without a final
    /// line break was located on a line after the last.
    @Test func anErrorOnTheEmptyNodeAtTheEndPointsAtTheEnd() {
        #expect {
            try YAMLReader.read("{  <<")
        } throws: { error in
            guard let l = (error as? DiagnosticError)?.diagnostics.first?.location else { return false }
            return l.line == 1 && l.column == 6
        }
    }

    @Test func anEmptyNodeAtTheEndPointsAtTheEnd() throws {
        let docs = try YAMLReader.readAll(Array("---'\n---\n\n---".utf8))
        let last = try #require(docs.last)
        #expect(last.value == .null)
        #expect(last.root.location?.line == 4)
    }
}
