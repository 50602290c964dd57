import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitShared

@Suite struct SharedContainerTests {
    static func directory() -> URL {
        Scratch.url("rk-shared-\(UUID())")
    }

    @Test func readsAlwaysSeeThePersistedValueNotAStaleCopy() throws {
        let dir = Self.directory()
        let a = try SharedContainer(directory: dir)
        let b = try SharedContainer(directory: dir)
        #expect(try b.read("session") == nil)
        try a.write("session", ["state": "anonymous"])
        #expect(try b.read("session") == ["state": "anonymous"])
        try a.write("session", ["state": "identified", "token": "t1"])
        #expect(try b.read("session")?["state"] == "identified")
        try b.update("session") { old in
            var o = old?.objectValue ?? [:]
            o["state"] = "loggedOut"
            return .object(o)
        }
        #expect(try a.read("session") == ["state": "loggedOut", "token": "t1"])
        try a.remove("session")
        #expect(try b.read("session") == nil)
        #expect(a.collections().isEmpty)
    }

    @Test func concurrentUpdatesFromManyThreadsLoseNothing() throws {
        let dir = Self.directory()
        let containers = try (0..<4).map { _ in try SharedContainer(directory: dir) }
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for _ in 0..<50 {
                _ = try? containers[i % 4].update("counter") { old in .int((old?.intValue ?? 0) + 1) }
            }
        }
        #expect(try containers[0].read("counter") == .int(400))
    }

    @Test func corruptOrTruncatedFilesAreReportedAndNeverTakenForData() throws {
        let dir = Self.directory()
        let c = try SharedContainer(directory: dir)
        try c.write("good", ["n": 1])
        let path = c.path(of: "good")
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        // Truncated: the header's length no longer matches.
        try whole.prefix(whole.count - 2).write(to: URL(fileURLWithPath: path))
        #expect(throws: SharedContainerError.self) { try c.read("good") }
        // An update does not overwrite what it could not read.
        #expect(throws: (any Error).self) { try c.update("good") { _ in ["n": 2] } }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == whole.prefix(whole.count - 2))
        // Same length, one byte changed: the checksum catches it.
        var flipped = [UInt8](whole)
        flipped[flipped.count - 2] ^= 0x01
        try Data(flipped).write(to: URL(fileURLWithPath: path))
        do {
            _ = try c.read("good")
            Issue.record("a corrupt file was read")
        } catch {
            #expect("\(error)".contains("checksum mismatch"))
        }
        // Not ours at all.
        try Data("{\"n\": 1}".utf8).write(to: URL(fileURLWithPath: c.path(of: "foreign")))
        #expect(throws: SharedContainerError.self) { try c.read("foreign") }
        // Writing a good value again repairs it.
        try c.write("good", ["n": 3])
        #expect(try c.read("good") == ["n": 3])
    }

    @Test func badNamesAndUnwritableContainersAreClearErrors() throws {
        let c = try SharedContainer(directory: Self.directory())
        for bad in ["", ".hidden", "../escape", "a/b", "sp ace"] {
            #expect(throws: SharedContainerError.invalidName(bad)) { try c.read(bad) }
        }
        guard getuid() != 0 else { return }  // root writes through permissions; nothing to observe
        let ro = Self.directory()
        let r = try SharedContainer(directory: ro)
        chmod(ro.path, 0o555)
        defer { chmod(ro.path, 0o755) }
        do {
            try r.write("x", 1)
            Issue.record("wrote into a read-only container")
        } catch {
            #expect("\(error)".contains("cannot"))
        }
    }

    @Test(arguments: [false, true])
    func watcherReportsChangesByOthers(polling: Bool) throws {
        let dir = Self.directory()
        let mine = try SharedContainer(directory: dir)
        let other = try SharedContainer(directory: dir)
        let seen = Locked<[String]>([])
        let w = SharedContainerWatcher(container: mine, polling: polling, interval: 0.02) { c in seen.withLock { $0.append(c) } }
        defer { w.stop() }
        #expect(w.mode == (polling ? .polling : .inotify))
        Thread.sleep(forTimeInterval: 0.05)
        try other.write("settings", ["theme": "dark"])
        #expect(eventually { seen.withLock { $0.contains("settings") } })
        try other.remove("settings")
        #expect(eventually { seen.withLock { $0.filter { $0 == "settings" }.count } >= 2 })
        // Temporary and lock files are not collections.
        #expect(seen.withLock { $0.allSatisfy { !$0.hasPrefix(".") } })
    }
}

func eventually(_ seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}
