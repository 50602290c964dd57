import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitYAML

/// The event pull on a second thread (`EventPipe.swift`) against its plain reference, the same batches
/// pulled and built on one thread: same documents (values, source maps, warnings) or the same error.
@Suite struct YAMLPipelineTests {
    /// Everything a read gives, as text that differs whenever the results differ.
    static func outcome(_ bytes: [UInt8], pipelined: Bool, limits: ReaderLimits = .default) -> String {
        do {
            let docs = try LibYAMLParser.parse(bytes, file: "in.yaml", limits: limits, pipelined: pipelined)
            return docs.map { d in
                "\(d.value)\n\(d.sourceMap?.entries.map { "\($0)" } ?? [])\n\(d.warnings.map(\.description))"
            }.joined(separator: "\n---\n")
        } catch {
            return "error: \(error.diagnostics.map(\.description))"
        }
    }

    /// Expects both paths to agree, and the read to fail (`fails`) or not.
    static func expectSame(_ text: String, fails: Bool, limits: ReaderLimits = .default, _ comment: Comment? = nil) {
        let bytes = Array(text.utf8)
        let sequential = outcome(bytes, pipelined: false, limits: limits)
        let pipelined = outcome(bytes, pipelined: true, limits: limits)
        #expect(sequential == pipelined, comment)
        #expect(sequential.hasPrefix("error: ") == fails, comment)
    }

    /// A rules-like document of `n` mappings, with anchors, aliases, merge keys, tags, flow collections,
    /// quoted and block scalars and YAML 1.1 booleans: many batches' worth of every kind of event.
    static func large(_ n: Int) -> String {
        var s = "shared:\n  base: &base {type: matcher, matcher: eq}\n  list: &list [a, b, c]\nrules:\n"
        for i in 0..<n {
            s += """
                - name: 'rule \(i)'
                  <<: *base
                  enabled: \(i % 3 == 0 ? "yes" : "true")
                  priority: !!int "\(i)"
                  values: *list
                  ratio: \(Double(i) / 7)
                  text: |
                    line one of \(i)
                    line two
                  nested: {a: [1, 2, {b: "q\\u00e9\(i)"}], c: ~}

                """
        }
        return s
    }

    @Test func largeDocumentsBuildTheSameOnBothPaths() {
        let text = Self.large(3000)
        #expect(text.utf8.count > LibYAMLParser.pipelineThreshold)
        Self.expectSame(text, fails: false)
        // Scalars of megabytes between ordinary events (a batch lets such room go when it is reused).
        let big = String(repeating: "x", count: 3 << 20)
        Self.expectSame("big: \(big)\nbigger: '\(big)\(big)'\n" + Self.large(1500), fails: false)
        // Several documents in one stream, with a batch boundary inside each.
        Self.expectSame(Self.large(700) + "---\n" + Self.large(900) + "...\n--- plain\n", fails: false)
    }

    @Test func smallAndEmptyInputsBuildTheSameOnBothPaths() {
        for text in ["", "a", "- 1\n- 2\n", "{a: 1, b: [x, y]}", "--- [1]\n--- {a: &y 2, b: *y}\n", "a: yes\n"] {
            Self.expectSame(text, fails: false, "\(text.debugDescription)")
        }
    }

    @Test func errorsEarlyAndLateAreTheSameOnBothPaths() {
        // Found by the builder while the pull is batches ahead of it.
        Self.expectSame("a: 1\na: 2\n" + Self.large(2000), fails: true)
        Self.expectSame("x: *nowhere\n" + Self.large(2000), fails: true)
        // Found by libyaml near the end of a large input.
        Self.expectSame(Self.large(2000) + "- [unclosed\n", fails: true)
        Self.expectSame(Self.large(2000) + "bad: [1, 2\n", fails: true)
        // A builder error after many batches.
        Self.expectSame(Self.large(2000) + "rules: again\n", fails: true)
    }

    @Test func limitsStopBothPathsAlike() {
        // Ten to the ninth nodes by aliases: stopped by the alias expansion limit.
        var bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...8 { bomb += "l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        Self.expectSame(bomb, fails: true)
        var limits = ReaderLimits.default
        limits.maxNodes = 5000
        Self.expectSame(Self.large(2000), fails: true, limits: limits)
        limits = .default
        limits.maxDepth = 3
        Self.expectSame(Self.large(2000), fails: true, limits: limits)
    }

    @Test func theReaderPipelinesLargeInputsOnTwoCores() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(LibYAMLParser.pipelines(size: LibYAMLParser.pipelineThreshold) == (cores > 1))
        #expect(!LibYAMLParser.pipelines(size: LibYAMLParser.pipelineThreshold - 1))
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the YAML test suite is not run"))
    func everyYAMLTestSuiteCaseBuildsTheSameOnBothPaths() throws {
        let root = try #require(SharedCorpus.folder("corpora/yaml-test-suite"))
        let index = try String(contentsOf: root.appendingPathComponent("index.tsv"), encoding: .utf8)
        var cases = 0
        for line in index.split(separator: "\n").dropFirst() {
            guard let id = line.split(separator: "\t").first.map(String.init),
                let input = SharedCorpus.bytes(root.appendingPathComponent("data/\(id)/in.yaml"))
            else { continue }
            cases += 1
            #expect(
                Self.outcome(input, pipelined: false) == Self.outcome(input, pipelined: true), "yaml-test-suite \(id)")
        }
        #expect(cases == 373)
    }
}
