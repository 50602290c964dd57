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

    @Test func aDeletedPersonIsNotSeenByAHistoricalRule() throws {
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path
        func run(_ events: [String]) throws -> String {
            let file = dir.appendingPathComponent("events-\(UUID()).jsonl")
            try events.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            let r = try CLIRunner.run([
                "run", "--rules", rules.path, "--identity", "xdm.identityMap.ECID.0.id", "--data-dir", data, file.path,
            ])
            #expect(r.status == 0, "\(r.transcript)")
            return r.stdout
        }
        _ = try run([ServeHistoryTests.event("visit", "ada"), ServeHistoryTests.event("visit", "bob")])
        #expect(try run([ServeHistoryTests.event("check", "ada")]).contains(#""returning":true"#))
        // Another mask first: nothing of ada's visits goes.
        let other = try CLIRunner.run(["history", "delete", "--data-dir", data, "--identity", "ada", "--mask", #"{"visit.page":"shop"}"#])
        #expect(try JSONReader.value(other.stdout)["deleted"] == 0, "\(other.transcript)")
        let deleted = try CLIRunner.run([
            "history", "delete", "--data-dir", data, "--identity", "ada", "--mask", #"{"visit.page":"home"}"#, "--from", "2000-01-01",
        ])
        #expect(try JSONReader.value(deleted.stdout)["deleted"] == 1, "\(deleted.transcript)")
        #expect(!(try run([ServeHistoryTests.event("check", "ada")]).contains("returning")))
        #expect(try run([ServeHistoryTests.event("check", "bob")]).contains(#""returning":true"#))
        let again = try CLIRunner.run(["history", "delete", "--data-dir", data, "--identity", "ada"])
        let againCount = try JSONReader.value(again.stdout)["deleted"]
        #expect(again.status == 0 && againCount == 0)
        let bad = try CLIRunner.run(["history", "delete", "--data-dir", data, "--identity", "ada", "--from", "yesterday"])
        #expect(bad.status == 2 && bad.stderr.contains("--from takes ISO 8601"), "\(bad.transcript)")
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
    func postgreSQLIsExportedAndErasedWhileAServerWritesIt() throws {
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
        // Deleted while the server runs: its next batch no longer sees the visits.
        #expect(try HTTP.call(url, method: "POST", body: ServeHistoryTests.event("check", who)).body.contains(#""returning":true"#))
        let deleted = try CLIRunner.run(["history", "delete", "--history", pg, "--identity", who])
        #expect(try JSONReader.value(deleted.stdout)["deleted"] == 3, "\(deleted.transcript)")
        #expect(!(try HTTP.call(url, method: "POST", body: ServeHistoryTests.event("check", who)).body.contains("returning")))
        #expect(try CLIRunner.run(["history", "export", "--history", pg, "--identity", who]).stdout.isEmpty)
        let stats = try JSONReader.value(try CLIRunner.run(["history", "stats", "--history", pg]).stdout)
        #expect(stats["records"]?.intValue != nil && stats["identities"]?.intValue != nil)
    }
}
