import Testing

@testable import RuleKitRules

@Suite struct PlannerTests {
    /// `lowered` must be `lowercased()` exactly: every ASCII byte at every position of the eight-byte
    /// words it tests at once, and non-ASCII text (which goes through `lowercased()`).
    @Test func loweredIsLowercased() {
        for length in [1, 7, 8, 9, 15, 16, 17, 24, 31] {
            for position in 0..<length {
                for byte in UInt8(0x01)...UInt8(0x7F) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    let s = String(decoding: bytes, as: UTF8.self)
                    #expect(PlanState.lowered(s) == s.lowercased(), "\(bytes)")
                }
            }
        }
        for s in ["", "ÀB", "https://SHOP.example.com/ÄÖÜ", "KELVIN \u{212A}", "İstanbul", "ΣΑΣ", "abc\u{0301}DEF"] {
            #expect(PlanState.lowered(s) == s.lowercased(), "\(s)")
            #expect(Array(PlanState.lowered(s).utf8) == Array(s.lowercased().utf8), "\(s)")
        }
    }

    @Test func textTableFindsWhatItWasGiven() {
        var t = TextTable<Int>()
        let texts = (0..<5000).map { "key.\($0).\(String(repeating: "x", count: $0 % 40))" }
        for (i, s) in texts.enumerated() { t[s] = i }
        for (i, s) in texts.enumerated() { #expect(t[s] == i) }
        #expect(t["absent"] == nil)
        t["key.3.xxx"] = 99
        #expect(t["key.3.xxx"] == 99)
        // Told apart by bytes: a canonically equal spelling is another entry (a cache recomputes it).
        t["caf\u{E9}"] = 1
        #expect(t["cafe\u{301}"] == nil)
    }
}
