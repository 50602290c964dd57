import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitServe

/// The service's history as batches see it: with `--history memory` the hubs record into the store
/// directly, and a batch sent again (the same event ids) is not counted again, as with a database behind
/// the history; `/metrics` says where each batch's time went.
@Suite struct ServeHistoryTests {
    /// A service over rules that record each `visit` and mark a `check` whose identity (`user`) visited
    /// twice or more, its history in memory or (`sqlite`) in a file beside the rules; `body` runs with it,
    /// and its folder is removed after.
    static func withService(
        sqlite: Bool, workers: Int, _ body: (EnrichmentService, ServeOptions) async throws -> Void
    ) async throws {
        let dir = Scratch.url("rk-serve-history-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try HistoryRules.visits.write(to: dir.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        var o = ServeOptions()
        o.rules = [dir.path]
        o.history = sqlite ? .sqlite(dir.appendingPathComponent("history.sqlite").path) : .memory
        o.identityPath = ["user"]
        o.workers = workers
        try await body(try EnrichmentService(o), o)
    }

    static func event(_ type: String, _ user: String) -> Event {
        Event(name: type, type: type, source: "s", data: ["user": .string(user)])
    }

    @Test(arguments: [false, true]) func aBatchSentTwiceIsCountedOnce(sqlite: Bool) async throws {
        try await Self.withService(sqlite: sqlite, workers: 2) { service, _ in
            func returning(_ user: String) async throws -> Value? {
                try await service.enrich([Self.event("check", user)]).first?.data?["returning"]
            }
            let first = Self.event("visit", "ada")
            // The same batch on each worker: one record.
            for _ in 0..<2 { _ = try await service.enrich([first]) }
            #expect(try await returning("ada") == nil)
            // Another visit: two.
            _ = try await service.enrich([Self.event("visit", "ada")])
            #expect(try await returning("ada") == true)
            // Another identity's history is its own.
            #expect(try await returning("bob") == nil)
        }
    }

    @Test func eachBatchIsTimedByStage() async throws {
        try await Self.withService(sqlite: true, workers: 1) { service, options in
            for _ in 0..<2 { _ = try await service.enrich([Self.event("visit", "ada")]) }
            let text = service.metrics.render(history: service.historyStatus)
            for stage in ["read", "evaluate", "write"] {
                #expect(text.contains(#"rulekit_block_stage_duration_seconds_count{stage="\#(stage)"} 2"#), "\(stage)")
            }
            // History in memory is asked and kept on the hubs: evaluation is the whole of a batch's time.
            var o = options
            o.history = .memory
            let memory = try EnrichmentService(o)
            _ = try await memory.enrich([Self.event("visit", "ada")])
            let mine = memory.metrics.render(history: memory.historyStatus)
            #expect(mine.contains(#"rulekit_block_stage_duration_seconds_count{stage="evaluate"} 1"#))
            #expect(mine.contains(#"rulekit_block_stage_duration_seconds_count{stage="read"} 0"#))
        }
    }
}
