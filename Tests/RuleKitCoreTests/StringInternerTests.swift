import Testing

@testable import RuleKitCore

@Suite struct StringInternerTests {
    func intern(_ s: String, _ interner: inout StringInterner) -> String {
        Array(s.utf8).withUnsafeBufferPointer { interner.string($0) }
    }

    /// The slot is chosen from a few words of the bytes: strings that agree on those words share a slot,
    /// and must still come back as themselves.
    @Test func stringsSharingASlotStayDistinct() {
        var interner = StringInterner(slotCount: 4)
        // 40 bytes: equal in bytes 0-7, 16-23 and 32-39, different at byte 10.
        let a = "com.adobe.A.xxxxxxxxxxxxxxxxxxxxx.places"
        let b = "com.adobe.B.xxxxxxxxxxxxxxxxxxxxx.places"
        #expect(a.utf8.count == b.utf8.count)
        #expect(intern(a, &interner) == a)
        #expect(intern(b, &interner) == b)
        #expect(intern(a, &interner) == a)
        let long = String(repeating: "z", count: 300)
        #expect(intern(long, &interner) == long)
        #expect(intern("short", &interner) == "short")
        #expect(intern("héllo wörld, ünïcode", &interner) == "héllo wörld, ünïcode")
    }

    /// Short strings are cached by their packed bytes: every length and byte position must tell two
    /// strings apart, including ones that differ only in length or in a zero byte.
    @Test func shortStringsComeBackAsThemselves() {
        var interner = StringInterner(slotCount: 4)
        var all: [String] = ["", "\u{0}", "\u{0}\u{0}", "é", "e\u{301}", "ab", "abc", "a\u{0}c"]
        for n in 1...15 {
            for i in 0..<n {
                var bytes = Array(repeating: UInt8(ascii: "k"), count: n)
                bytes[i] = UInt8(ascii: "q")
                all.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        for _ in 0..<2 {
            for s in all {
                let back = intern(s, &interner)
                #expect(back == s && Array(back.utf8) == Array(s.utf8), "\(Array(s.utf8))")
            }
        }
    }

    /// An adopted string is the one handed back for its bytes (the same storage, not an equal copy), and
    /// other strings, colliding in its slot or not, still come back as themselves.
    @Test func adoptedStringsAreHandedBack() {
        var interner = StringInterner(slotCount: 4)
        let known = [
            "com.adobe.eventType.generic.track", "com.adobe.eventSource.requestContent", "short", String(repeating: "y", count: 300),
        ]
        interner.adopt(known)
        // Where the bytes live, as a number (compared, never followed).
        func storage(_ s: String) -> UInt? { s.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } }
        for s in known where s.utf8.count > 15 && s.utf8.count <= 256 {
            let back = intern(s, &interner)
            #expect(back == s && storage(back) == storage(s), "\(s)")
        }
        for s in ["com.adobe.eventType.generic.trace", "com.adobe.eventSource.requestContents", "short"] {
            #expect(intern(s, &interner) == s)
        }
    }

    @Test func byteComparisonCoversEveryLength() {
        for n in 0...20 {
            let x = Array(repeating: UInt8(ascii: "a"), count: n)
            for i in 0..<n {
                var y = x
                y[i] = UInt8(ascii: "b")
                let same = x.withUnsafeBufferPointer { xb in y.withUnsafeBufferPointer { StringInterner.sameBytes(xb, $0) } }
                #expect(!same, "length \(n), byte \(i)")
            }
            #expect(x.withUnsafeBufferPointer { xb in x.withUnsafeBufferPointer { StringInterner.sameBytes(xb, $0) } })
        }
    }
}
