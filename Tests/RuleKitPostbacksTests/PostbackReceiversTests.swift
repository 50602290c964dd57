import RuleKitCore
import Testing

@testable import RuleKitPostbacks

/// The receivers' file and the signature: vectors computed apart (Python's hmac), lines refused at their place.
@Suite struct PostbackReceiversTests {
    @Test func theSignatureIsHMACSHA256OfKeyAndBody() {
        let secret = Array("sekrit".utf8)
        let post = Postback(key: "0123456789abcdef0123456789abcdef", kind: .pb, url: "https://r.test/", body: #"{"n":1}"#)
        #expect(
            PostbackReceivers.signature(of: post, secret: secret)
                == "sha256=1c72c3effaad3f19969d9c8e38554092c8c0a95eb04048f600d66f7de6386258")
        let get = Postback(key: "k0", kind: .pb, url: "https://r.test/", body: nil)
        #expect(
            PostbackReceivers.signature(of: get, secret: secret)
                == "sha256=1a008d0d97a808b32657e45fe2fb06f2ca1043466f48d5cc8e11bef8f3ad42d2")
    }

    @Test func headersGoToTheirReceiverAfterEveryReceivers() throws {
        var r = PostbackReceivers()
        r.headers = try PostbackReceivers.headers(
            parsing: "# c\n\n* X-All: 1\nR.test:443 Authorization: Bearer a:b\nother.test:80 X-No: 1\n", file: "h.txt")
        r.secret = Array("s".utf8)
        let hit = Postback(key: "k", kind: .pb, url: "https://r.test/x", body: nil)
        let names = r.headers(for: hit).map(\.name)
        #expect(names == ["X-All", "Authorization", PostbackReceivers.signatureHeader])
        #expect(r.headers(for: hit)[1].value == "Bearer a:b", "a value may hold ':'")
    }

    @Test(arguments: [
        ("r.test:443", "no header after the receiver"), ("r.test X-A: 1", "is not host:port"), ("r.test:99999 X-A: 1", "is not host:port"),
        ("r.test:443 X-A 1", "expected 'Name: value'"), ("r.test:443 X A: 1", "is not a header name"),
        ("r.test:443 X-A: a\u{7}b", "control character"),
    ])
    func aLineThatIsNotAHeaderIsRefusedAtItsPlace(line: String, why: String) {
        do {
            _ = try PostbackReceivers.headers(parsing: "* X-Ok: 1\n\(line)\n", file: "h.txt")
            Issue.record("'\(line)' was taken")
        } catch {
            let d = error.diagnostics.first
            #expect(d?.location?.line == 2 && d?.message.contains(why) == true, "\(d?.message ?? "")")
        }
    }
}
