import RuleKitCore
import Testing

@testable import RuleKitLSP

/// Positions in the client's encoding, and edits applied in place.
@Suite struct TextDocumentTests {
    @Test func positionsCountInTheClientsEncoding() {
        let text = "a: \"😀é\"\nb: 1\n"
        let utf16 = TextDocument(uri: "file:///x.yaml", version: 1, text: text)
        // The emoji is two UTF-16 units, four UTF-8 bytes, one scalar.
        #expect(utf16.offset(of: Position(line: 0, character: 6)) == 4 + 4)
        #expect(utf16.position(ofOffset: 8) == Position(line: 0, character: 6))
        #expect(utf16.position(ofOffset: 10) == Position(line: 0, character: 7))
        let utf32 = TextDocument(uri: "file:///x.yaml", version: 1, text: text, encoding: .utf32)
        #expect(utf32.offset(of: Position(line: 0, character: 5)) == 8)
        let utf8 = TextDocument(uri: "file:///x.yaml", version: 1, text: text, encoding: .utf8)
        #expect(utf8.offset(of: Position(line: 0, character: 10)) == 10)
        // Past the line's end, or past the last line, is clamped.
        #expect(utf16.offset(of: Position(line: 1, character: 99)) == utf16.lineStarts[1] + 4)
        #expect(utf16.offset(of: Position(line: 99, character: 0)) == utf16.bytes.count)
        // RuleKit's columns are scalars.
        #expect(utf16.position(of: SourceLocation(file: "x", line: 1, column: 6)) == Position(line: 0, character: 6))
    }

    @Test func incrementalEditsApplyInOrder() {
        var d = TextDocument(uri: "file:///x.yaml", version: 1, text: "rules:\n  - id: a\n")
        d.replace(TextRange(start: Position(line: 1, character: 8), end: Position(line: 1, character: 9)), with: "big")
        d.replace(TextRange(start: Position(line: 2, character: 0), end: Position(line: 2, character: 0)), with: "    name: B\n")
        #expect(d.text == "rules:\n  - id: big\n    name: B\n")
        #expect(d.lineCount == 4)
        d.replace(nil, with: "x")
        #expect(d.text == "x")
        #expect(d.lineCount == 1)
    }

    /// Lines re-indexed around an edit are the lines of the text indexed afresh, whatever the edit: inside a
    /// line, across lines, joining lines, adding lines, at either end, past the end.
    @Test func linesReindexedAroundAnEditAreTheFreshOnes() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["", "a", "\n", "é\n", "xy\n\nz", "\n\n", "😀"]
        var d = TextDocument(uri: "file:///x.yaml", version: 1, text: "rules:\n  - id: a\n\n    name: é\nend")
        for _ in 0..<500 {
            let l1 = Int.random(in: 0...(d.lineCount), using: &generator)
            let l2 = Int.random(in: l1...(d.lineCount), using: &generator)
            let range = TextRange(
                start: Position(line: l1, character: Int.random(in: 0...6, using: &generator)),
                end: Position(line: l2, character: Int.random(in: 0...6, using: &generator)))
            d.replace(range, with: pieces.randomElement(using: &generator)!)
            let fresh = TextDocument(uri: d.uri, version: 1, text: d.text)
            #expect(d.lineStarts == fresh.lineStarts)
            if d.bytes.count > 400 { d.replace(nil, with: "a\nb") }
        }
    }
}
