import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitYAML

/// Runs every case of the YAML test suite (`../shared/corpora/yaml-test-suite`) as data.
///
/// A `json` case must load to the values of its `in.json`; an `error` case must fail with a located
/// diagnostic. Cases that libyaml 0.2.5 itself gets wrong are listed, with reasons, in
/// `yaml-test-suite-expected-failures.tsv`; the test fails when a listed case starts passing (so the
/// list never goes stale) or an unlisted one fails.
@Suite struct YAMLTestSuiteTests {
    struct Outcome {
        var passed: [String] = []
        var failed: [(String, String)] = []
    }

    static func expectedFailures() -> [String: String] {
        ExpectedFailures.load("yaml-test-suite-expected-failures.tsv")
    }

    /// Runs one case; nil when it behaves as the suite says, else why not.
    static func run(_ dir: URL, kind: String) -> String? {
        guard let input = SharedCorpus.bytes(dir.appendingPathComponent("in.yaml")) else { return "no in.yaml" }
        let result = Result { () throws(DiagnosticError) in try YAMLReader.readAll(input, file: "in.yaml") }
        switch (kind, result) {
        case ("error", .success):
            return "accepted invalid YAML"
        case ("error", .failure(let e)):
            guard let d = e.diagnostics.first, d.location != nil else { return "error without a location" }
            return nil
        case (_, .failure(let e)):
            return "rejected: \(e.diagnostics.first?.description ?? "?")"
        case (_, .success(let docs)):
            guard let expectedBytes = SharedCorpus.bytes(dir.appendingPathComponent("in.json")) else {
                return "no in.json"
            }
            let expected: [Value]
            do { expected = try JSONReader.readSequence(expectedBytes) } catch { return "bad in.json: \(error)" }
            let got = docs.map(\.value)
            guard got.count == expected.count else { return "\(got.count) documents, expected \(expected.count)" }
            for (g, x) in zip(got, expected) where !g.numericallyEquals(x) {
                return "got \(g), expected \(x)"
            }
            return nil
        }
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the YAML test suite is not run"))
    func everyCaseBehavesAsTheSuiteSaysOrIsAListedLibyamlFailure() throws {
        let root = try #require(SharedCorpus.folder("corpora/yaml-test-suite"))
        let index = try String(contentsOf: root.appendingPathComponent("index.tsv"), encoding: .utf8)
        let expected = Self.expectedFailures()
        var outcome = Outcome()
        for line in index.split(separator: "\n").dropFirst() {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cols.count >= 2 else { continue }
            let id = cols[0]
            let kind = cols[1]
            if let why = Self.run(root.appendingPathComponent("data").appendingPathComponent(id), kind: kind) {
                outcome.failed.append((id, why))
            } else {
                outcome.passed.append(id)
            }
        }
        let failedIDs = Set(outcome.failed.map(\.0))
        let unexpected = outcome.failed.filter { expected[$0.0] == nil }
        let nowPassing = expected.keys.filter { !failedIDs.contains($0) }.sorted()
        let total = outcome.passed.count + outcome.failed.count
        print(
            "yaml-test-suite: \(outcome.passed.count) passed, \(outcome.failed.count) failed (expected failures: \(expected.count)) of \(total)"
        )
        for (id, why) in unexpected { Issue.record("unexpected failure \(id): \(why)") }
        for id in nowPassing { Issue.record("listed as an expected failure but passes now: \(id) — remove it from the list") }
        #expect(total == 373)
    }
}
