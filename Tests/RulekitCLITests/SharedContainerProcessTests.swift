import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// A shared data container used by real processes at once (`rulekit shared`): no update is lost, and a
/// process killed in the middle of writing leaves the previous value readable.
@Suite struct SharedContainerProcessTests {
    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("rk-shared-proc-\(UUID())").path
    }

    static func spawn(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = try #require(CLIRunner.executable())
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    @Test func concurrentIncrementsFromFourProcessesAllCount() throws {
        let dir = Self.directory()
        let workers = try (0..<4).map { _ in try Self.spawn(["shared", "increment", dir, "counters", "--key", "n", "--times", "150"]) }
        for w in workers {
            w.waitUntilExit()
            #expect(w.terminationStatus == 0)
        }
        let out = try CLIRunner.run(["shared", "get", dir, "counters"])
        #expect(out.status == 0)
        #expect(out.stdout == "{\"n\":600}\n")
    }

    @Test func aProcessKilledMidWriteLeavesAReadableValue() throws {
        let dir = Self.directory()
        var last = Int64(-1)
        for round in 0..<4 {
            let w = try Self.spawn(["shared", "increment", dir, "busy", "--times", "1000000"])
            Thread.sleep(forTimeInterval: 0.15 + 0.05 * Double(round))
            kill(w.processIdentifier, SIGKILL)
            w.waitUntilExit()
            let out = try CLIRunner.run(["shared", "get", dir, "busy"])
            #expect(out.status == 0, "round \(round): \(out.stderr)")
            let n = try JSONReader.read(Array(out.stdout.utf8)).value["count"]?.intValue ?? -1
            // Every committed increment is there: the count only grows across kills.
            #expect(n > last, "round \(round): \(n) after \(last)")
            last = n
        }
        let listed = try CLIRunner.run(["shared", "list", dir])
        #expect(listed.stdout == "busy\n") // leftover temporary files are not collections
    }

    @Test func errorsAreClear() throws {
        let dir = Self.directory()
        let missing = try CLIRunner.run(["shared", "get", dir, "nothing"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: no collection 'nothing'\n")
        let bad = try CLIRunner.run(["shared", "set", dir, "../x", "1"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("is not a collection name"))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data("rulekit-shared 1 0 5\n{\"a\"".utf8).write(to: URL(fileURLWithPath: dir + "/torn.json"))
        let torn = try CLIRunner.run(["shared", "get", dir, "torn"])
        #expect(torn.status == 1)
        #expect(torn.stderr.contains("corrupt shared data, not used"))
    }
}
