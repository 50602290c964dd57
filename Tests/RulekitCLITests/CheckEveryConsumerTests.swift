import Foundation
import RuleKitTestSupport
import Testing

/// Every command that runs rules applies the Check `serve` applies (`RuleSnapshot.admits`), every command that
/// reads events applies serve's event check (`EventShape`), and the mistakes a new user met on a fresh clone
/// end in a clear message and an exit code.
@Suite struct CheckEveryConsumerTests {
    /// A folder with `files` written in it.
    func folder(_ files: [String: String]) throws -> URL {
        let dir = Scratch.url("rk-check-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    static let undefinedElement = """
        version: 1
        rules:
          - id: big
            when:
              - {key: "%orderTotal%", gt: 10}
            then:
              - add: {big: true}
        """

    static let event = #"{"type":"com.adobe.eventType.edge","source":"com.adobe.eventSource.requestContent","data":{"a":1}}"# + "\n"

    @Test func runMatchExplainAndConvertRefuseARuleWithAnUndefinedDataElement() throws {
        let dir = try folder(["rules.yaml": Self.undefinedElement, "events.jsonl": Self.event, "event.json": Self.event])
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = dir.appendingPathComponent("rules.yaml").path
        let events = dir.appendingPathComponent("events.jsonl").path
        let runs: [[String]] = [
            ["run", "--rules", rules, events], ["match", "--rules", rules, events],
            ["explain", "--rules", rules, "--event", dir.appendingPathComponent("event.json").path],
            ["convert", rules, "--to", "launch-json"],
        ]
        for args in runs {
            let r = try CLIRunner.run(args)
            #expect(r.status == 1, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("rules.yaml:5:"), "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("no data element named 'orderTotal'"), "\(args[0])")
            #expect(r.stdout.isEmpty, "\(args[0]) wrote \(r.stdout)")
        }
        // --allow-errors runs them anyway, each error still said.
        let allowed = try CLIRunner.run(["run", "--rules", rules, "--allow-errors", events])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("--allow-errors"))
        #expect(allowed.stdout.contains("\"a\":1"))
    }

    @Test func aLaunchRulesJSONKeepsTheReferenceLeniencyUnlessStrict() throws {
        // A Launch rule with an unknown matcher: a device drops the condition silently and runs the rest.
        let launch = """
            {"version": 1, "rules": [{"condition": {"type": "group", "definition": {"logic": "and", "conditions": [
              {"type": "matcher", "definition": {"key": "a", "matcher": "eqq", "values": [1]}},
              {"type": "matcher", "definition": {"key": "a", "matcher": "eq", "values": [1]}}]}},
             "consequences": [{"id": "c", "type": "add", "detail": {"eventdata": {"hit": true}}}]}]}
            """
        let dir = try folder(["rules.json": launch, "events.jsonl": Self.event])
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = dir.appendingPathComponent("rules.json").path
        let events = dir.appendingPathComponent("events.jsonl").path
        let lenient = try CLIRunner.run(["run", "--rules", rules, events])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning:"), "\(lenient.stderr)")
        #expect(lenient.stderr.contains("--strict refuses them"))
        let strict = try CLIRunner.run(["run", "--rules", rules, "--strict", events])
        #expect(strict.status == 1, "\(strict.stderr)")
        #expect(strict.stdout.isEmpty)
    }

    @Test func everyReaderOfEventsRefusesWhatServeRefuses() throws {
        let bad = [#"{"foo":1}"#, #"{"type":"a","source":"b","Data":{"x":1}}"#, #"{"type":"a","source":"b","data":"str"}"#]
        let dir = try folder(["events.jsonl": bad.joined(separator: "\n") + "\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = dir.appendingPathComponent("events.jsonl").path
        for args in [["run", events], ["match", events]] {
            let r = try CLIRunner.run(args)
            #expect(r.status == 1, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("events.jsonl:1:1: error: unknown member 'foo'"), "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("events.jsonl:2:1: error: unknown member 'Data'"), "\(args[0])")
            #expect(r.stderr.contains("events.jsonl:3:1: error: 'data' must be an object, not a string"), "\(args[0])")
        }
    }

    @Test func aRuleTestFileGivenAsRulesIsAUsageMistake() throws {
        let dir = try folder(["x.test.yaml": "tests: []\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let test = dir.appendingPathComponent("x.test.yaml").path
        for args in [["lint", test], ["run", "--rules", test]] {
            let r = try CLIRunner.run(args)
            #expect(r.status == 2, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains("is a rule test file, not rules: run it with `rulekit test"), "\(r.stderr)")
        }
    }

    @Test func lintTargetBothNamesWhereWebAndMobileDiffer() throws {
        let rules = """
            version: 1
            rules:
              - id: r
                when:
                  - {key: "web.page", ne: "home"}
                  - {key: "web.flag", co: true}
                  - history: {events: [{page: home}], matcher: ge, value: 1}
                then:
                  - add: {x: 1}
            """
        let dir = try folder(["rules.yaml": rules])
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("rules.yaml").path
        let mobile = try CLIRunner.run(["lint", path, "--format", "json"])
        #expect(!mobile.stdout.contains("target."))
        let both = try CLIRunner.run(["lint", path, "--target", "both", "--format", "json"])
        #expect(both.stdout.contains("target.missing-key-negation"), "\(both.stdout)")
        #expect(both.stdout.contains("true on mobile"))
        #expect(both.stdout.contains("false on web"))
        #expect(both.stdout.contains("target.boolean-string-matcher"))
        #expect(both.stdout.contains("target.history-mask-keys"), "\(both.stdout)")
    }

    @Test func runWritesWhatItReadWhenItsInputPauses() throws {
        // Two events with a pause between: the first is written before the second is even sent.
        let exe = try CLIRunner.requireExecutable()
        let p = Process()
        p.executableURL = exe
        p.arguments = ["run", "-"]
        p.currentDirectoryURL = SharedCorpus.repositoryRoot
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(Data(Self.event.utf8))
        // The first line comes out while the input stays open.
        let first = output.fileHandleForReading.availableLine(within: 60)
        #expect(first?.contains("\"a\":1") == true, "nothing written while the input paused")
        input.fileHandleForWriting.write(Data(Self.event.replacingOccurrences(of: "\"a\":1", with: "\"a\":2").utf8))
        try input.fileHandleForWriting.close()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(rest.contains("\"a\":2"))
    }
}

extension FileHandle {
    /// The first line read within `seconds`, or nil (a reader thread; the handle is left to it).
    fileprivate func availableLine(within seconds: Double) -> String? {
        let box = LineBox()
        let done = DispatchSemaphore(value: 0)
        let handle = self
        Thread.detachNewThread {
            var bytes: [UInt8] = []
            while true {
                let d = handle.readData(ofLength: 1)
                if d.isEmpty { break }
                if d[d.startIndex] == 0x0A { break }
                bytes.append(d[d.startIndex])
            }
            box.set(String(decoding: bytes, as: UTF8.self))
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return box.get()
    }
}

private final class LineBox: @unchecked Sendable {
    // Written once by the reader thread before the semaphore is signalled, read after it.
    private var line: String?
    private let lock = NSLock()
    func set(_ s: String) { lock.withLock { line = s } }
    func get() -> String? { lock.withLock { line } }
}
