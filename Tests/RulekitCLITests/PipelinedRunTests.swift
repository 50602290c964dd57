import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// `run`, `match` and `xdm validate` read and parse on worker threads: their output must be the same,
/// byte for byte (event ids aside), as a run on one thread (`--threads 0`), whatever the timing.
@Suite struct PipelinedRunTests {
    /// A stream of a few thousand events from the examples, varied: rules modify some, dispatch for others;
    /// some data is spaced out or has a repeated key; a few lines are broken or no event.
    static let input: String = {
        let examples =
            (try? String(contentsOfFile: SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl").path, encoding: .utf8))
            ?? ""
        let lines = examples.split(separator: "\n").map(String.init)
        var out = ""
        for i in 0..<3_000 {
            var line = lines[i % lines.count].replacingOccurrences(of: "959.45", with: "\(900 + i % 200).45")
            if i % 11 == 3 { line = line.replacingOccurrences(of: "\":", with: "\" : ") }
            if i % 13 == 4 { line = line.replacingOccurrences(of: "{\"xdm\":", with: "{\"dup\":1,\"dup\":2,\"xdm\":") }
            out += line + "\n"
            if i % 500 == 7 { out += "{broken\n" }
            if i % 700 == 9 { out += "[1,2]\n\n" }
        }
        return out
    }()

    /// Every UUID replaced by its rank of first appearance: ids differ between runs, links between
    /// events (`parentID`) must not.
    static func normalized(_ text: String) -> String {
        var ranks: [Substring: Int] = [:]
        var out = ""
        var rest = text[...]
        let pattern = /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/
        while let m = rest.firstMatch(of: pattern) {
            out += rest[..<m.range.lowerBound]
            let n = ranks[m.output] ?? ranks.count
            ranks[m.output] = n
            out += "id-\(n)"
            rest = rest[m.range.upperBound...]
        }
        return out + rest
    }

    func inputFile() throws -> String {
        let path = Scratch.url("rk-pipe-\(UUID()).jsonl").path
        try Self.input.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func runIsTheSameOnOneThreadAndOnSeveral() throws {
        let path = try inputFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let args = ["run", "--state", "com.adobe.module.configuration=Examples/state.json", path]
        let single = try CLIRunner.run(args + ["--threads", "0"])
        #expect(single.status == 1, "\(single.stderr)")  // the broken lines
        #expect(single.stderr.contains("error: an event must be an object"))
        let lines = single.stdout.split(separator: "\n")
        #expect(lines.count > 3_000)
        for threads in [["--threads", "1"], ["--threads", "3"], []] {
            let many = try CLIRunner.run(args + threads)
            #expect(many.status == single.status)
            #expect(many.stderr == single.stderr)
            #expect(Self.normalized(many.stdout) == Self.normalized(single.stdout), "\(threads)")
        }
    }

    @Test func unchangedDataIsWrittenAsReadAndChangedDataIsEncodedAgain() throws {
        let spaced = #"{"name":"n","type":"t","source":"s","data":{"a" : [1, 2.50],  "u":"\u00e9"}}"#
        let repeated = #"{"name":"n","type":"t","source":"s","data":{"a":1,"a":2}}"#
        let purchase = try String(
            contentsOfFile: SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl").path, encoding: .utf8
        )
        .split(separator: "\n")[0].replacingOccurrences(of: "\":", with: "\" : ")
        let out = try CLIRunner.run(
            ["run", "--state", "com.adobe.module.configuration=Examples/state.json", "-"],
            stdin: [spaced, repeated, purchase].joined(separator: "\n"))
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.stdout.split(separator: "\n").map(String.init)
        // As read, spaces and escapes included.
        #expect(lines[0].hasSuffix(#","data":{"a" : [1, 2.50],  "u":"\u00e9"}}"#))
        // A repeated key is read as its last value, and so written.
        #expect(lines[1].hasSuffix(#","data":{"a":2}}"#))
        // The rules changed the purchase's data: it is encoded again, compact.
        #expect(
            lines[2].contains(
                #""data":{"xdm":{"_id":"5f0c1a2e-0000-4000-8000-000000000001","timestamp":"2026-03-01T10:15:00Z","eventType":"commerce.purchases","#
            ))
        #expect(lines[2].contains(#""customerTier":"gold""#))
    }

    @Test func matchIsTheSameOnOneThreadAndOnSeveral() throws {
        let path = try inputFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        for each in [["--each"], []] {
            let args = ["match", "--state", "com.adobe.module.configuration=Examples/state.json", path] + each
            let single = try CLIRunner.run(args + ["--threads", "0"])
            #expect(single.status == 1)
            #expect(!single.stdout.isEmpty)
            for threads in [["--threads", "2"], ["--threads", "4"], []] {
                let many = try CLIRunner.run(args + threads)
                #expect(many.status == single.status)
                #expect(many.stdout == single.stdout)
                #expect(many.stderr == single.stderr)
            }
        }
    }

    @Test func xdmValidateIsTheSameOnOneThreadAndOnSeveral() throws {
        let examples = SharedCorpus.repositoryRoot.appendingPathComponent("Schemas/examples")
        var payloads = ""
        for f in try FileManager.default.contentsOfDirectory(atPath: examples.path).sorted() where f.hasSuffix(".json") {
            let v = try JSONReader.read(Array(try Data(contentsOf: examples.appendingPathComponent(f)))).value
            payloads += JSONWriter.string(v) + "\n"
            // An invalid one beside it: a string where the schema may want anything else.
            if case .object(var o) = v {
                o["xdm:timestamp"] = .int(5)
                payloads += JSONWriter.string(.object(o)) + "\n"
            }
        }
        payloads += "{broken\n"
        let path = Scratch.url("rk-xdm-\(UUID()).jsonl").path
        try String(repeating: payloads, count: 40).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for format in ["json", "text"] {
            let args = ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "--format", format, path]
            let single = try CLIRunner.run(args + ["--threads", "0"])
            #expect(single.status == 1, "\(single.stderr)")
            #expect(single.stdout.contains("not JSON"))
            let many = try CLIRunner.run(args + ["--threads", "3"])
            #expect(many.stdout == single.stdout)
            #expect(many.status == single.status)
        }
    }

    /// A single document is validated on a tape when the tape takes it, as a `Value` otherwise: the
    /// verdict and every error are the same either way (a key written with an escape keeps it off the tape).
    @Test func xdmValidateOfOneDocumentIsTheSameOnATapeAndAsAValue() throws {
        let examples = SharedCorpus.repositoryRoot.appendingPathComponent("Schemas/examples")
        var checked = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: examples.path).sorted() where f.hasSuffix(".json") {
            let v = try JSONReader.read(Array(try Data(contentsOf: examples.appendingPathComponent(f)))).value
            guard case .object(let o) = v else { continue }
            // The example as it is, and made invalid (a timestamp that is not a string).
            var invalid = o
            invalid["xdm:timestamp"] = .int(5)
            for variant in [Value.object(o), .object(invalid)] {
                let plain = JSONWriter.string(variant)
                guard plain.hasPrefix("{\""), let first = plain.dropFirst(2).unicodeScalars.first, first.isASCII else {
                    continue
                }
                let escaped = "{\"\\u" + String(format: "%04x", first.value) + plain.dropFirst(3)
                var outputs: [String] = []
                for text in [plain, escaped] {
                    let path = Scratch.url("rk-xdm-one-\(UUID()).json").path
                    try text.write(toFile: path, atomically: true, encoding: .utf8)
                    let r = try CLIRunner.run([
                        "xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "--format", "json", path,
                    ])
                    #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
                    outputs.append(r.stdout)
                }
                #expect(outputs[0] == outputs[1], "\(f)")
                #expect(outputs[0].contains("\"valid\":"), "\(f): \(outputs[0])")
                checked += 1
            }
        }
        #expect(checked >= 10)
    }
}
