import Foundation
import RuleKitCore
import RuleKitSources
import RuleKitTestSupport
import Testing

/// The fetch's policy, transport aside (a scripted transport; the real one is tested against a real
/// publisher in RulekitCLITests): https only, redirects checked per hop, credentials kept to their host,
/// validators sent, and the cache written whole.
@Suite struct RemoteRulesTests {
    /// Answers from a script, recording what was asked.
    final class Scripted: RulesTransport, @unchecked Sendable {
        let answers: [String: RulesResponse]
        let asked = Locked<[RulesRequest]>([])
        init(_ answers: [String: RulesResponse]) { self.answers = answers }
        func send(_ request: RulesRequest) async throws -> RulesResponse {
            asked.withLock { $0.append(request) }
            return answers[request.url] ?? RulesResponse(status: 404, headers: [], body: [])
        }
    }

    static func redirect(_ to: String) -> RulesResponse { RulesResponse(status: 302, headers: [("Location", to)], body: []) }

    @Test func redirectsAreCheckedHopByHop() async throws {
        let t = Scripted([
            "https://a.example/r.zip": Self.redirect("https://b.example/r.zip"),
            "https://b.example/r.zip": RulesResponse(status: 200, headers: [("ETag", "\"v1\"")], body: [1, 2]),
            "https://a.example/down": Self.redirect("http://a.example/r.zip"),
        ])
        var o = RemoteRules.Options()
        o.headers = [("Authorization", "Bearer s")]
        let remote = RemoteRules(transport: t, options: o)
        guard case .fetched(let e) = try await remote.fetch("https://a.example/r.zip", etag: "\"v0\"") else {
            Issue.record("not fetched")
            return
        }
        #expect(e.etag == "\"v1\"" && e.body == [1, 2] && e.url == "https://a.example/r.zip")
        let asked = t.asked.withLock { $0 }
        #expect(asked[0].headers.contains { $0.name == "Authorization" })
        #expect(!asked[1].headers.contains { $0.name == "Authorization" }, "credentials stay with their host")
        #expect(asked[1].headers.contains { $0.name == "If-None-Match" && $0.value == "\"v0\"" })
        await #expect(throws: DiagnosticError.self) { try await remote.fetch("https://a.example/down") }
        do {
            _ = try await remote.fetch("https://a.example/down")
        } catch {
            #expect(error.diagnostics.first?.message.contains("from https to plain http") == true)
        }
    }

    @Test func plainHTTPIsForLoopbackUnlessAllowed() {
        let remote = RemoteRules(transport: Scripted([:]))
        #expect(remote.refusal("http://127.0.0.1:8/r.zip") == nil)
        #expect(remote.refusal("http://localhost/r.zip") == nil)
        #expect(remote.refusal("http://rules.example/r.zip")?.contains("plain http") == true)
        #expect(remote.refusal("ftp://rules.example/r.zip")?.contains("scheme") == true)
        var o = RemoteRules.Options()
        o.allowHTTP = true
        #expect(RemoteRules(transport: Scripted([:]), options: o).refusal("http://rules.example/r.zip") == nil)
        #expect(RemoteRules.redacted("https://u:p@h.example/r.zip?token=x") == "https://h.example/r.zip?…")
    }

    @Test func theCacheKeepsOneWholeEntryPerURL() throws {
        let dir = Scratch.url("rk-cache-\(UUID())").path
        let cache = RulesCache(directory: dir, maxBytes: 250)
        let a = RulesCache.Entry(
            url: "https://a/r.zip", etag: "\"1\"", lastModified: nil, fetchedAt: 1, body: Array(repeating: 7, count: 100))
        try cache.store(a)
        #expect(cache.load(a.url) == a)
        #expect(cache.load("https://other/r.zip") == nil)
        // A torn file (a crash mid-write by something other than `store`) is no entry.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: cache.file(for: a.url)))
        try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: cache.file(for: a.url)))
        #expect(cache.load(a.url) == nil)
        // Past its bound, the oldest other entries go.
        try cache.store(a)
        Thread.sleep(forTimeInterval: 0.01)
        let b = RulesCache.Entry(url: "https://b/r.zip", etag: nil, lastModified: "x", fetchedAt: 2, body: Array(repeating: 8, count: 100))
        try cache.store(b)
        Thread.sleep(forTimeInterval: 0.01)
        let c = RulesCache.Entry(url: "https://c/r.zip", etag: nil, lastModified: nil, fetchedAt: 3, body: Array(repeating: 9, count: 100))
        try cache.store(c)
        #expect(cache.load(a.url) == nil && cache.load(c.url) == c)
        try cache.setLastURL(c.url)
        #expect(cache.lastURL() == c.url)
        try? FileManager.default.removeItem(atPath: dir)
    }
}
