import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// A person's history through `rulekit serve` (`/v1/history/…`): exported and erased on each store with an
/// admin token, refused to an ingest token and to none, off without admin tokens; each call audited
/// without the identity in clear; an erasure that outlives a `kill -9`.
@Suite(.serialized) struct ServeHistoryAdminTests {
    /// A server with an ingest token (`ingest`) and an admin token (`admin`), its history at `history`.
    static func serve(_ history: String, in dir: URL, rules: URL, admin: Bool = true) throws -> ServeProcess {
        try "ingest\n".write(to: dir.appendingPathComponent("ingest"), atomically: true, encoding: .utf8)
        try "# the privacy team\nadmin\n".write(to: dir.appendingPathComponent("admins"), atomically: true, encoding: .utf8)
        var args = [
            "--rules", rules.path, "--history", history, "--identity", "xdm.identityMap.ECID.0.id", "--auth-token-file",
            dir.appendingPathComponent("ingest").path,
        ]
        if admin { args += ["--admin-token-file", dir.appendingPathComponent("admins").path] }
        return try ServeProcess(args)
    }

    static func call(_ server: ServeProcess, _ path: String, _ method: String = "GET", body: String? = nil, token: String? = "admin")
        throws -> HTTP.Reply
    {
        let url = try #require(URL(string: server.base.absoluteString + path))
        return try HTTP.call(url, method: method, body: body, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    static func post(_ server: ServeProcess, _ type: String, _ who: String) throws -> String {
        let r = try call(server, "/v1/events", "POST", body: ServeHistoryTests.event(type, who), token: "ingest")
        #expect(r.status == 200, "\(r.body)")
        return r.body
    }

    static func lines(_ text: String) throws -> [Value] {
        try text.split(separator: "\n").map { try JSONReader.value(String($0)) }
    }

    /// Export, erase (by mask, then whole), and a historical rule no longer seeing the person; another
    /// identity untouched; an unknown one an empty export and a delete of 0, every time.
    static func exportAndErase(_ server: ServeProcess) throws {
        let who = "ada/\(UUID()) x%"
        let path = "/v1/history/" + (who.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? who)
        _ = try post(server, "visit", who)
        _ = try post(server, "visit", who)
        _ = try post(server, "visit", "bob")
        #expect(try post(server, "check", who).contains(#""returning":true"#))
        var exported: [Value] = []
        for _ in 0..<100 where exported.count < 2 {
            exported = try lines(try call(server, path).body)
            if exported.count < 2 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(exported.count == 2 && exported.allSatisfy { $0["identity"]?.stringValue == who }, "\(exported)")
        let viaBody = try call(server, "/v1/history/export", "POST", body: JSONWriter.string(["identity": .string(who)]))
        let viaBodyLines = try lines(viaBody.body)
        #expect(viaBody.status == 200 && viaBodyLines == exported)
        // Another mask: nothing goes.
        let shop = #"{"visit.page":"shop"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let other = try call(server, path + "?mask=" + shop, "DELETE")
        let otherCount = try JSONReader.value(other.body)["deleted"]
        #expect(other.status == 200 && otherCount == 0, "\(other.body)")
        #expect(try post(server, "check", who).contains(#""returning":true"#))
        let gone = try call(
            server, "/v1/history/delete", "POST", body: JSONWriter.string(["identity": .string(who), "from": "2000-01-01"]))
        let goneCount = try JSONReader.value(gone.body)["deleted"]
        #expect(gone.status == 200 && goneCount == 2, "\(gone.body)")
        #expect(!(try post(server, "check", who).contains("returning")))
        #expect(try post(server, "check", "bob").contains(#""returning":true"#))
        #expect(try call(server, path).body.isEmpty)
        for _ in 0..<2 {
            let nobody = try call(server, "/v1/history/nobody-\(UUID())", "DELETE")
            let nobodyCount = try JSONReader.value(nobody.body)["deleted"]
            #expect(nobody.status == 200 && nobodyCount == 0)
            let empty = try call(server, "/v1/history/nobody")
            #expect(empty.status == 200 && empty.body.isEmpty)
        }
        // The audit trail names the admin token by its line and the person by a digest, never in clear.
        let log = server.stderrText()
        #expect(log.contains("history delete") && log.contains("deleted=2") && log.contains("token=admins:2"), "\(log)")
        #expect(!log.contains(who) && !log.contains("bob"), "an identity in clear in the log")
    }

    @Test(arguments: ["memory", "sqlite"]) func aPersonIsExportedAndErasedOnEachStore(_ store: String) throws {
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let history = store == "memory" ? "memory" : "sqlite:" + dir.appendingPathComponent("history.sqlite").path
        let server = try Self.serve(history, in: dir, rules: rules)
        defer { #expect(server.stop() == 0) }
        try Self.exportAndErase(server)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"] != nil, "set RULEKIT_TEST_POSTGRES (.ci/run does)"))
    func aPersonIsExportedAndErasedOnPostgreSQL() throws {
        let pg = try #require(ProcessInfo.processInfo.environment["RULEKIT_TEST_POSTGRES"])
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try Self.serve(pg, in: dir, rules: rules)
        defer { #expect(server.stop() == 0) }
        try Self.exportAndErase(server)
    }

    @Test func onlyAnAdminTokenOpensTheHistoryRoutes() throws {
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try Self.serve("memory", in: dir, rules: rules)
        defer { #expect(server.stop() == 0) }
        for (method, path, body) in [
            ("GET", "/v1/history/ada", nil), ("DELETE", "/v1/history/ada", nil), ("POST", "/v1/history/export", #"{"identity":"ada"}"#),
            ("POST", "/v1/history/delete", #"{"identity":"ada"}"#),
        ] {
            let ingest = try Self.call(server, path, method, body: body, token: "ingest")
            #expect(ingest.status == 403 && ingest.body.contains("--admin-token-file"), "\(method) \(path): \(ingest.status)")
            let none = try Self.call(server, path, method, body: body, token: nil)
            #expect(none.status == 401 && none.headers["www-authenticate"] != nil)
            #expect(try Self.call(server, path, method, body: body, token: "wrong").status == 401)
            #expect(try Self.call(server, path, method, body: body).status == 200)
        }
        // An admin token is not an ingest token.
        #expect(try Self.call(server, "/v1/events", "POST", body: ServeHistoryTests.event("visit", "ada")).status == 401)
        #expect(try Self.call(server, "/v1/history/ada", "POST").status == 405)
        #expect(try Self.call(server, "/v1/history/export", "GET").status == 405)
        #expect(try Self.call(server, "/v1/history/", "GET").status == 404)
        #expect(try Self.call(server, "/v1/history/a/b", "GET").status == 404)

        let plain = try Self.serve("memory", in: dir, rules: rules, admin: false)
        defer { #expect(plain.stop() == 0) }
        let off = try Self.call(plain, "/v1/history/ada", "DELETE")
        #expect(off.status == 404 && off.body.contains("--admin-token-file"), "\(off.body)")
    }

    @Test func aRequestThatIsNotOneIsA400() throws {
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try Self.serve("memory", in: dir, rules: rules)
        defer { #expect(server.stop() == 0) }
        for (path, method, body, says) in [
            ("/v1/history/ada?from=yesterday", "DELETE", nil, "from takes ISO 8601"),
            ("/v1/history/ada?mask=nope", "DELETE", nil, "mask takes a JSON object"),
            ("/v1/history/ada?maskHash=-1", "DELETE", nil, "a mask hash is a number"),
            ("/v1/history/ada?color=red", "DELETE", nil, "unknown parameter 'color'"),
            ("/v1/history/ada?from=1", "GET", nil, "an export takes no parameter"),
            ("/v1/history/delete", "POST", "[1]", "must be a JSON object"),
            ("/v1/history/delete", "POST", "{", "not JSON"),
            ("/v1/history/delete", "POST", #"{"id":"ada"}"#, "unknown member"),
            ("/v1/history/delete", "POST", #"{"identity":7}"#, "must be given, as a string"),
            ("/v1/history/delete", "POST", #"{"identity":""}"#, "1 to 1024 bytes"),
            ("/v1/history/delete", "POST", #"{"identity":"a","masks":[1]}"#, "must be a JSON object"),
            ("/v1/history/delete", "POST", #"{"identity":"a","to":true}"#, "ISO 8601 text or milliseconds"),
            ("/v1/history/export", "POST", #"{"identity":"a","from":1}"#, "an export takes only"),
        ] {
            let r = try Self.call(server, path, method, body: body)
            #expect(r.status == 400 && r.body.contains(says), "\(method) \(path) \(body ?? ""): \(r.status) \(r.body)")
        }
        // The widest window a number can say is one (the fuzzer's find: the audit line once trapped on it).
        let wide = try Self.call(
            server, "/v1/history/delete", "POST", body: #"{"identity":"%Ü","from":-1.7976931348623157e308,"to":1.7976931348623157e308}"#)
        #expect(wide.status == 200, "\(wide.body)")
        #expect(try Self.call(server, "/v1/history/x?from=-1e308&to=1e308", "DELETE").status == 200)
    }

    /// An erasure answered before a `kill -9` holds after the restart: the records are gone from the file
    /// and a historical rule sees nothing.
    @Test func anErasureOutlivesAKill() throws {
        let rules = try ServeHistoryTests.rulesFile()
        let dir = rules.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let history = "sqlite:" + dir.appendingPathComponent("history.sqlite").path
        let first = try Self.serve(history, in: dir, rules: rules)
        for _ in 0..<3 { _ = try Self.post(first, "visit", "kim") }
        #expect(try Self.post(first, "check", "kim").contains("returning"))
        let gone = try Self.call(first, "/v1/history/kim", "DELETE")
        let goneCount = try JSONReader.value(gone.body)["deleted"]
        #expect(gone.status == 200 && goneCount == 3, "\(gone.body)")
        first.kill()
        let second = try Self.serve(history, in: dir, rules: rules)
        defer { #expect(second.stop() == 0) }
        #expect(try Self.call(second, "/v1/history/kim").body.isEmpty)
        #expect(!(try Self.post(second, "check", "kim").contains("returning")))
        _ = try Self.post(second, "visit", "kim")
        #expect(try Self.post(second, "check", "kim").contains("returning"), "a visit after the erasure is history again")
    }
}
