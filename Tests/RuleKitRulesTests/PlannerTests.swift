import Testing

@testable import RuleKitRules

@Suite struct PlannerTests {
    /// `lowered` must be `lowercased()` exactly (and keep the text itself when nothing changes).
    @Test func loweredIsLowercased() {
        for s in ["", "ÀB", "https://SHOP.example.com/ÄÖÜ", "KELVIN \u{212A}", "İstanbul", "ΣΑΣ", "abc\u{0301}DEF"] {
            #expect(PlanState.lowered(s) == s.lowercased(), "\(s)")
            #expect(Array(PlanState.lowered(s).utf8) == Array(s.lowercased().utf8), "\(s)")
        }
        for s in ["abc", "ABC", "a.b.c/d?e=F"] { #expect(PlanState.lowered(s) == s.lowercased()) }
    }
}
