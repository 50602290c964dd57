public import RuleKitCore

/// RuleKit findings as protocol diagnostics.
///
/// A finding carries where its node starts; the range runs to where that node's first token ends (a
/// quoted or plain scalar, or a flow collection on its line), and for a key on to its value's, so
/// that an editor underlines `eqals: 500` rather than one character.
public enum DiagnosticsFeature {
    /// `found` as the `diagnostics` of a `textDocument/publishDiagnostics` for `document`.
    public static func json(_ found: [Diagnostic], in document: TextDocument) -> Value {
        .array(found.map { json($0, in: document) })
    }

    /// `found`, the findings of a rule archive at `uri`, as `diagnostics`. An archive has no text in the
    /// editor: each finding sits on its first line, its message opening with the entry and place it is
    /// about (`rules.json:12:5: `).
    public static func json(archive found: [Diagnostic], uri: String) -> Value {
        let empty = TextDocument(uri: uri, version: 0, text: "")
        return .array(
            found.map { d in
                var d = d
                if let l = d.location {
                    let entry = l.file.split(separator: "!", maxSplits: 1).last.map(String.init) ?? l.file
                    d.message = "\(entry):\(l.line):\(l.column): " + d.message
                }
                d.location = nil
                d.suggestion = nil
                return json(d, in: empty)
            })
    }

    static func json(_ d: Diagnostic, in document: TextDocument) -> Value {
        let range = self.range(of: d, in: document)
        var o: ValueObject = [
            "range": range.json,
            "severity": .int(d.severity == .error ? 1 : d.severity == .warning ? 2 : 3),
            "code": .string(d.code.rawValue),
            "source": "rulekit",
            "message": .string(d.message),
        ]
        if let s = d.suggestion {
            let token = tokenRange(of: d, in: document) ?? range
            o["relatedInformation"] = [
                [
                    "location": ["uri": .string(document.uri), "range": token.json],
                    "message": .string("did you mean '\(s)'?"),
                ]
            ]
            o["data"] = ["suggestion": .string(s), "range": token.json]
        }
        return .object(o)
    }

    /// Where `d` is: from its location to the end of the node's first token (the first line when it has
    /// no location).
    public static func range(of d: Diagnostic, in document: TextDocument) -> TextRange {
        guard let l = d.location else {
            return TextRange(start: Position(line: 0, character: 0), end: document.position(ofOffset: document.line(0).endIndex))
        }
        let line = max(0, min(l.line - 1, document.lineCount - 1))
        let start = document.offset(line: line, scalarColumn: max(0, l.column - 1))
        let end = NodeExtent.end(of: document.line(line), from: start, wholeEntry: true)
        return TextRange(start: document.position(ofOffset: start), end: document.position(ofOffset: max(start, end)))
    }

    /// The key or scalar a suggestion replaces.
    static func tokenRange(of d: Diagnostic, in document: TextDocument) -> TextRange? {
        guard let l = d.location, l.line >= 1, l.line <= document.lineCount else { return nil }
        let start = document.offset(line: l.line - 1, scalarColumn: max(0, l.column - 1))
        let end = NodeExtent.end(of: document.line(l.line - 1), from: start, wholeEntry: false)
        return TextRange(start: document.position(ofOffset: start), end: document.position(ofOffset: max(start, end)))
    }
}

/// How far a YAML or JSON node's text reaches on its first line.
enum NodeExtent {
    /// The end offset of the node starting at `start` in `line`: a quoted scalar to its closing quote, a
    /// flow collection to its closing bracket, a plain scalar to the next indicator. With `wholeEntry`, a
    /// key is taken with its value to the end of the line (comments left out).
    static func end(of line: ArraySlice<UInt8>, from start: Int, wholeEntry: Bool) -> Int {
        guard start >= line.startIndex, start < line.endIndex else { return start }
        var end = tokenEnd(line, start)
        if wholeEntry {
            var i = end
            while i < line.endIndex, line[i] == 0x20 || line[i] == UInt8(ascii: "\"") || line[i] == UInt8(ascii: "'") { i += 1 }
            guard i < line.endIndex, line[i] == UInt8(ascii: ":") else { return end }
            i += 1
            while i < line.endIndex, line[i] == 0x20 { i += 1 }
            if i < line.endIndex, line[i] != UInt8(ascii: "#") { end = tokenEnd(line, i) }
        }
        return end
    }

    static func tokenEnd(_ line: ArraySlice<UInt8>, _ start: Int) -> Int {
        var i = start
        switch line[start] {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            let q = line[start]
            i += 1
            while i < line.endIndex {
                if q == UInt8(ascii: "\""), line[i] == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if line[i] == q { return i + 1 }
                i += 1
            }
            return line.endIndex
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            let close = firstOutsideQuotes(line, from: start) { i in
                let c = line[i]
                if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") { depth += 1 }
                if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") { depth -= 1 }
                return depth == 0
            }
            return min(line.endIndex, close + 1)
        case UInt8(ascii: "-") where start + 1 < line.endIndex && line[start + 1] == 0x20:
            return lineEnd(line, from: start)
        default:
            while i < line.endIndex {
                let c = line[i]
                if c == UInt8(ascii: ","), i > start { break }
                if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") { break }
                if c == UInt8(ascii: ":"), i + 1 == line.endIndex || line[i + 1] == 0x20 { break }
                if c == UInt8(ascii: "#"), i > start, line[i - 1] == 0x20 { break }
                i += 1
            }
            while i > start, line[i - 1] == 0x20 { i -= 1 }
            return i == start ? min(line.endIndex, start + 1) : i
        }
    }

    /// The end of `line` from `from`, before a comment and trailing spaces.
    static func lineEnd(_ line: ArraySlice<UInt8>, from: Int) -> Int {
        var i = firstOutsideQuotes(line, from: from) { i in
            line[i] == UInt8(ascii: "#") && i > from && line[i - 1] == 0x20
        }
        while i > from, line[i - 1] == 0x20 { i -= 1 }
        return i
    }

    /// The first offset from `from` outside a quoted scalar where `stop` holds, or the end of the line: the
    /// one walk over quotes that every reading of a line shares.
    static func firstOutsideQuotes(_ line: ArraySlice<UInt8>, from: Int, where stop: (Int) -> Bool) -> Int {
        var i = from
        var quote: UInt8?
        while i < line.endIndex {
            let c = line[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if stop(i) {
                return i
            }
            i += 1
        }
        return line.endIndex
    }
}
