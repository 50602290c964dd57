import Testing

@testable import RuleKitCore

@Suite struct DiagnosticTests {
    @Test func renderedDiagnosticMatchesGolden() {
        var r = DiagnosticRenderer()
        r.addSource("rules:\n  - { key: ~type, eqals: x }\n", for: "Rules/a.yaml")
        let d = Diagnostic.error(
            "rules.unknown-matcher", "unknown matcher 'eqals' (did you mean 'eq'?)",
            at: SourceLocation(file: "Rules/a.yaml", line: 2, column: 19))
        #expect(
            r.render(d) == """
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

/// A diagnostic never echoes unbounded user text (issue 15: an error in a 50 MB line wrote 52 MB).
@Suite struct BoundedEchoTests {
    @Test func theExcerptIsAWindowAroundTheColumn() {
        var r = DiagnosticRenderer()
        let line = String(repeating: "a", count: 100_000) + "XYZ" + String(repeating: "b", count: 100_000)
        r.addSource(line + "\n", for: "big.json")
        let out = r.render(.error(.jsonSyntax, "bad", at: SourceLocation(file: "big.json", line: 1, column: 100_002)))
        #expect(out.utf8.count < 400)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        // The caret stands under the 'Y' (column 100,002).
        let excerpt = Array(lines[1])
        let caretLine = Array(lines[2])
        #expect(excerpt[caretLine.count - 1] == "Y")
    }

    @Test func shortLinesAreQuotedWhole() {
        var r = DiagnosticRenderer()
        r.addSource("key: [1, 2\n", for: "a.yaml")
        let out = r.render(.error(.yamlSyntax, "bad", at: SourceLocation(file: "a.yaml", line: 1, column: 6)))
        #expect(out == "a.yaml:1:6: error: bad\n    key: [1, 2\n         ^")
    }

    @Test func longMessagesAreCut() {
        let d = Diagnostic.error(.jsonSyntax, "unknown key '" + String(repeating: "k", count: 1_000_000) + "'")
        #expect(d.message.count < Diagnostic.maxMessageLength + 40)
        #expect(d.message.hasSuffix("more characters)"))
    }
}

/// Diagnostics are read on terminals: what they quote of the input cannot drive one, and the caret stands
/// under the column the reader counted (Unicode scalars), escapes counted at their shown width.
@Suite struct DiagnosticEscapingTests {
    @Test func controlCharactersAreEscapedAndTheCaretFollows() {
        let line = "rules:\u{1B}]0;PWNED\u{07}\u{1B}[31m red\u{0}"
        var r = DiagnosticRenderer()
        r.addSource(line + "\n", for: "e.yaml")
        let d = Diagnostic.error(
            "yaml.syntax", "control character U+001B is not allowed", at: SourceLocation(file: "e.yaml", line: 1, column: 7))
        let out = r.render(d)
        #expect(!out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == #"    rules:\u{1B}]0;PWNED\u{7}\u{1B}[31m red\u{0}"#)
        let caret = lines[2].count - 1
        #expect(Array(lines[1])[caret] == "\\")
        #expect(lines[1].prefix(caret).hasSuffix("rules:"))
    }

    @Test(arguments: [
        ("\u{1B}", #"\u{1B}"#), ("\u{7F}", #"\u{7F}"#), ("\u{85}", #"\u{85}"#), ("\u{9B}", #"\u{9B}"#), ("\u{202E}", #"\u{202E}"#),
        ("\u{2066}", #"\u{2066}"#), ("\t", "\t"), ("é", "é"), ("a", "a"),
    ])
    func whatIsEscaped(_ text: String, _ shown: String) {
        #expect(DiagnosticRenderer.escaped(text) == shown)
    }

    @Test func messagesAndFileNamesAreEscapedToo() {
        let d = Diagnostic.error("x", "unknown matcher 'a\u{1B}[2J'", at: SourceLocation(file: "f\u{7}.yaml", line: 1, column: 1))
        #expect(DiagnosticRenderer().render(d) == #"f\u{7}.yaml:1:1: error: unknown matcher 'a\u{1B}[2J'"#)
    }

    @Test func columnsCountScalarsAsTheReadersDo() {
        // "é" written as e + combining accent is two scalars, one character: the reader's column 4 is "x".
        let line = "e\u{301}: x"
        var r = DiagnosticRenderer()
        r.addSource(line, for: "f")
        let out = r.render(.error("x", "here", at: SourceLocation(file: "f", line: 1, column: 5)))
        let lines = out.split(separator: "\n")
        let caret = lines[2].unicodeScalars.count - 1
        #expect(Array(lines[1].unicodeScalars)[caret] == "x")
    }
}
