import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitServe

/// `/metrics` says where blocks spend their time: one observation per stage per batch.
@Suite struct ServeMetricsTests {
    @Test func eachBatchIsTimedByStage() async throws {
        let dir = Scratch.url("rk-metrics-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try """
        rules:
          - id: record
            when: {key: ~type, eq: visit}
            then: [{history: {operation: insert, content: {visit: "yes"}}}]
          - id: returning
            when:
              all:
                - {key: ~type, eq: visit}
                - history: {events: [{visit: "yes"}], matcher: ge, value: 1}
            then: [{add: {returning: true}}]
        """.write(to: dir.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        var o = ServeOptions()
        o.rules = [dir.path]
        o.history = .sqlite(dir.appendingPathComponent("history.sqlite").path)
        o.identityPath = ["user"]
        o.workers = 1
        let service = try EnrichmentService(o)
        for _ in 0..<2 {
            _ = try await service.enrich([Event(name: "v", type: "visit", source: "s", data: ["user": "ada"])])
        }
        let text = service.metrics.render(history: service.historyStatus)
        for stage in ["read", "evaluate", "write"] {
            #expect(text.contains(#"rulekit_block_stage_duration_seconds_count{stage="\#(stage)"} 2"#), "\(stage)")
        }

        // History in memory is asked and kept on the hubs: evaluation is the whole of a batch's time.
        o.history = .memory
        let memory = try EnrichmentService(o)
        _ = try await memory.enrich([Event(name: "v", type: "visit", source: "s", data: ["user": "ada"])])
        let mine = memory.metrics.render(history: memory.historyStatus)
        #expect(mine.contains(#"rulekit_block_stage_duration_seconds_count{stage="evaluate"} 1"#))
        #expect(mine.contains(#"rulekit_block_stage_duration_seconds_count{stage="read"} 0"#))
    }
}
