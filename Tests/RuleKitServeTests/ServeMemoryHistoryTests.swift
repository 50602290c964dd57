import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitServe

/// `--history memory`: the hubs record into the store directly, and a batch sent again (the same event ids)
/// is not counted again, as with a database behind the history.
@Suite struct ServeMemoryHistoryTests {
    @Test func aBatchSentTwiceIsCountedOnce() async throws {
        let dir = Scratch.url("rk-memory-\(UUID())")
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
                - {key: ~type, eq: check}
                - history: {events: [{visit: "yes"}], matcher: ge, value: 2}
            then: [{add: {returning: true}}]
        """.write(to: dir.appendingPathComponent("rules.yaml"), atomically: true, encoding: .utf8)
        var o = ServeOptions()
        o.rules = [dir.path]
        o.history = .memory
        o.identityPath = ["user"]
        o.workers = 2
        let service = try EnrichmentService(o)
        func check() async throws -> Value? {
            try await service.enrich([Event(name: "c", type: "check", source: "s", data: ["user": "ada"])]).first?.data?["returning"]
        }
        let first = Event(name: "v", type: "visit", source: "s", data: ["user": "ada"])
        // The same batch on each worker: one record.
        for _ in 0..<2 { _ = try await service.enrich([first]) }
        #expect(try await check() == nil)
        // Another visit: two.
        _ = try await service.enrich([Event(name: "v", type: "visit", source: "s", data: ["user": "ada"])])
        #expect(try await check() == true)
        // Another identity's history is its own.
        #expect(
            try await service.enrich([Event(name: "c", type: "check", source: "s", data: ["user": "bob"])]).first?.data?["returning"]
                == nil)
    }
}
