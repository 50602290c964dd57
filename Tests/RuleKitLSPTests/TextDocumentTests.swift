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
}
