import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// `rulekit run --data-dir`: history read and written per block of 1,024 events answers exactly as the
/// device's one-event-at-a-time history in memory, and lasts from one run to the next.
@Suite struct RunHistoryTests {
    static let rules = """
        rules:
          - id: record-visit
            when: {key: ~type, eq: visit}
            then:
              - history: {operation: insert, content: {visit.page: "{%page%}"}}
          - id: returning
            when:
              all:
                - {key: ~type, eq: check}
                - history: {events: [{visit.page: home}], matcher: ge, value: 3}
            then:
              - add: {returning: true}
          - id: recent
            when:
              all:
                - {key: ~type, eq: check}
                - history: {events: [{visit.page: home}, {visit.page: cart}], searchType: ordered, matcher: eq, value: 1}
            then:
              - add: {ordered: true}

        """

    /// 3,000 events over 40 identities (some without one), visits and checks interleaved: blocks of
    /// 1,024 cut through every identity's history.
    static var events: String {
        var rng = SeededGenerator(state: 3)
        var out = ""
        for i in 0..<3_000 {
            let type = rng.int(3) == 0 ? "check" : "visit"
            let page = rng.int(2) == 0 ? "home" : "cart"
            let who = rng.int(10) == 0 ? "" : #","xdm":{"identityMap":{"ECID":[{"id":"u\#(rng.int(40))"}]}}"#
            out += #"{"id":"e\#(i)","name":"\#(type)","type":"\#(type)","source":"s","data":{"page":"\#(page)"\#(who)}}"# + "\n"
        }
        return out
    }

    @Test func blocksAnswerAsTheDeviceAndHistoryLastsBetweenRuns() throws {
        let dir = Scratch.url("rk-run-history-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = dir.appendingPathComponent("rules.yaml")
        try Self.rules.write(to: rules, atomically: true, encoding: .utf8)
        let input = dir.appendingPathComponent("events.jsonl")
        try Self.events.write(to: input, atomically: true, encoding: .utf8)
        let args = ["run", "--rules", rules.path, "--identity", "xdm.identityMap.ECID.0.id", input.path]
        let memory = try CLIRunner.run(args)
        #expect(memory.status == 0, "\(memory.stderr)")
        let data = dir.appendingPathComponent("data").path
        let blocks = try CLIRunner.run(args + ["--data-dir", data])
        #expect(blocks.status == 0, "\(blocks.stderr)")
        #expect(PipelinedRunTests.normalized(blocks.stdout) == PipelinedRunTests.normalized(memory.stdout))
        let returning = memory.stdout.components(separatedBy: #""returning":true"#).count - 1
        let ordered = memory.stdout.components(separatedBy: #""ordered":true"#).count - 1
        #expect(returning > 100 && ordered > 100)
        // The same events again on the same folder: history lasts, so the checks that came before an
        // identity's third visit in the first run now see the first run's visits.
        let again = try CLIRunner.run(args + ["--data-dir", data])
        #expect(again.status == 0)
        #expect(again.stdout.components(separatedBy: #""returning":true"#).count - 1 > returning)
    }
}
