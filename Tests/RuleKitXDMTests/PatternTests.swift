import Testing

@testable import RuleKitXDM

@Suite struct PatternTests {
    @Test func characterClassRunsAreMatchedWithoutARegex() throws {
        let p = try #require(Pattern("^[A-Z]{3}$"))
        #expect(p.regex == nil && p.classRun != nil)
        for (s, ok) in [
            ("EUR", true), ("EU", false), ("EURO", false), ("EuR", false), ("ÀBC", false), ("", false),
            ("US\n", false),
        ] {
            #expect(p.matches(s) == ok, "\(s)")
        }
        let q = try #require(Pattern("^[a-f0-9]{2,4}$"))
        #expect(q.classRun != nil)
        #expect(q.matches("a0") && q.matches("ff00") && !q.matches("ff000") && !q.matches("g1"))
        let r = try #require(Pattern("^[0-9]+$"))
        #expect(r.classRun != nil && r.matches("123") && !r.matches(""))
    }

    @Test func otherPatternsStillUseTheRegex() throws {
        for source in ["^[^A-Z]{3}$", "^[A-Z]{3}", "[A-Z]{3}$", "^[A-Z\\d]{3}$", "^(ab){2}$"] {
            let p = try #require(Pattern(source))
            #expect(p.classRun == nil, "\(source)")
        }
        #expect(try #require(Pattern("^[^A-Z]{3}$")).matches("abc"))
    }
}

extension PatternTests {
    @Test func unanchoredPatternsThatMatchTheEmptyStringMatchEverything() throws {
        let p = try #require(Pattern("([A-Z]{2}-[A-Z0-9]{1,3}|)"))
        #expect(p.alwaysMatches && p.matches("anything at all") && p.matches(""))
        for source in ["^(a|)$", "(a|)$", "\\b(a|)", "(?=a)(a|)", "[a-z]+"] {
            #expect(try #require(Pattern(source)).alwaysMatches == false, "\(source)")
        }
    }

    @Test func rememberedRegexVerdictsAgreeWithTheRegex() throws {
        let p = try #require(Pattern("^[a-z]{2}(-[A-Z]{2})?$"))
        for _ in 0..<3 {
            #expect(p.matches("fr-FR") && p.matches("en") && !p.matches("fr-fr") && !p.matches("english"))
        }
    }
}

/// A schema's regex against a hostile string stays bounded (ICU backtracks; issue 15).
@Suite struct PatternBudgetTests {
    @Test(arguments: ["^(a+)+$", "^(a|aa)*$", "(x+x+)+y", "(.*a){20}"])
    func catastrophicBacktrackingStopsWithinItsBudget(_ source: String) throws {
        let p = try #require(Pattern(source))
        let subject = String(repeating: source.contains("x") ? "x" : "a", count: 3000) + "!"
        let clock = ContinuousClock()
        var verdict = true
        let elapsed = clock.measure { verdict = p.matches(subject) }
        #expect(!verdict)
        #expect(elapsed < .seconds(5), "\(source) took \(elapsed)")
    }

    @Test func ordinaryRegexesStillMatch() throws {
        let p = try #require(Pattern("^[a-z]+(-[a-z0-9]+)*$"))
        #expect(p.matches("en-us"))
        #expect(!p.matches("en_US"))
        #expect(try #require(Pattern("(a+)+b")).matches(String(repeating: "a", count: 40) + "b"))
    }

    @Test func overlongPatternsAreRefused() {
        #expect(Pattern(String(repeating: "a", count: Pattern.maxSourceLength + 1) + "(b)") == nil)
    }
}
