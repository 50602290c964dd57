import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitXDM

/// The official JSON-Schema-Test-Suite, draft-07, as data: every required test must pass; optional and
/// optional/format results are counted, and the format files RuleKit asserts must pass too.
@Suite struct JSONSchemaTestSuiteTests {
    struct Tally {
        var passed = 0
        var failed: [String] = []
        /// Verdicts read from tapes (each compared with the `Value` reference's).
        var tapeVerdicts = 0
    }

    static func registryWithRemotes(_ root: URL) throws -> SchemaRegistry {
        var r = SchemaRegistry()
        MetaSchemas.register(in: &r)
        let remotes = root.appendingPathComponent("remotes")
        let e = FileManager.default.enumerator(atPath: remotes.path)
        while let rel = e?.nextObject() as? String {
            guard rel.hasSuffix(".json"), let bytes = SharedCorpus.bytes(remotes.appendingPathComponent(rel)) else { continue }
            r.add(try JSONReader.read(bytes).value, uri: "http://localhost:1234/" + rel)
        }
        return r
    }

    static func run(file: URL, registry: SchemaRegistry, tally: inout Tally) throws {
        let groups = try JSONReader.read(try #require(SharedCorpus.bytes(file))).value.arrayValue ?? []
        for (gi, g) in groups.enumerated() {
            let schema = g["schema"] ?? .bool(true)
            var r = registry
            let uri = r.add(schema, uri: "http://rulekit.test/\(file.lastPathComponent)/\(gi)")
            let validator: JSONSchemaValidator
            do {
                validator = try JSONSchemaValidator(registry: r, uri: uri)
            } catch {
                for t in g["tests"]?.arrayValue ?? [] {
                    tally.failed.append(
                        "\(file.lastPathComponent) — \(g["description"]?.stringValue ?? "") — \(t["description"]?.stringValue ?? ""): compile error \(error)"
                    )
                }
                continue
            }
            for t in g["tests"]?.arrayValue ?? [] {
                let data = t["data"] ?? .null
                let expected = t["valid"]?.boolValue ?? true
                let fast = validator.isValid(data)
                let full = validator.validate(data).isEmpty
                // The same instance read from a tape, in place: as the object itself when it is one, and as
                // the value of a member (node 2 of `{"v": data}`), whatever it is.
                var onTape: [Bool] = []
                if case .object(let o) = data, let tape = JSONTape.of(o) {
                    onTape += [validator.isValid(tape), validator.validate(tape).isEmpty]
                }
                if let tape = JSONTape.of(["v": data]) { onTape.append(validator.isValid(tape, node: 2)) }
                tally.tapeVerdicts += onTape.count
                if fast == expected && full == expected && onTape.allSatisfy({ $0 == expected }) {
                    tally.passed += 1
                } else {
                    tally.failed.append(
                        "\(file.lastPathComponent) — \(g["description"]?.stringValue ?? "") — \(t["description"]?.stringValue ?? ""): got \(fast)/\(full), tape \(onTape), expected \(expected)"
                    )
                }
            }
        }
    }

    static func runFolder(_ folder: URL, registry: SchemaRegistry, only: Set<String>? = nil) throws -> Tally {
        var tally = Tally()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        for f in files where only == nil || only!.contains(f) {
            try run(file: folder.appendingPathComponent(f), registry: registry, tally: &tally)
        }
        return tally
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the JSON-Schema test suite is not run"))
    func draft7RequiredTestsAllPass() throws {
        let root = try #require(SharedCorpus.folder("corpora/json-schema-test-suite"))
        let registry = try Self.registryWithRemotes(root)
        let tally = try Self.runFolder(root.appendingPathComponent("tests/draft7"), registry: registry)
        print("json-schema-test-suite draft7 required: \(tally.passed) passed, \(tally.failed.count) failed")
        for f in tally.failed { Issue.record("\(f)") }
        #expect(tally.passed == 927)
        // Every instance is read from a tape too (as a member's value); objects also as a tape's root.
        print("json-schema-test-suite draft7 required: \(tally.tapeVerdicts) verdicts read from tapes")
        #expect(tally.tapeVerdicts >= 927)
    }

    /// The format files RuleKit asserts; the others (idn-*, iri*, uri-template, relative-json-pointer,
    /// ecmascript-regex) are formats RuleKit does not check, so they are only counted.
    static let assertedFormats: Set<String> = [
        "date-time.json", "date.json", "time.json", "email.json", "hostname.json",
        "ipv4.json", "ipv6.json", "uri.json", "uri-reference.json", "regex.json",
        "json-pointer.json", "unknown.json",
    ]

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent"))
    func draft7FormatTestsPassForTheAssertedFormats() throws {
        let root = try #require(SharedCorpus.folder("corpora/json-schema-test-suite"))
        let registry = try Self.registryWithRemotes(root)
        let folder = root.appendingPathComponent("tests/draft7/optional/format")
        let asserted = try Self.runFolder(folder, registry: registry, only: Self.assertedFormats)
        let all = try Self.runFolder(folder, registry: registry)
        print(
            "json-schema-test-suite draft7 optional/format: asserted formats \(asserted.passed) passed, \(asserted.failed.count) failed; all files \(all.passed) passed, \(all.failed.count) failed"
        )
        for f in asserted.failed { Issue.record("\(f)") }
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent"))
    func draft7OptionalTestsAreCounted() throws {
        let root = try #require(SharedCorpus.folder("corpora/json-schema-test-suite"))
        let registry = try Self.registryWithRemotes(root)
        let tally = try Self.runFolder(root.appendingPathComponent("tests/draft7/optional"), registry: registry)
        print("json-schema-test-suite draft7 optional (not format): \(tally.passed) passed, \(tally.failed.count) failed")
        for f in tally.failed { print("  optional: \(f)") }
        #expect(tally.passed > 0)
    }
}
