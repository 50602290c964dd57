import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// `RulesHost`: blocks in, what they produced out; blocks at once on one hub keep apart (their events,
/// their states, their identities' histories).
@Suite struct RulesHostTests {
    static func rules() throws -> String {
        let dir = Scratch.url("rk-host-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let f = dir.appendingPathComponent("rules.yaml")
        let own = """
            rules:
              - id: tier
                when: {key: ~state.device/tier, eq: gold}
                then: [{add: {tier: gold}}]
              - id: tell
                when: {key: ~type, eq: buy}
                then: [{dispatch: {type: told, source: s, action: copy}}]

            """
        try (own + HistoryRules.items(returningAt: 1)).write(to: f, atomically: true, encoding: .utf8)
        return f.path
    }

    @Test func startBootsTheHubWithoutAWaitingThreadAndFailsAsInitDoes() async throws {
        let path = try Self.rules()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var c = RulesHost.Configuration(rules: [path])
        c.identityPath = ["user"]
        let host = try await RulesHost.start(c)
        #expect(host.rules.lastOutcome?.loaded == true)
        let out = try await host.process([Event(name: "b", type: "buy", source: "s", data: ["user": "ada"])])
        #expect(out.contains { $0.type == "told" })
        // The same configuration booted twice, by each path, gives the same answers.
        let sync = try RulesHost(c)
        let again = try await sync.process([Event(name: "b", type: "buy", source: "s", data: ["user": "ada"])])
        #expect(again.map(\.type) == out.map(\.type))
    }

    @Test func concurrentBlocksKeepTheirEventsStatesAndHistories() async throws {
        let path = try Self.rules()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var c = RulesHost.Configuration(rules: [path])
        c.batchStates = true
        c.identityPath = ["user"]
        let host = try RulesHost(c)
        #expect(host.rules.lastOutcome?.loaded == true, "\(host.rules.lastOutcome?.rendered ?? "")")
        // Two devices at once: each block sees its own state, and gets back its own events only.
        async let gold = host.process(
            (0..<50).map { Event(name: "e\($0)", type: "buy", source: "s", data: ["user": "ada", "n": .int(Int64($0))]) },
            states: ["device": ["tier": "gold"]])
        async let plain = host.process(
            (0..<50).map { Event(name: "f\($0)", type: "buy", source: "s", data: ["user": "bob", "n": .int(Int64($0))]) },
            states: ["device": ["tier": "silver"]])
        let (g, p) = try await (gold, plain)
        // Each input, and the event its rule dispatched.
        #expect(g.count == 100 && p.count == 100)
        #expect(g.filter { $0.type == "buy" }.allSatisfy { $0.data?["tier"] == "gold" })
        #expect(p.filter { $0.type == "buy" }.allSatisfy { $0.data?["tier"] == nil })
        #expect(Set(g.map(\.id)).isDisjoint(with: p.map(\.id)))
        // History per identity: ada's visit is hers alone.
        _ = try await host.process([Event(name: "v", type: "visit", source: "s", data: ["user": "ada"])])
        let ada = try await host.process([Event(name: "c", type: "check", source: "s", data: ["user": "ada"])])
        let bob = try await host.process([Event(name: "c", type: "check", source: "s", data: ["user": "bob"])])
        #expect(ada.first?.data?["returning"] == true)
        #expect(bob.first?.data?["returning"] == nil)
    }

    /// Each block's stages are reported once it is answered: history read, evaluation and write with block
    /// history, evaluation alone without.
    @Test func blocksReportWhereTheirTimeWent() async throws {
        let path = try Self.rules()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let timings = Locked<[BlockTiming]>([])
        var c = RulesHost.Configuration(rules: [path])
        c.identityPath = ["user"]
        c.onBlockTimed = { t in timings.withLock { $0.append(t) } }
        let plain = try RulesHost(c)
        _ = try await plain.process([Event(name: "v", type: "visit", source: "s", data: ["user": "ada"])])
        #expect(timings.withLock { $0.count } == 1)
        #expect(timings.withLock { $0.first?.read == nil && $0.first?.write == nil })

        timings.withLock { $0.removeAll() }
        c.blockHistory = try BlockHistory(backend: InMemoryEventHistory())
        let blocks = try RulesHost(c)
        _ = try await blocks.process([Event(name: "v", type: "visit", source: "s", data: ["user": "ada"])])
        _ = try await blocks.process([Event(name: "c", type: "check", source: "s", data: ["user": "ada"])])
        let seen = timings.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.read != nil && $0.write != nil && $0.evaluate >= .zero })
    }
}
