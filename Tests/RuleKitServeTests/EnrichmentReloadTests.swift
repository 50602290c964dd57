import Foundation
import RuleKitCore
import RuleKitSources
import RuleKitTestSupport
import Testing

@testable import RuleKitServe

/// A reload reads the rules once and every worker runs that one snapshot; the watch sees exactly the files
/// that are loaded (a rule test beside the rules is not a rules file).
@Suite struct EnrichmentReloadTests {
    static func rule(_ value: Int) -> String {
        "rules:\n  - {id: r, when: {key: x, eq: 1}, then: [{add: {y: \(value)}}]}\n"
    }

    static func service(_ dir: URL, workers: Int) throws -> EnrichmentService {
        var o = ServeOptions()
        o.rules = [dir.path]
        o.history = .memory
        o.workers = workers
        return try EnrichmentService(o)
    }

    /// A scratch rules folder holding `a.yaml` with `rule(1)`, and that file.
    static func folder() throws -> (dir: URL, file: URL) {
        let dir = Scratch.url("rk-reload-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("a.yaml")
        try rule(1).write(to: file, atomically: true, encoding: .utf8)
        return (dir, file)
    }

    static func event() -> Event { Event(name: "e", type: "t", source: "s", data: ["x": 1]) }

    @Test func everyWorkerRunsTheSnapshotTheReloadChecked() async throws {
        let (dir, file) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let service = try Self.service(dir, workers: 3)
        #expect(service.rulesStatus.contentHash == RuleSnapshot.load([dir.path]).contentHash)

        try Self.rule(2).write(to: file, atomically: true, encoding: .utf8)
        #expect(service.reload(reason: "test"))
        #expect(service.rulesStatus.contentHash == RuleSnapshot.load([dir.path]).contentHash)
        // Every worker (batches go round the workers) answers with the new rules.
        for _ in 0..<6 {
            let out = try await service.enrich([Self.event()])
            #expect(out.first?.data?["y"] == .int(2))
        }

        // A broken file is refused whole; the previous snapshot keeps serving on every worker.
        let before = service.rulesStatus.contentHash
        try "rules: [\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(!service.reload(reason: "test"))
        #expect(service.rulesStatus.contentHash == before)
        #expect(!service.rulesStatus.lastAttemptLoaded)
        for _ in 0..<6 { #expect(try await service.enrich([Self.event()]).first?.data?["y"] == .int(2)) }
    }

    /// A reload in the background (a poll's, a watch's, SIGHUP's) installs what it loaded as `reload` does,
    /// and refuses a broken set the same way, the previous rules serving on.
    @Test func aBackgroundReloadInstallsAndRefusesAsAReloadDoes() async throws {
        let (dir, file) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let service = try Self.service(dir, workers: 2)

        try Self.rule(3).write(to: file, atomically: true, encoding: .utf8)
        #expect(await service.reloadInBackground(reason: "test"))
        #expect(try await service.enrich([Self.event()]).first?.data?["y"] == .int(3))

        try "rules: [\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(!(await service.reloadInBackground(reason: "test")))
        #expect(!service.rulesStatus.lastAttemptLoaded)
        #expect(try await service.enrich([Self.event()]).first?.data?["y"] == .int(3))

    }

    @Test func startBootsTheWorkersAsyncAndDrainWaitsForTheBatchesInFlight() async throws {
        let dir = Scratch.url("rk-start-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.rule(7).write(to: dir.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        var o = ServeOptions()
        o.rules = [dir.path]
        o.history = .memory
        o.workers = 3
        let service = try await EnrichmentService.start(o)
        #expect(service.hosts.count == 3)
        #expect(try await service.enrich([Self.event()]).first?.data?["y"] == .int(7))
        // Nothing in flight: drain returns without waiting for its time-out. The time-out is far beyond the
        // bound: on two cores, with other suites' synchronous tests holding the cooperative threads (under
        // ThreadSanitizer, for tens of seconds), the drain's own tasks wait that long for a thread.
        let idle = ContinuousClock.now
        await service.drain(timeout: .seconds(900))
        #expect(ContinuousClock.now - idle < .seconds(450))
        // Batches in flight: drain returns when they are done, and they are done.
        let batches = Task {
            try await withThrowingTaskGroup(of: Int.self) { g in
                for _ in 0..<20 { g.addTask { try await service.enrich((0..<200).map { _ in Self.event() }).count } }
                return try await g.reduce(0, +)
            }
        }
        // Once some are in flight (bounded: the batches end by themselves), drain waits for them all.
        for _ in 0..<100_000 where service.batchesInFlight == 0 { await Task.yield() }
        let seen = service.batchesInFlight
        await service.drain(timeout: .seconds(900))
        #expect(seen == 0 || service.batchesInFlight == 0)
        #expect(try await batches.value == 20 * 200)
        // A drain that cannot finish in time returns at its time-out.
        await service.drain(timeout: .milliseconds(1))
    }

    @Test func theWatchIgnoresTestFiles() throws {
        let dir = Scratch.url("rk-reload-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.rule(1).write(to: dir.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        let service = try Self.service(dir, workers: 1)
        let attempted = service.rulesStatus.attemptedAt
        try "cases: []\n".write(to: dir.appendingPathComponent("a.test.yml"), atomically: true, encoding: .utf8)
        service.reloadIfChanged()
        #expect(service.rulesStatus.attemptedAt == attempted)
        // Another rule (its own id: an id used in two files is the Check's error, refused).
        try Self.rule(3).replacingOccurrences(of: "id: r,", with: "id: r2,").write(
            to: dir.appendingPathComponent("b.yaml"), atomically: true, encoding: .utf8)
        service.reloadIfChanged()
        #expect(service.rulesStatus.attemptedAt != attempted)
        #expect(service.rulesStatus.count == 2)
    }
}
