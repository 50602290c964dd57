import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitServe

/// The token file: one per line, comments and blank lines skipped, refused whole when unusable; a token is
/// accepted only whole, and a reload that fails keeps the tokens in force.
@Suite struct AuthTokensTests {
    static func file(_ text: String) throws -> String {
        let url = Scratch.url("rk-tokens-\(UUID())")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func readsOneTokenPerLine() throws {
        let path = try Self.file("# the fleet\n  alpha-1 \r\n\nbeta-2\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let t = try AuthTokens(file: path)
        #expect(t.count == 2)
        #expect(t.accepts(token: "alpha-1"))
        #expect(t.accepts(token: "beta-2"))
        for wrong in ["alpha-", "alpha-12", "", "beta-2 ", "ALPHA-1"] { #expect(!t.accepts(token: wrong), "\(wrong)") }
        #expect(!t.accepts(token: nil))
    }

    @Test(arguments: ["", "# nothing\n\n", "two words\n", "tab\there\n"])
    func anUnusableFileIsRefused(_ text: String) throws {
        let path = try Self.file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: DiagnosticError.self) { try AuthTokens(file: path) }
    }

    @Test func aFailedReloadKeepsTheTokensInForce() throws {
        let path = try Self.file("one\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let t = try AuthTokens(file: path)
        try "\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(t.reload() != nil)
        #expect(t.accepts(token: "one"))
        try "two\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(t.reload() == nil)
        #expect(!t.accepts(token: "one") && t.accepts(token: "two"))
    }

    /// The comparison against a stored token looks at all of it: equal only when equal.
    @Test func sameComparesWhole() {
        let token = Array("secret-token".utf8)
        #expect(AuthTokens.same(token, token))
        #expect(!AuthTokens.same(Array("secret-tokeN".utf8), token))
        #expect(!AuthTokens.same(Array("secret".utf8), token))
        #expect(!AuthTokens.same(Array("secret-token-and-more".utf8), token))
        #expect(!AuthTokens.same([], token))
    }
}
