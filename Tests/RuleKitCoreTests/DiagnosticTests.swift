import Testing

@testable import RuleKitCore

@Suite struct DiagnosticTests {
    @Test func renderedDiagnosticMatchesGolden() {
        var r = DiagnosticRenderer()
        r.addSource("rules:\n  - { key: ~type, eqals: x }\n", for: "Rules/a.yaml")
        let d = Diagnostic.error("rules.unknown-matcher", "unknown matcher 'eqals' (did you mean 'eq'?)",
                                 at: SourceLocation(file: "Rules/a.yaml", line: 2, column: 19))
        #expect(r.render(d) == """
            Rules/a.yaml:2:19: error: unknown matcher 'eqals' (did you mean 'eq'?)
                  - { key: ~type, eqals: x }
                                  ^
            """)
    }

    @Test func renderWithoutSourceIsOneLine() {
        let d = Diagnostic.warning("x.y", "careful", at: SourceLocation(file: "f", line: 1, column: 1))
        #expect(DiagnosticRenderer().render(d) == "f:1:1: warning: careful")
        #expect(DiagnosticRenderer().render(.error("x", "no place", pointer: "/a/0")) == "error: no place (at /a/0)")
    }

    @Test func tabsInTheSourceLineKeepTheCaretAligned() {
        var r = DiagnosticRenderer()
        r.addSource("\tab: c", for: "t")
        let out = r.render(.error("x", "m", at: SourceLocation(file: "t", line: 1, column: 3)))
        #expect(out.hasSuffix("\n     ab: c\n      ^"))
    }

    @Test func diagnosticsAreCappedAndSortedByLocation() {
        var ds = Diagnostics(cap: 2)
        ds.append(.error("c", "third", at: SourceLocation(file: "b", line: 1, column: 1)))
        ds.append(.warning("c", "none"))
        ds.append(.error("c", "first", at: SourceLocation(file: "a", line: 2, column: 5)))
        ds.append(.error("c", "dropped"))
        #expect(ds.sorted.map(\.message) == ["first", "third", "none"])
        #expect(ds.dropped == 1)
        #expect(ds.hasErrors && ds.errorCount == 2)
    }

    @Test func aFloodOfWarningsNeverHidesAnError() {
        var ds = Diagnostics(cap: 3)
        for i in 0..<10 { ds.append(.warning("w", "warning \(i)")) }
        #expect(!ds.acceptsWarnings && ds.dropped == 7)
        ds.append(.error("e", "the error", at: SourceLocation(file: "f", line: 9, column: 1)))
        #expect(ds.hasErrors)
        #expect(ds.sorted.first?.message == "the error")
        ds.countDropped()
        #expect(ds.dropped == 8)
        var none = Diagnostics(cap: 0)
        none.append(.error("e", "kept nowhere"))
        #expect(none.hasErrors && none.items.isEmpty)
    }
}
