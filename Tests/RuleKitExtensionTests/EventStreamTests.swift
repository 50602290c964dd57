import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitTestSupport
import Testing

@testable import RuleKitHistory

/// `EventStream`: recorded events through a host in blocks, what they produced written in input order,
/// lines that are no event reported with their place, and history kept per block in order.
@Suite struct EventStreamTests {
    static func lines(_ events: [String], in dir: URL) throws -> JSONLinesReader {
        let f = dir.appendingPathComponent("events.jsonl")
        try (events.joined(separator: "\n") + "\n").write(to: f, atomically: true, encoding: .utf8)
        return try JSONLinesReader(path: f.path)
    }

    @Test func blocksGoThroughInOrderWithTheirHistory() throws {
        let path = try RulesHostTests.rules()
        let dir = URL(fileURLWithPath: (path as NSString).deletingLastPathComponent)
        defer { try? FileManager.default.removeItem(at: dir) }
        // 30 visits and checks of three users, in blocks of 4 (several blocks in flight with history).
        var events: [String] = []
        for i in 0..<30 {
            let user = ["ada", "bob", "cy"][i % 3]
            events.append(#"{"name":"e\#(i)","type":"\#(i % 2 == 0 ? "visit" : "check")","source":"s","data":{"user":"\#(user)"}}"#)
        }
        events.insert("[1, 2]", at: 7)
        let written = Locked<[UInt8]>([])
        let out = EventLines { bytes in written.withLock { $0 += bytes } }
        var problems: [String] = []
        var options = EventStream.Options()
        options.blockSize = 4
        options.workers = 1
        let history = try BlockHistory(backend: InMemoryEventHistory())
        let summary = try EventStream.run(
            try Self.lines(events, in: dir), name: "events.jsonl", options: options, output: out,
            problem: { problems.append($0) },
            boot: {
                var c = RulesHost.Configuration(rules: [path])
                c.identityPath = ["user"]
                c.blockHistory = history
                return try RulesHost(c)
            })
        #expect(summary.events == 30 && summary.bad == 1)
        #expect(problems.count == 1 && problems[0].contains("events.jsonl:8"))
        let lines = String(decoding: written.withLock { $0 }, as: UTF8.self).split(separator: "\n")
        let inputs = lines.compactMap { l -> (String, Bool)? in
            guard let o = (try? JSONReader.value(String(l)))?.objectValue, case .string(let n)? = o["name"], n.hasPrefix("e")
            else { return nil }
            return (n, o["data"]?.objectValue?["returning"] == .bool(true))
        }
        // Every input once, in input order; a check is "returning" once its user visited before it.
        #expect(inputs.map(\.0) == (0..<30).map { "e\($0)" })
        for (i, (_, returning)) in inputs.enumerated() where i % 2 == 1 {
            let user = i % 3
            let visitedBefore = (0..<i).contains { $0 % 2 == 0 && $0 % 3 == user }
            #expect(returning == visitedBefore, "e\(i)")
        }
    }
}
