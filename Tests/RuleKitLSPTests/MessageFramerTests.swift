import RuleKitCore
import Testing

@testable import RuleKitLSP

/// The framing: messages split anywhere or joined, wrong lengths, and hostile headers, all bounded.
@Suite struct MessageFramerTests {
    static func framed(_ body: String) -> [UInt8] { MessageFramer.frame(Array(body.utf8)) }

    static func bodies(_ items: [MessageFramer.Item]) -> [String] {
        items.compactMap { if case .message(let b) = $0 { String(decoding: b, as: UTF8.self) } else { nil } }
    }

    @Test func aMessageSplitIntoSingleBytesIsReadOnce() {
        var f = MessageFramer()
        var out: [MessageFramer.Item] = []
        for b in Self.framed(#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#) { out += f.feed([b]) }
        #expect(Self.bodies(out) == [#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#])
        #expect(f.pendingByteCount == 0)
    }

    @Test func joinedMessagesAreReadInOrder() {
        var f = MessageFramer()
        let bytes = Self.framed("[1]") + Self.framed("{\"a\":\"é\"}") + Self.framed("2")
        #expect(Self.bodies(f.feed(bytes)) == ["[1]", "{\"a\":\"é\"}", "2"])
    }

    @Test func otherHeadersAndAnyCaseAreAccepted() {
        var f = MessageFramer()
        let bytes = Array("content-length: 3\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n[1]".utf8)
        #expect(f.feed(bytes) == [.message(Array("[1]".utf8))])
    }

    @Test func aLengthTooShortIsReportedAndTheNextMessageIsStillRead() {
        var f = MessageFramer()
        // Announces 5 bytes of a 7-byte body: the 2 left over are noise before the next header.
        let bytes = Array("Content-Length: 5\r\n\r\n[1,2,3]".utf8) + Self.framed("[4]")
        let out = f.feed(bytes)
        #expect(Self.bodies(out) == ["[1,2,", "[4]"])
        #expect(out.contains(.malformed("bytes outside a message were skipped")))
    }

    @Test func aHeaderWithoutLengthOrWithABadOneIsMalformedAndReadingGoesOn() {
        var f = MessageFramer()
        var out = f.feed(Array("X-Thing: 1\r\n\r\n".utf8) + Self.framed("[1]"))
        #expect(Self.bodies(out) == ["[1]"])
        #expect(out.first == .malformed("a header block without Content-Length was skipped"))
        out = f.feed(Array("Content-Length: -4\r\n\r\n".utf8) + Self.framed("[2]"))
        #expect(Self.bodies(out) == ["[2]"])
        out = f.feed(Array("Content-Length: 99999999999999999999\r\n\r\n".utf8) + Self.framed("[3]"))
        #expect(Self.bodies(out) == ["[3]"])
    }

    @Test func aHugeHeaderIsDroppedWithoutBeingHeld() {
        var f = MessageFramer()
        var malformed = 0
        let line = Array(("X-Padding: " + String(repeating: "a", count: 1000) + "\r\n").utf8)
        for _ in 0..<1000 {
            for item in f.feed(line) { if case .malformed = item { malformed += 1 } }
            #expect(f.pendingByteCount <= MessageFramer.maxHeaderBytes + line.count)
        }
        #expect(malformed > 0)
        // The stream recovers at the next real header.
        #expect(Self.bodies(f.feed(Array("\r\n\r\n".utf8) + Self.framed("[5]"))) == ["[5]"])
    }

    @Test func aBodyOverTheLimitIsSkippedAsItArrives() {
        var f = MessageFramer(maxContentLength: 100)
        var out = f.feed(Array("Content-Length: 1000\r\n\r\n".utf8))
        #expect(out == [.malformed("a message of 1000 bytes is over the limit of 100 bytes and was skipped")])
        for _ in 0..<10 {
            out = f.feed([UInt8](repeating: 0x61, count: 100))
            #expect(out.isEmpty)
            #expect(f.pendingByteCount == 0)
        }
        #expect(Self.bodies(f.feed(Self.framed("[6]"))) == ["[6]"])
    }

    @Test func aBadMessageIsNamedByItsError() {
        let notJSON = IncomingMessage.parse(Array("{".utf8))
        guard case .invalid(nil, .parseError, _) = notJSON else {
            Issue.record("\(notJSON)")
            return
        }
        guard case .invalid(nil, .invalidRequest, _) = IncomingMessage.parse(Array("[1]".utf8)) else {
            Issue.record("an array is not a message")
            return
        }
        guard case .invalid(.int(3), .invalidRequest, _) = IncomingMessage.parse(Array(#"{"id":3,"method":7}"#.utf8)) else {
            Issue.record("a method must be a string")
            return
        }
        guard case .request(.string("a"), "x", .null) = IncomingMessage.parse(Array(#"{"id":"a","method":"x"}"#.utf8)) else {
            Issue.record("a request without params")
            return
        }
        // Deep nesting is bounded by the reader's limits, not by the stack.
        let deep = String(repeating: "[", count: 100_000)
        guard case .invalid(nil, .parseError, _) = IncomingMessage.parse(Array(deep.utf8)) else {
            Issue.record("deep nesting")
            return
        }
    }
}
