import RuleKitTestSupport
import Testing

@testable import RuleKitCore

/// The end of an object, array or string found over the storage (`containerEnd`, `stringEnd`) against the
/// byte-by-byte references, and both against ends known by hand.
struct ByteSearchTests {
    @Test func knownEnds() {
        let cases: [(String, Int?)] = [
            (#"{"a":"}"}"#, 9),
            ("[1,[2]]x", 7),
            (#"{"k":"\"}"} tail"#, 11),
            (#"{"k":"\\"} tail"#, 10),
            (#"["\\\"]"]"#, 9),
            (#"{"open"#, nil),
            (#"{"k":"\"#, nil),
            ("[[]", nil),
            ("x[]", nil),
            ("", nil),
        ]
        for (text, end) in cases {
            let b = Array(text.utf8)
            #expect(b.containerEnd(at: 0) == end, "\(text)")
            #expect(b.containerEndByBytes(at: 0) == end, "\(text)")
        }
        #expect(Array("[]".utf8).containerEnd(at: 2) == nil)
        #expect(Array("[]".utf8).containerEnd(at: -1) == nil)
    }

    @Test func knownStringEnds() {
        let cases: [(String, Int?)] = [
            (#""a" tail"#, 3),
            (#""\"" tail"#, 4),
            (#""\\" tail"#, 4),
            (#""\\\"" tail"#, 6),
            (#""open"#, nil),
            (#""\"#, nil),
            (#"x"""#, nil),
            (#""#, nil),
        ]
        for (text, end) in cases {
            let b = Array(text.utf8)
            #expect(b.stringEnd(at: 0) == end, "\(text)")
            #expect(b.stringEndByBytes(at: 0) == end, "\(text)")
        }
        #expect(Array(#""""#.utf8).stringEnd(at: 2) == nil)
        #expect(Array(#""""#.utf8).stringEnd(at: -1) == nil)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithTheByteByByteReference(_ seed: UInt64) {
        var rng = SeededGenerator(state: seed)
        let pieces = ["{", "}", "[", "]", "\"", "\\", "\\\"", "\\\\", "a", ",", ":", " ", "é", "\"k\"", "\"]}\""]
        for _ in 0..<5_000 {
            var text: [UInt8] = [rng.chance(50) ? UInt8(ascii: "{") : UInt8(ascii: "[")]
            for _ in 0..<rng.int(24) { text += Array(rng.pick(pieces).utf8) }
            for start in 0..<text.count {
                #expect(
                    text.containerEnd(at: start) == text.containerEndByBytes(at: start),
                    "\(String(decoding: text, as: UTF8.self)) from \(start)")
                #expect(
                    text.stringEnd(at: start) == text.stringEndByBytes(at: start),
                    "\(String(decoding: text, as: UTF8.self)) from \(start)")
            }
        }
    }
}
