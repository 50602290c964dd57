import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// Ordinary mistakes end in an exit code and a clear message, never a signal (issue 15's regressions,
/// run against the built tool).
@Suite struct HostileInputCLITests {
    static func temp(_ name: String) -> String {
        Scratch.url("rk-hostile-\(UUID())-\(name)").path
    }

    @Test(arguments: [["run", "--rules", "Rules"], ["match", "--rules", "Rules"]])
    func aFolderAsTheEventsFileIsUsageError(_ args: [String]) throws {
        let out = try CLIRunner.run(args + ["Rules"])
        #expect(out.status == 2, "\(out.stderr)")
        #expect(out.stderr == "error: 'Rules' is a folder, not a file\n")
    }

    @Test func aFolderAsARulesFileOrSchemaIsAnError() throws {
        let dir = Self.temp("d.json")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parse = try CLIRunner.run(["parse", dir])
        #expect(parse.status == 2)
        #expect(parse.stderr.contains("is a folder"))
        let xdm = try CLIRunner.run(["xdm", "validate", "--schema", dir, "Examples/events.jsonl"])
        #expect(xdm.status == 2)
        #expect(xdm.stderr.contains("is a folder"))
    }

    @Test func incrementRefusesBadCountsAndNeverOverwritesNonIntegers() throws {
        let c = Self.temp("container")
        defer { try? FileManager.default.removeItem(atPath: c) }
        let negative = try CLIRunner.run(["shared", "increment", c, "x", "--times=-5"])
        #expect(negative.status == 2)
        #expect(negative.stderr.contains("--times must be from 1 to 1000000"))

        for (json, why) in [
            (#"{"count":9223372036854775807}"#, "would overflow"), (#"{"count":1.5}"#, "not an integer"),
            (#"{"count":"x"}"#, "not an integer"), (#"{"count":[1]}"#, "not an integer"), ("[1]", "not an object"),
        ] {
            #expect(try CLIRunner.run(["shared", "set", c, "x", json]).status == 0)
            let out = try CLIRunner.run(["shared", "increment", c, "x"])
            #expect(out.status == 1, "\(json)")
            #expect(out.stderr.contains(why), "\(json): \(out.stderr)")
            let after = try CLIRunner.run(["shared", "get", c, "x"])
            #expect(try JSONReader.value(after.stdout) == JSONReader.value(json), "\(json) was changed")
        }
        #expect(try CLIRunner.run(["shared", "set", c, "y", #"{"count":41}"#]).status == 0)
        #expect(try CLIRunner.run(["shared", "increment", c, "y", "--times", "2"]).status == 0)
        #expect(try CLIRunner.run(["shared", "get", c, "y"]).stdout == "{\"count\":43}\n")
    }

    @Test func aSelfReferentialSchemaIsRefusedNotFollowedForever() throws {
        let schema = Self.temp("self.json")
        try ##"{"$ref": "#"}"##.write(toFile: schema, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: schema) }
        let out = try CLIRunner.run(["xdm", "validate", "--schema", schema, "Examples/events.jsonl"])
        #expect(out.status == 2, "\(out.stderr)")
        #expect(out.stderr.contains("never descends into the instance"))
    }

    @Test func anErrorInAHugeLineQuotesAWindowOfIt() throws {
        let file = Self.temp("long.json")
        // 2 MB on one line, the syntax error at its end.
        try ("{\"rules\": [" + String(repeating: "1, ", count: 700_000) + "}").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let out = try CLIRunner.run(["parse", file])
        #expect(out.status == 1)
        #expect(out.stderr.utf8.count < 2_000, "stderr is \(out.stderr.utf8.count) bytes")
        #expect(out.stderr.contains(":1:"))
    }

    @Test func standardInputIsReadOnlyUpToItsLimit() throws {
        // `rulekit parse -` used to read stdin whole before checking the 512 MiB limit; the events
        // stream of `match -` stops at its record limit. Here: a stream of 80 MB without a newline.
        let exe = try CLIRunner.requireExecutable()
        let p = Process()
        p.executableURL = exe
        p.arguments = ["match", "--rules", "Rules", "-"]
        p.currentDirectoryURL = SharedCorpus.repositoryRoot
        let input = Pipe()
        let err = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        let chunk = Data(repeating: 0x20, count: 1 << 20)
        // Writing stops failing quietly once the tool closes its end; ignore SIGPIPE for this process.
        signal(SIGPIPE, SIG_IGN)
        for _ in 0..<80 {
            do { try input.fileHandleForWriting.write(contentsOf: chunk) } catch { break }
        }
        try? input.fileHandleForWriting.close()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit)
        #expect(message.contains("line longer than the limit"), "\(message)")
    }

    /// `rulekit run ... | head`: the reader goes away after a few bytes. The run ends with status 0, not by
    /// SIGPIPE (it used to die by the signal).
    @Test func runEndsQuietlyWhenItsReaderGoesAway() throws {
        let exe = try CLIRunner.requireExecutable()
        let dir = Scratch.url("rk-pipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = dir.appendingPathComponent("events.jsonl")
        let line = #"{"type":"com.adobe.eventType.generic.track","source":"s","data":{"k":"a value to make the line long enough"}}"#
        try Data(String(repeating: line + "\n", count: 20_000).utf8).write(to: events)
        for command in [["run", "--rules", "Rules", events.path], ["match", "--each", "--rules", "Rules", events.path]] {
            let p = Process()
            p.executableURL = exe
            p.arguments = command
            p.currentDirectoryURL = SharedCorpus.repositoryRoot
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            _ = out.fileHandleForReading.readData(ofLength: 100)
            try out.fileHandleForReading.close()
            p.waitUntilExit()
            #expect(p.terminationReason == .exit, "\(command[0]) ended by signal \(p.terminationStatus)")
            #expect(p.terminationStatus == 0 || command[0] == "match", "\(command[0]): status \(p.terminationStatus)")
        }
    }
}
