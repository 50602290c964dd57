import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `rulekit serve` process on a free port, stopped (SIGTERM) when the test is done with it.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let base: URL
    let stderr = Pipe()

    init(_ args: [String], in directory: URL? = nil) throws {
        process.executableURL = try CLIRunner.requireExecutable()
        process.arguments = ["serve", "--listen", "127.0.0.1:0"] + args
        process.currentDirectoryURL = directory ?? SharedCorpus.repositoryRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = stderr
        try process.run()
        // Standard error read as it comes (a full pipe would stop the server), kept for `stderrText`.
        let handle = stderr.fileHandleForReading
        let log = self.log
        Thread.detachNewThread {
            // `availableData` hands back what is there (a read of a count waits for all of it).
            while case let chunk = handle.availableData, !chunk.isEmpty { log.withLock { $0.append(chunk) } }
        }
        // The first line says where it listens.
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0A]) { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "http://") ?? text.range(of: "https://") else {
            process.terminate()
            throw NSError(domain: "serve", code: 1, userInfo: [NSLocalizedDescriptionKey: "no address in '\(text)'"])
        }
        base = URL(string: String(text[range.lowerBound...]))!
    }

    private let log = Locked(Data())

    /// What the server wrote on standard error so far.
    func stderrText() -> String { String(decoding: log.withLock { $0 }, as: UTF8.self) }

    /// SIGKILL: the process ends at once, with nothing flushed.
    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGTERM, then the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// A blocking HTTP call for tests.
enum HTTP {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    static func call(_ url: URL, method: String = "GET", body: String? = nil, headers: [String: String] = [:]) throws -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        if let body { request.httpBody = Data(body.utf8) }
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<Reply, any Error>?>(nil)
        URLSession.shared.dataTask(with: request) { data, response, error in
            defer { done.signal() }
            if let error {
                result.withLock { $0 = .failure(error) }
                return
            }
            let http = response as? HTTPURLResponse
            var headers: [String: String] = [:]
            for (k, v) in http?.allHeaderFields ?? [:] { headers["\(k)".lowercased()] = "\(v)" }
            result.withLock {
                $0 = .success(Reply(status: http?.statusCode ?? 0, headers: headers, body: String(decoding: data ?? Data(), as: UTF8.self)))
            }
        }.resume()
        _ = done.wait(timeout: .now() + 60)
        guard let r = result.withLock({ $0 }) else { throw NSError(domain: "http", code: 1) }
        return try r.get()
    }
}

/// `rulekit serve` end to end: the same rules give the same output as `rulekit run`; bad input gets a
/// located 4xx; a broken rules file is refused whole while the previous rules keep serving; SIGTERM ends it
/// cleanly.
@Suite(.serialized) struct ServeCommandTests {
    static let state = ["--state", "com.adobe.module.configuration=Examples/state.json"]

    /// Events' ids differ per run: replaced by their order of appearance.
    static func normalized(_ text: String) -> String {
        var map: [String: String] = [:]
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            var s = String(line)
            let pattern = /[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/
            for m in s.matches(of: pattern) {
                let id = String(m.output)
                if map[id] == nil { map[id] = "ID-\(map.count + 1)" }
            }
            for (id, label) in map { s = s.replacingOccurrences(of: id, with: label) }
            out += s + "\n"
        }
        return out
    }

    @Test func aBatchGivesWhatRunGives() throws {
        let server = try ServeProcess(["--history", "memory"] + Self.state)
        defer { #expect(server.stop() == 0) }
        let events = try String(contentsOf: SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl"), encoding: .utf8)
        let reply = try HTTP.call(server.base.appendingPathComponent("v1/events"), method: "POST", body: events)
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "application/x-ndjson")
        let run = try CLIRunner.run(["run"] + Self.state + ["Examples/events.jsonl"])
        #expect(run.status == 0)
        #expect(Self.normalized(reply.body) == Self.normalized(run.stdout))
        // The same batch as a JSON array, and as an envelope whose states stand in for the published ones.
        let array = "[" + events.split(separator: "\n").joined(separator: ",") + "]"
        let asArray = try HTTP.call(server.base.appendingPathComponent("v1/events"), method: "POST", body: array)
        #expect(Self.normalized(asArray.body) == Self.normalized(run.stdout))
        let purchase =
            #"{"name":"Purchase","type":"com.adobe.eventType.edge","source":"com.adobe.eventSource.requestContent","data":{"xdm":{"eventType":"commerce.purchases","commerce":{"order":{"priceTotal":959.45,"currencyCode":"GBP"}},"marketing":{"trackingCode":"cmp1"}}}}"#
        let optedIn = try HTTP.call(
            server.base.appendingPathComponent("v1/events"), method: "POST",
            body: #"{"events":[\#(purchase)],"states":{"com.adobe.module.configuration":{"global.privacy":"optedin"}}}"#)
        let optedOut = try HTTP.call(
            server.base.appendingPathComponent("v1/events"), method: "POST",
            body: #"{"events":[\#(purchase)],"states":{"com.adobe.module.configuration":{"global.privacy":"optedout"}}}"#)
        #expect(optedIn.status == 200 && optedOut.status == 200)
        #expect(optedIn.body.contains("cmp1"), "the batch's own states must reach the rules")
        #expect(!optedOut.body.contains("cmp1"))
        let metrics = try HTTP.call(server.base.appendingPathComponent("metrics"))
        #expect(metrics.body.contains("rulekit_events_in_total 10"))
        #expect(metrics.body.contains(#"rulekit_rules_fired_total{rule="big-order"}"#))
    }

    @Test func unchangedDataIsAnsweredAsSent() throws {
        // Spaced-out JSON lines: data no rule changes is answered as sent, as `rulekit run` writes it.
        let server = try ServeProcess(["--history", "memory"] + Self.state)
        defer { #expect(server.stop() == 0) }
        let events = try String(contentsOf: SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl"), encoding: .utf8)
        let spaced = events.replacingOccurrences(of: "\":", with: "\" : ")
        let reply = try HTTP.call(server.base.appendingPathComponent("v1/events"), method: "POST", body: spaced)
        let run = try CLIRunner.run(["run"] + Self.state + ["-"], stdin: spaced)
        #expect(reply.status == 200 && run.status == 0)
        #expect(Self.normalized(reply.body) == Self.normalized(run.stdout))
        #expect(
            run.stdout.contains(
                #""data":{"xdm" : {"_id" : "5f0c1a2e-0000-4000-8000-000000000002","timestamp" : "2026-03-02T10:15:00Z","eventType" : "commerce.productListAdds""#
            ))
    }

    @Test func badInputGetsALocatedClientError() throws {
        let server = try ServeProcess(["--history", "memory", "--max-events", "3"])
        defer { server.stop() }
        let url = server.base.appendingPathComponent("v1/events")
        let broken = try HTTP.call(url, method: "POST", body: "{\"name\":\"a\"}\n{\"name\": tru}\n")
        #expect(broken.status == 400)
        let error = try JSONReader.value(broken.body)
        #expect(error["line"] == 2)
        #expect(error["column"] != nil)
        let tooMany = try HTTP.call(url, method: "POST", body: String(repeating: "{\"name\":\"e\"}\n", count: 4))
        #expect(tooMany.status == 413)
        let notAnEvent = try HTTP.call(url, method: "POST", body: "[1]")
        #expect(notAnEvent.status == 400)
        #expect(try HTTP.call(server.base.appendingPathComponent("healthz")).status == 200)
        #expect(try HTTP.call(server.base.appendingPathComponent("readyz")).status == 200)
    }

    @Test func aBrokenRulesFileIsRefusedWholeAndThePreviousRulesKeepServing() throws {
        let dir = Scratch.url("rk-serve-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = dir.appendingPathComponent("rules.yaml")
        try "rules:\n  - {id: tag, when: {key: ~type, eq: t}, then: [{add: {tagged: one}}]}\n".write(
            to: rules, atomically: true, encoding: .utf8)
        let server = try ServeProcess(["--history", "memory", "--rules", rules.path, "--schemas", "Schemas"])
        defer { server.stop() }
        let url = server.base.appendingPathComponent("v1/events")
        let event = #"{"name":"e","type":"t","source":"s","data":{}}"#
        #expect(try HTTP.call(url, method: "POST", body: event).body.contains(#""tagged":"one""#))
        // Broken: refused, and the old rule still answers.
        try "rules:\n  - {id: tag, when: {key: ~type, eqq: t}\n".write(to: rules, atomically: true, encoding: .utf8)
        kill(server.process.processIdentifier, SIGHUP)
        var status = try JSONReader.value(try HTTP.call(server.base.appendingPathComponent("v1/rules")).body)
        for _ in 0..<100 where status["lastAttempt"]?["loaded"] != false {
            Thread.sleep(forTimeInterval: 0.05)
            status = try JSONReader.value(try HTTP.call(server.base.appendingPathComponent("v1/rules")).body)
        }
        #expect(status["lastAttempt"]?["loaded"] == false)
        #expect(status["lastAttempt"]?["diagnostics"]?[0]?["location"]?.stringValue?.hasPrefix(rules.path + ":") == true)
        #expect(try HTTP.call(url, method: "POST", body: event).body.contains(#""tagged":"one""#))
        #expect(try HTTP.call(server.base.appendingPathComponent("metrics")).body.contains("rulekit_rules_reload_failures_total 1"))
        // Fixed: the change is seen without a signal.
        try "rules:\n  - {id: tag, when: {key: ~type, eq: t}, then: [{add: {tagged: two}}]}\n".write(
            to: rules, atomically: true, encoding: .utf8)
        var body = ""
        for _ in 0..<200 where !body.contains(#""tagged":"two""#) {
            Thread.sleep(forTimeInterval: 0.05)
            body = try HTTP.call(url, method: "POST", body: event).body
        }
        #expect(body.contains(#""tagged":"two""#))
        let valid = try HTTP.call(server.base.appendingPathComponent("v1/xdm/validate"), method: "POST", body: #"{"eventType": 5}"#)
        #expect(valid.status == 200)
        #expect(try JSONReader.value(valid.body)["valid"] == false)
    }
}

/// Serve runs the Check as every command does, and says plainly what keeps it from listening.
@Suite struct ServeCheckTests {
    @Test func aReloadWithACheckErrorIsRefusedAndTheLastGoodRulesKeepServing() throws {
        let dir = Scratch.url("rk-serve-check-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = dir.appendingPathComponent("rules.yaml")
        try "rules:\n  - {id: tag, when: {key: ~type, eq: t}, then: [{add: {tagged: one}}]}\n".write(
            to: rules, atomically: true, encoding: .utf8)
        let server = try ServeProcess(["--history", "memory", "--rules", rules.path])
        defer { server.stop() }
        let url = server.base.appendingPathComponent("v1/events")
        let event = #"{"name":"e","type":"t","source":"s","data":{}}"#
        // Loads, but reads a data element nobody defined: the Check's error, refused as a load error is.
        try "rules:\n  - {id: tag, when: {key: '%nope%', eq: t}, then: [{add: {tagged: two}}]}\n".write(
            to: rules, atomically: true, encoding: .utf8)
        kill(server.process.processIdentifier, SIGHUP)
        var status = try JSONReader.value(try HTTP.call(server.base.appendingPathComponent("v1/rules")).body)
        for _ in 0..<100 where status["lastAttempt"]?["loaded"] != false {
            Thread.sleep(forTimeInterval: 0.05)
            status = try JSONReader.value(try HTTP.call(server.base.appendingPathComponent("v1/rules")).body)
        }
        #expect(status["lastAttempt"]?["loaded"] == false, "\(status)")
        #expect(try HTTP.call(url, method: "POST", body: event).body.contains(#""tagged":"one""#))
    }

    @Test func aPortInUseIsAUsageErrorThatSaysSo() throws {
        let first = try ServeProcess(["--history", "memory"])
        defer { first.stop() }
        let taken = "\(first.base.host ?? "127.0.0.1"):\(first.base.port ?? 0)"
        let r = try CLIRunner.run(["serve", "--history", "memory", "--listen", taken])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("cannot listen on \(taken): the address is already in use"), "\(r.stderr)")
        #expect(!r.stderr.contains("bind(descriptor"))
    }
}

/// History per identity, on one node (SQLite) and across a fleet (two servers on one PostgreSQL).
@Suite(.serialized) struct ServeHistoryTests {
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
                - history: {events: [{visit.page: home}], matcher: ge, value: 1}
            then:
              - add: {returning: true}

        """

    static func event(_ type: String, _ ecid: String) -> String {
        #"{"name":"\#(type)","type":"\#(type)","source":"s","data":{"page":"home","xdm":{"identityMap":{"ECID":[{"id":"\#(ecid)"}]}}}}"#
    }

    static func rulesFile() throws -> URL {
        let dir = Scratch.url("rk-history-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let f = dir.appendingPathComponent("rules.yaml")
        try rules.write(to: f, atomically: true, encoding: .utf8)
        return f
    }

    @Test func eachIdentityHasItsOwnHistory() throws {
        let rules = try Self.rulesFile()
        defer { try? FileManager.default.removeItem(at: rules.deletingLastPathComponent()) }
        let db = rules.deletingLastPathComponent().appendingPathComponent("history.sqlite").path
        let server = try ServeProcess([
            "--rules", rules.path, "--history", "sqlite:" + db, "--identity", "xdm.identityMap.ECID.0.id",
        ])
        defer { #expect(server.stop() == 0) }
        let url = server.base.appendingPathComponent("v1/events")
        #expect(try HTTP.call(url, method: "POST", body: Self.event("visit", "ada")).status == 200)
        #expect(try HTTP.call(url, method: "POST", body: Self.event("check", "ada")).body.contains(#""returning":true"#))
        #expect(!(try HTTP.call(url, method: "POST", body: Self.event("check", "bob")).body.contains("returning")))
    }

    /// A SQLite history is indexed in the memory of the process that holds it: another process that
    /// opens it (a second server, a run over the same data folder) is refused with a clear error, exit 2.
    @Test func aSQLiteHistoryInUseIsRefusedToAnotherProcess() throws {
        let rules = try Self.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeProcess(["--rules", rules.path, "--history", "sqlite:" + dir.appendingPathComponent("history.sqlite").path])
        defer { #expect(server.stop() == 0) }
        let events = dir.appendingPathComponent("events.jsonl")
        try #"{"type":"visit","source":"s","data":{}}"#.write(to: events, atomically: true, encoding: .utf8)
        let run = try CLIRunner.run(["run", "--rules", rules.path, "--data-dir", dir.path, events.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("is in use by another process"), "\(run.stderr)")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"] != nil, "set RULEKIT_TEST_POSTGRES (.ci/run does)"))
    func aFleetSharesHistoryThroughPostgreSQL() throws {
        let pg = try #require(ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"])
        let rules = try Self.rulesFile()
        defer { try? FileManager.default.removeItem(at: rules.deletingLastPathComponent()) }
        let args = ["--rules", rules.path, "--history", pg, "--identity", "xdm.identityMap.ECID.0.id"]
        let a = try ServeProcess(args)
        let b = try ServeProcess(args)
        defer {
            #expect(a.stop() == 0)
            #expect(b.stop() == 0)
        }
        let who = "fleet-\(UUID())"
        // Each server makes the table (if missing) when the database first answers.
        for server in [a, b] {
            var ready = false
            for _ in 0..<200 where !ready {
                ready = try HTTP.call(server.base.appendingPathComponent("metrics")).body.contains("rulekit_history_ready 1")
                if !ready { Thread.sleep(forTimeInterval: 0.05) }
            }
            #expect(ready)
        }
        #expect(try HTTP.call(a.base.appendingPathComponent("v1/events"), method: "POST", body: Self.event("visit", who)).status == 200)
        // Recorded through A, seen by B; another identity sees nothing.
        let seen = try HTTP.call(b.base.appendingPathComponent("v1/events"), method: "POST", body: Self.event("check", who))
        #expect(seen.body.contains(#""returning":true"#), "\(seen.body)")
        let other = try HTTP.call(b.base.appendingPathComponent("v1/events"), method: "POST", body: Self.event("check", who + "-other"))
        #expect(!other.body.contains("returning"))
    }
}

/// PostgreSQL unreachable: the engine goes on with the reference's error value for history queries, and
/// records wait in the spool (counted), as docs/serving.md says.
@Suite struct ServeHistoryOutageTests {
    @Test func anUnreachableDatabaseAnswersTheErrorValueAndSpoolsRecords() throws {
        let rules = try ServeHistoryTests.rulesFile()
        defer { try? FileManager.default.removeItem(at: rules.deletingLastPathComponent()) }
        // A port nothing listens on.
        let spool = rules.deletingLastPathComponent().appendingPathComponent("history.spool")
        let server = try ServeProcess([
            "--rules", rules.path, "--history", "postgres://nobody@127.0.0.1:9/none", "--identity", "xdm.identityMap.ECID.0.id",
            "--history-spool", spool.path,
        ])
        defer { #expect(server.stop() == 0) }
        let url = server.base.appendingPathComponent("v1/events")
        #expect(try HTTP.call(url, method: "POST", body: ServeHistoryTests.event("visit", "ada")).status == 200)
        let check = try HTTP.call(url, method: "POST", body: ServeHistoryTests.event("check", "ada"))
        #expect(check.status == 200)
        #expect(!check.body.contains("returning"))
        let metrics = try HTTP.call(server.base.appendingPathComponent("metrics")).body
        #expect(metrics.contains("rulekit_history_spooled_total 1"))
        #expect(metrics.contains("rulekit_history_spool_records 1"))
        #expect(metrics.contains("rulekit_history_ready 0"))
        #expect(metrics.contains("rulekit_history_breaker_open 1"))
        // Kept in a file that outlives the process.
        #expect(try String(contentsOf: spool, encoding: .utf8).split(separator: "\n").count == 1)
        let ready = try HTTP.call(server.base.appendingPathComponent("readyz"))
        #expect(ready.status == 200)
        #expect(ready.body.contains(#""breaker":"open""#) && ready.body.contains(#""spooled":1"#))
    }
}

/// The `serve --help` example runs as printed (on a free port, with its history in a fresh folder).
@Suite struct ServeHelpExampleTests {
    @Test func theHelpExampleServes() throws {
        let help = try CLIRunner.run(["serve", "--help"])
        #expect(help.status == 0)
        let example = try #require(HelpExampleTests.examples(help.stdout).first)
        #expect(example.first == "serve")
        let dir = Scratch.url("rk-serve-help-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var args = Array(example.dropFirst())
        if let i = args.firstIndex(of: "--listen") { args.removeSubrange(i...(i + 1)) }
        if let i = args.firstIndex(of: "--history") { args[i + 1] = "sqlite:" + dir.appendingPathComponent("h.sqlite").path }
        let server = try ServeProcess(args)
        defer { #expect(server.stop() == 0) }
        #expect(try HTTP.call(server.base.appendingPathComponent("healthz")).status == 200)
    }
}
