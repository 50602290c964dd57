import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitRules

/// The Launch rules conformance corpus, run as data: every case must pass, or be listed with its reason
/// in `aep-rules-expected-failures.tsv` (and the test fails when a listed case starts passing).
@Suite struct AEPRulesCorpusTests {
    static func expectedFailures() -> [String: String] {
        ExpectedFailures.load("aep-rules-expected-failures.tsv")
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the aep-rules corpus is not run"))
    func everyCasePassesOrIsAListedFailure() throws {
        let dir = try #require(SharedCorpus.folder("corpora/aep-rules"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        let expected = Self.expectedFailures()
        var passed = 0
        var failed: [String: [String]] = [:]
        for f in files {
            let bytes = try #require(SharedCorpus.bytes(dir.appendingPathComponent(f)))
            let c = try JSONReader.read(bytes, file: f).value.objectValue ?? [:]
            let problems = AEPRulesCorpus(c: c).run()
            if problems.isEmpty { passed += 1 } else { failed[f.replacingOccurrences(of: ".json", with: "")] = problems }
        }
        print("aep-rules: \(passed) passed, \(failed.count) failed (expected failures: \(expected.count)) of \(files.count)")
        for (name, problems) in failed.sorted(by: { $0.key < $1.key }) where expected[name] == nil {
            Issue.record("\(name): \(problems.joined(separator: "; "))")
        }
        for name in expected.keys.sorted() where failed[name] == nil {
            Issue.record("listed as an expected failure but passes now: \(name)")
        }
        #expect(files.count == 201)
    }

    /// The engine cases that have a hub form, run through a real hub with the rules extension: listeners
    /// must see what the bare engine produces. Differences a hub makes on purpose are listed with reasons.
    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the aep-rules corpus is not run"))
    func engineCasesBehaveTheSameThroughTheHub() throws {
        let dir = try #require(SharedCorpus.folder("corpora/aep-rules"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        let expected = ExpectedFailures.load("aep-rules-hub-expected-failures.tsv")
        var passed = 0
        var failed: [String: [String]] = [:]
        for f in files {
            let bytes = try #require(SharedCorpus.bytes(dir.appendingPathComponent(f)))
            let c = try JSONReader.read(bytes, file: f).value.objectValue ?? [:]
            guard AEPHubCase.eligible(c) else { continue }
            let problems = try AEPHubCase(c: c).run()
            if problems.isEmpty { passed += 1 } else { failed[f.replacingOccurrences(of: ".json", with: "")] = problems }
        }
        print(
            "aep-rules through the hub: \(passed) passed, \(failed.count) failed (expected failures: \(expected.count)) of \(passed + failed.count)"
        )
        for (name, problems) in failed.sorted(by: { $0.key < $1.key }) where expected[name] == nil {
            Issue.record("\(name): \(problems.joined(separator: "; "))")
        }
        for name in expected.keys.sorted() where failed[name] == nil {
            Issue.record("listed as an expected failure but passes now: \(name)")
        }
        #expect(passed + failed.count >= 40)
    }
}
