import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitYAML

/// YAML read into a tape (`YAMLReader.tape`) against its plain reference, the document `read` builds from
/// the same events: the same value, the same warnings, and every node where the source map puts it (a
/// value where its entry is, a key where its entry's key is). A text the tape does not hold gives nil.
@Suite struct YAMLTapeTests {
    /// Why the tape of `bytes` differs from its document; nil when it agrees, or when there is no tape.
    /// `taped` says whether there was one.
    static func disagreement(_ bytes: [UInt8], limits: ReaderLimits = .default, taped: inout Bool) -> String? {
        let sequential = YAMLReader.tape(bytes, file: "in.yaml", limits: limits, pipelined: false)
        let pipelined = YAMLReader.tape(bytes, file: "in.yaml", limits: limits, pipelined: true)
        guard let (tape, warnings) = sequential else {
            taped = false
            return pipelined == nil ? nil : "the pipelined pull made a tape, the sequential one none"
        }
        taped = true
        guard let other = pipelined else { return "the sequential pull made a tape, the pipelined one none" }
        guard "\(other.tape.object())" == "\(tape.object())", other.warnings == warnings else {
            return "the two pulls made different tapes"
        }
        let docs: [Document]
        do { docs = try YAMLReader.readAll(bytes, file: "in.yaml", limits: limits) } catch {
            return "a tape, but the document reader fails: \(error.diagnostics)"
        }
        guard docs.count == 1, let doc = docs.first else { return "a tape of \(docs.count) documents" }
        guard "\(Value.object(tape.object()))" == "\(doc.value)" else { return "values differ: \(tape.object()) vs \(doc.value)" }
        guard warnings == doc.warnings else { return "warnings differ: \(warnings) vs \(doc.warnings)" }
        return tape.withUnsafeView { view in
            guard view.positions.count == view.nodes.count else { return "positions missing" }
            return positions(view, 0, doc.root)
        }
    }

    /// Compares node `i`'s subtree with the cursor's: locations of values, key locations of members.
    static func positions(_ v: UnsafeTapeView, _ i: Int, _ c: ValueCursor) -> String? {
        let p = v.positions[i]
        guard let at = c.location, at.line == Int(p.line), at.column == Int(p.column) else {
            return "\(c.pointer): tape at \(p.line):\(p.column), document at \(String(describing: c.location))"
        }
        switch v.nodes[i].kind {
        case .object:
            var k = i + 1
            for (key, child) in c.members {
                guard String(decoding: v.bytes(k), as: UTF8.self) == key else { return "\(child.pointer): key differs" }
                let kp = v.positions[k]
                guard let ka = child.keyLocation, ka.line == Int(kp.line), ka.column == Int(kp.column) else {
                    return "\(child.pointer): key at \(kp.line):\(kp.column), document at \(String(describing: child.keyLocation))"
                }
                if let problem = positions(v, k + 1, child) { return problem }
                k = v.next(k + 1)
            }
        case .array:
            var e = i + 1
            for child in c.elements {
                if let problem = positions(v, e, child) { return problem }
                e = v.next(e)
            }
        default:
            break
        }
        return nil
    }

    static func expectTaped(_ text: String, _ taped: Bool = true, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        var was = false
        let problem = disagreement(Array(text.utf8), taped: &was)
        #expect(problem == nil, "\(text.debugDescription)", sourceLocation: sourceLocation)
        #expect(was == taped, "\(text.debugDescription): taped \(was)", sourceLocation: sourceLocation)
    }

    @Test func mappingsOfEveryScalarAndCollectionAreTaped() {
        Self.expectTaped("a: 1\nb: -2.5e3\nc: true\nd: ~\ne: null\nf: 'quoted'\ng: \"dq \\u00e9\"\nh: plain text\n")
        Self.expectTaped("list: [1, two, {three: 3}]\nnested:\n  deeper:\n    - x\n    - - y\n      - z\n  empty: {}\n  none: []\n")
        Self.expectTaped("text: |\n  line one\n  line two\nfolded: >\n  a\n  b\n")
        Self.expectTaped("k:\nj: \"\"\n''\n: empty key\n".replacingOccurrences(of: "''\n: empty key\n", with: "'': empty key\n"))
        Self.expectTaped("{a: 1, 'b.c': 2, \"d\": [], 0x1F: hex, 1e3: num, .inf: x, ~: nullkey}")
        Self.expectTaped("é: not a key the tape takes\n", false)
        Self.expectTaped("a: naïve ünïcode value\nb: [ß, 日本]\n")
        // YAML 1.1 booleans stay strings, with the document's warnings.
        Self.expectTaped("a: yes\nb: 'no'\nc: [on, off, y]\n")
        // The end of a text without a final line break: an empty value there.
        Self.expectTaped("a: 1\nb:")
        Self.expectTaped("a: 1\nb:\n")
    }

    @Test func aliasesAreCopiesWhoseNodesTakeTheAliasPosition() {
        Self.expectTaped("base: &b {x: 1, y: [2, {z: 3}]}\nuse: *b\nlist:\n  - *b\n  - &s scalar\n  - *s\nagain: *s\n")
        Self.expectTaped("a: &l [1, [2, 3]]\nb: &m {k: *l}\nc: [*m, *m]\n")
        // An anchor redefined: the alias after it copies the later one.
        Self.expectTaped("a: &x 1\nb: *x\nc: &x {y: 2}\nd: *x\n")
        // A large anchored object (its member index is copied with it).
        var big = "big: &big\n"
        for i in 0..<120 { big += "  k\(i): \(i)\n" }
        Self.expectTaped(big + "copy: *big\nin: [*big]\n")
    }

    @Test func whatTheTapeDoesNotHoldIsLeftToTheDocument() {
        for text in [
            "- a\n- b\n",  // not a mapping
            "plain",
            "",
            "a: 1\n---\nb: 2\n",  // two documents
            "a: 1\na: 2\n",  // a repeated key (the document's error)
            "a: !!str 1\n",  // a tag
            "a: !custom x\n",
            "base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n",  // a merge key
            "&k a: 1\nb: *k\n",  // an anchor on a key
            "a: &v x\n*v : 1\n",  // an alias as a key
            "? [complex]\n: 1\n",
            "a: *nowhere\n",
            "a: [1, 2\n",  // a syntax error
            "ключ: 1\n",
        ] {
            Self.expectTaped(text, false)
        }
        var repeated = ""
        for i in 0..<100 { repeated += "k\(i): \(i)\n" }
        Self.expectTaped(repeated + "k7: again\n", false)
        Self.expectTaped(repeated)
    }

    @Test func limitsRefuseAsTheDocumentDoes() {
        var limits = ReaderLimits.default
        limits.maxDepth = 3
        var taped = false
        #expect(Self.disagreement(Array("a: {b: {c: 1}}\n".utf8), limits: limits, taped: &taped) == nil)
        #expect(taped)
        #expect(Self.disagreement(Array("a: {b: {c: {d: 1}}}\n".utf8), limits: limits, taped: &taped) == nil)
        #expect(!taped)
        limits = .default
        // The map, two keys, the list and its three elements, and the alias's four: 11 nodes.
        limits.maxNodes = 11
        #expect(Self.disagreement(Array("a: &x [1, 2, 3]\nb: *x\n".utf8), limits: limits, taped: &taped) == nil)
        #expect(taped)
        let over = Array("a: &x [1, 2, 3]\nb: *x\nc: *x\n".utf8)
        #expect(Self.disagreement(over, limits: limits, taped: &taped) == nil)
        #expect(!taped)
        #expect(throws: DiagnosticError.self) { try YAMLReader.read(over, limits: limits) }
        limits = .default
        limits.maxScalarBytes = 4
        #expect(Self.disagreement(Array("a: 1234\n".utf8), limits: limits, taped: &taped) == nil && taped)
        #expect(Self.disagreement(Array("a: 12345\n".utf8), limits: limits, taped: &taped) == nil && !taped)
    }

    /// The generated document of `YAMLPipelineTests` without its merge keys and tags, past the size from
    /// which the pull runs on a second thread.
    @Test func largeDocumentsAreTapedAlike() {
        let text = YAMLPipelineTests.large(3000)
            .replacingOccurrences(of: "  <<: *base\n", with: "  base: *base\n")
            .replacingOccurrences(of: "!!int ", with: "")
        #expect(text.utf8.count > LibYAMLParser.pipelineThreshold)
        Self.expectTaped(text)
    }

    /// Every case of the YAML test suite: where a tape is made, it agrees with the document.
    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the YAML test suite is not run against the tape"))
    func theYAMLTestSuiteTapesAgreeWithItsDocuments() throws {
        let root = try #require(SharedCorpus.folder("corpora/yaml-test-suite"))
        let index = try String(contentsOf: root.appendingPathComponent("index.tsv"), encoding: .utf8)
        var taped = 0
        var cases = 0
        for line in index.split(separator: "\n").dropFirst() {
            guard let id = line.split(separator: "\t").first.map(String.init) else { continue }
            guard let input = SharedCorpus.bytes(root.appendingPathComponent("data/\(id)/in.yaml")) else { continue }
            cases += 1
            var was = false
            if let problem = Self.disagreement(input, taped: &was) { Issue.record("\(id): \(problem)") }
            if was { taped += 1 }
        }
        print("yaml-test-suite through the tape: \(taped) of \(cases) cases taped, every one agreeing with its document")
        #expect(cases == 373)
        #expect(taped > 60)
    }

    /// The benchmark's rules file (anchors and aliases, flow and block, 9 MB) is taped, alike.
    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: rules-10k.yaml is not read"))
    func theBenchmarkRulesAreTaped() throws {
        let bench = try #require(SharedCorpus.folder("bench"))
        let bytes = try #require(SharedCorpus.bytes(bench.appendingPathComponent("rules-10k.yaml")))
        var taped = false
        #expect(Self.disagreement(bytes, taped: &taped) == nil)
        #expect(taped)
    }
}
