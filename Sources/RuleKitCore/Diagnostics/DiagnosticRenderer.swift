/// Renders diagnostics the way compilers do: the location line, then the source line and a caret.
///
/// ```
/// Rules/commerce.yaml:12:9: error: unknown matcher 'eqals' (did you mean 'eq'?)
///     - { key: ~type, eqals: com.adobe.eventType.edge }
///             ^
/// ```
public struct DiagnosticRenderer: Sendable {
    private var sources: [String: [Substring]] = [:]

    /// A renderer with the default excerpt width.
    public init() {}

    /// Registers the text of `file` so its lines can be quoted.
    public mutating func addSource(_ text: String, for file: String) {
        // Split on the bytes: splitting a String by Character walks grapheme clusters, about ten times
        // slower on a large rules file (a newline is one byte in UTF-8, and never inside a cluster but CRLF,
        // whose CR the excerpt drops).
        sources[file] = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// The full rendering of one diagnostic (no trailing newline). What came from the input (the file name,
    /// the message's quotes of it, the excerpt) is shown with control characters escaped
    /// (`escaped(_:)`): a diagnostic is read on a terminal, and must not drive it.
    public func render(_ d: Diagnostic) -> String {
        var out = Self.headline(d)
        if let p = d.pointer, d.location == nil { out += " (at \(p.isEmpty ? "/" : Self.escaped(p)))" }
        guard let l = d.location, let lines = sources[l.file], l.line >= 1, l.line <= lines.count else {
            return out
        }
        let (text, caret) = Self.excerpt(lines[l.line - 1], column: l.column)
        out += "\n    \(text)\n    \(String(repeating: " ", count: caret))^"
        return out
    }

    /// A diagnostic's first line: `file:line:column: severity: message`, escaped.
    public static func headline(_ d: Diagnostic) -> String {
        var out = ""
        if let l = d.location { out += "\(escaped(l.file)):\(l.line):\(l.column): " }
        return out + "\(d.severity.rawValue): \(escaped(d.message))"
    }

    /// Widest source excerpt quoted, in characters: a diagnostic in a 50 MB line quotes a window
    /// around its column, not the line.
    public static let excerptWidth = 120

    /// How `scalar` is shown when it must not reach a terminal as it is: C0 controls but tab, DEL, C1
    /// controls, and the bidirectional embeddings, overrides and isolates (which reorder what follows
    /// them on screen) as `\u{1B}`; nil for every other scalar.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x09: return nil
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
            return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        default: return nil
        }
    }

    /// `text` with every scalar `escape` names escaped.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { escape($0) != nil }) else { return text }
        var out = ""
        for s in text.unicodeScalars {
            if let e = escape(s) { out += e } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// The part of `line` to quote around `column` (1-based, in Unicode scalars as the readers count), and
    /// the caret's offset in it, escapes counted at the width they are shown.
    public static func excerpt(_ line: Substring, column: Int) -> (String, Int) {
        var scalars = Array(line.unicodeScalars)
        if scalars.last == "\r" { scalars.removeLast() }
        let col = max(0, column - 1)
        var start = 0
        var end = scalars.count
        var text = ""
        var caret = 0
        if scalars.count > excerptWidth {
            // Keep a third of the window before the column, the rest after it.
            start = min(max(0, col - excerptWidth / 3), scalars.count)
            end = min(scalars.count, start + excerptWidth)
            if start > 0 {
                text = "..."
                caret = 3
            }
        }
        for i in start..<end {
            // Tabs become one space so the caret lines up under the column.
            let shown = scalars[i] == "\t" ? " " : escape(scalars[i]) ?? String(scalars[i])
            if i < col { caret += shown.count }
            text += shown
        }
        // A column past the line's end (an error at the end of the line) stands past the last character.
        if col > end { caret += col - end }
        if end < scalars.count { text += "..." }
        return (text, caret)
    }

    /// Renders several diagnostics, one block each, in the order given.
    public func render(_ ds: [Diagnostic]) -> String {
        ds.map(render).joined(separator: "\n")
    }
}
