import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitXDM

/// The benchmark workload as a correctness test: verdicts equal `expectValid`, and every injected error is
/// reported at its path (a missing required field at its parent object). Debug builds validate slowly, so
/// the test takes every invalid payload and every tenth valid one; the release benchmark checks all 10,000.
@Suite struct XDMBenchWorkloadTests {
    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the XDM benchmark workload is not checked"))
    func verdictsAndErrorPathsMatchTheWorkload() throws {
        let bench = try #require(SharedCorpus.folder("bench"))
        let schema = try JSONReader.read(try #require(SharedCorpus.bytes(bench.appendingPathComponent("xdm-experienceevent.bundled.json"))))
            .value
        let validator = try JSONSchemaValidator(schema: schema)
        var checked = 0
        var invalid = 0
        var tapes = 0
        for record in try JSONLinesReader(path: bench.appendingPathComponent("xdm-events-10k.jsonl").path) {
            let r = try record.get()
            let payload = try #require(r["xdm"])
            guard case .bool(let expected)? = r["expectValid"] else {
                Issue.record("record without expectValid")
                continue
            }
            let seq = r["seq"]?.intValue ?? 0
            if expected && seq % 10 != 0 { continue }
            let errors = validator.validate(payload)
            #expect(errors.isEmpty == expected, "seq \(r["seq"]!): \(errors.prefix(2))")
            #expect(validator.isValid(payload) == expected)
            // Read from a tape in place: the same verdict, and the same errors (made from the tape's object).
            if case .object(let o) = payload, let tape = JSONTape.of(o) {
                #expect(validator.isValid(tape) == expected)
                #expect(validator.validate(tape) == errors)
                tapes += 1
            }
            if !expected, let injected = r["injected"], let path = injected["path"]?.stringValue {
                invalid += 1
                let at = injected["kind"] == "missing_required" ? String(path[..<path.lastIndex(of: "/")!]) : path
                #expect(errors.contains { $0.instancePath == at }, "seq \(r["seq"]!) \(injected): \(errors.prefix(3))")
            }
            checked += 1
        }
        print("xdm workload: \(checked) payloads checked, \(invalid) invalid ones each reported at the injected path")
        #expect(invalid == 1007)
        #expect(tapes == checked)
    }
}
