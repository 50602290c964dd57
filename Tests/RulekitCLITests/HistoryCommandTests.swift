import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// `rulekit history export` and `stats` on each store a history lives in: a `run --data-dir` folder, a
/// SQLite file a live server holds (refused), and PostgreSQL while a server writes it.
@Suite(.serialized) struct HistoryCommandTests {
    static func lines(_ text: String) throws -> [Value] {
        try text.split(separator: "\n").map { try JSONReader.value(String($0)) }
    }

    @Test func aDataFolderIsExportedPerIdentity() throws {
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let events = dir.appendingPathComponent("events.jsonl")
        try [ServeHistoryTests.event("visit", "ada"), ServeHistoryTests.event("visit", "ada"), ServeHistoryTests.event("visit", "bob")]
            .joined(separator: "\n").write(to: events, atomically: true, encoding: .utf8)
        let data = dir.appendingPathComponent("data").path
        let run = try CLIRunner.run([
            "run", "--rules", rules.path, "--identity", "xdm.identityMap.ECID.0.id", "--data-dir", data, events.path,
        ])
        #expect(run.status == 0, "\(run.transcript)")
        let stats = try CLIRunner.run(["history", "stats", "--data-dir", data])
        #expect(stats.status == 0, "\(stats.transcript)")
        let figures = try JSONReader.value(stats.stdout)
        #expect(figures["records"] == 3 && figures["identities"] == 2, "\(stats.stdout)")
        let ada = try CLIRunner.run(["history", "export", "--data-dir", data, "--identity", "ada"])
        let records = try Self.lines(ada.stdout)
        #expect(records.count == 2)
        #expect(records.allSatisfy { $0["identity"] == "ada" && $0["key"]?.stringValue?.isEmpty == false })
        #expect(Set(records.compactMap { $0["hash"] }).count == 1, "both visits of the same page: one hash")
        let nobody = try CLIRunner.run(["history", "export", "--data-dir", data, "--identity", "nobody"])
        #expect(nobody.status == 0 && nobody.stdout.isEmpty)
        let missing = try CLIRunner.run(["history", "stats", "--data-dir", dir.appendingPathComponent("none").path])
        #expect(missing.status == 2 && missing.stderr.contains("no history at"), "\(missing.transcript)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("none").path), "reading makes no store")
        #expect(try CLIRunner.run(["history", "stats", "--history", "memory"]).status == 2)
    }

    @Test func aSQLiteHistoryALiveServerHoldsIsRefused() throws {
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("history.sqlite").path
        let server = try ServeProcess(["--rules", rules.path, "--history", "sqlite:" + db])
        defer { #expect(server.stop() == 0) }
        let r = try CLIRunner.run(["history", "export", "--history", "sqlite:" + db, "--identity", "ada"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("is in use by another process"), "\(r.transcript)")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"] != nil, "set RULEKIT_TEST_POSTGRES (.ci/run does)"))
    func postgreSQLIsExportedWhileAServerWritesIt() throws {
        let pg = try #require(ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"])
        let rules = try ServeHistoryTests.rulesFile()
        defer { try? FileManager.default.removeItem(at: rules.deletingLastPathComponent()) }
        let server = try ServeProcess(["--rules", rules.path, "--history", pg, "--identity", "xdm.identityMap.ECID.0.id"])
        defer { #expect(server.stop() == 0) }
        let who = "export-\(UUID())"
        let url = server.base.appendingPathComponent("v1/events")
        for _ in 0..<3 { #expect(try HTTP.call(url, method: "POST", body: ServeHistoryTests.event("visit", who)).status == 200) }
        var records: [Value] = []
        for _ in 0..<100 where records.count < 3 {
            records = try Self.lines(try CLIRunner.run(["history", "export", "--history", pg, "--identity", who]).stdout)
            if records.count < 3 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(records.count == 3 && records.allSatisfy { $0["identity"]?.stringValue == who })
        let stats = try JSONReader.value(try CLIRunner.run(["history", "stats", "--history", pg]).stdout)
        #expect((stats["records"]?.intValue ?? 0) >= 3 && (stats["identities"]?.intValue ?? 0) >= 1)
    }
}
