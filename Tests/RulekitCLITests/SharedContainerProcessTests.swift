import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// A shared data container used by real processes at once (`rulekit shared`): no update is lost, and a
/// process killed in the middle of writing leaves the previous value readable.
@Suite struct SharedContainerProcessTests {
    static func directory() -> String {
        Scratch.url("rk-shared-proc-\(UUID())").path
    }

    static func spawn(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = try CLIRunner.requireExecutable()
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    static func inode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? Int
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
            let before = Self.inode(dir + "/busy.json")
            let w = try Self.spawn(["shared", "increment", dir, "busy", "--times", "1000000"])
            // Wait for the writer's first committed write (a new file is renamed into place), then let it run on.
            let deadline = Date().addingTimeInterval(60)
            while Self.inode(dir + "/busy.json") == before && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            Thread.sleep(forTimeInterval: 0.05 + 0.05 * Double(round))
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
        #expect(listed.stdout == "busy\n")  // leftover temporary files are not collections
    }

    @Test func errorsAreClear() throws {
        let dir = Self.directory()
        // Reading a container that does not exist is a mistyped path: exit 2, and nothing is created.
        let noContainer = try CLIRunner.run(["shared", "get", dir, "nothing"])
        #expect(noContainer.status == 2)
        #expect(noContainer.stderr == "error: no shared container folder '\(dir)'\n")
        #expect(try CLIRunner.run(["shared", "list", dir]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: dir))
        // A name that is no collection's is bad usage, as the README's rule says (it exited 1).
        let bad = try CLIRunner.run(["shared", "set", dir, "../x", "1"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("is not a collection name"))
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let missing = try CLIRunner.run(["shared", "get", dir, "nothing"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: no collection 'nothing'\n")
        try Data("rulekit-shared 1 0 5\n{\"a\"".utf8).write(to: URL(fileURLWithPath: dir + "/torn.json"))
        let torn = try CLIRunner.run(["shared", "get", dir, "torn"])
        #expect(torn.status == 1)
        #expect(torn.stderr.contains("corrupt shared data, not used"))
    }
}

/// Event history in SQLite survives a `rulekit run` killed while it writes: what was committed is there.
@Suite struct HistoryKillTests {
    @Test func aRunKilledMidWriteKeepsItsCommittedHistory() throws {
        let dir = Scratch.url("rk-history-kill-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let rules = dir + "/rules.yaml"
        try """
        rules:
          - id: rec
            when: {key: ~type, eq: tap}
            then: [{id: rec-h, history: {operation: insert, content: {tapped: x}}}]
          - id: seen
            when:
              all:
                - {key: ~type, eq: check}
                - history: {events: [{tapped: x}], matcher: ge, value: 1, searchType: any}
            then: [{add: {seenBefore: true}}]
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = try CLIRunner.requireExecutable()
        p.arguments = ["run", "--rules", rules, "--data-dir", dir + "/data", "-"]
        p.currentDirectoryURL = SharedCorpus.repositoryRoot
        let input = Pipe()
        p.standardInput = input
        let output = Pipe()
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Kill only once the run has recorded something (its output shows a history consequence), while
        // it is still busy recording more.
        let recorded = Locked(false)
        let reader = output.fileHandleForReading
        DispatchQueue.global().async {
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { return }
                if String(decoding: chunk, as: UTF8.self).contains("rec-h") { recorded.withLock { $0 = true } }
            }
        }
        let line = Data("{\"name\":\"t\",\"type\":\"tap\",\"source\":\"app\",\"data\":{\"n\":1}}\n".utf8)
        let writer = input.fileHandleForWriting
        let deadline = Date().addingTimeInterval(60)
        var after: Date?
        while Date() < deadline {
            for _ in 0..<50 { try? writer.write(contentsOf: line) }
            if after == nil, recorded.withLock({ $0 }) { after = Date().addingTimeInterval(0.3) }
            if let a = after, Date() > a { break }
        }
        #expect(recorded.withLock { $0 }, "the run never recorded history")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        try? writer.close()
        let check = try CLIRunner.run(
            ["run", "--rules", rules, "--data-dir", dir + "/data", "-"],
            stdin: "{\"name\":\"c\",\"type\":\"check\",\"source\":\"app\",\"data\":{\"k\":1}}\n")
        #expect(check.status == 0, "\(check.stderr)")
        #expect(!check.stderr.contains("corrupt"))
        #expect(check.stdout.contains("\"seenBefore\":true"))
    }
}

/// `rulekit run --shared DIR`: the last good rules are kept, and a run with broken rules runs them.
@Suite struct RunSharedTests {
    @Test func aRunWithBrokenRulesFallsBackOnTheKeptRules() throws {
        let dir = Scratch.url("rk-run-shared-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "rules:\n  - id: tag\n    when: {key: ~type, eq: purchase}\n    then: [{add: {tier: gold}}]\n"
            .write(toFile: dir + "/good.yaml", atomically: true, encoding: .utf8)
        try "rules: [\n".write(toFile: dir + "/broken.yaml", atomically: true, encoding: .utf8)
        let event = "{\"name\":\"buy\",\"type\":\"purchase\",\"source\":\"app\",\"data\":{\"sku\":\"x\"}}\n"
        // Without kept rules, broken rules stop the run.
        let refused = try CLIRunner.run(["run", "--rules", dir + "/broken.yaml", "--shared", dir + "/c", "-"], stdin: event)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("broken.yaml:2:1: error"))
        let good = try CLIRunner.run(["run", "--rules", dir + "/good.yaml", "--shared", dir + "/c", "-"], stdin: event)
        #expect(good.status == 0)
        #expect(good.stdout.contains("\"tier\":\"gold\""))
        let fallback = try CLIRunner.run(["run", "--rules", dir + "/broken.yaml", "--shared", dir + "/c", "-"], stdin: event)
        #expect(fallback.status == 0)
        #expect(fallback.stderr.contains("warning: running the last good rules kept in"))
        #expect(fallback.stdout.contains("\"sku\":\"x\",\"tier\":\"gold\""))
        // The hub's "rules loaded" event says so too, in the full view.
        let all = try CLIRunner.run(["run", "--all-events", "--rules", dir + "/broken.yaml", "--shared", dir + "/c", "-"], stdin: event)
        #expect(all.stdout.contains("running the last good rules (from"))
        #expect(!fallback.stdout.contains("running the last good rules (from"))
    }
}
