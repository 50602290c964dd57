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
        sources[file] = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The full rendering of one diagnostic (no trailing newline).
    public func render(_ d: Diagnostic) -> String {
        var out = ""
        if let l = d.location { out += "\(l.file):\(l.line):\(l.column): " }
        out += "\(d.severity.rawValue): \(d.message)"
        if let p = d.pointer, d.location == nil { out += " (at \(p.isEmpty ? "/" : p))" }
        guard let l = d.location, let lines = sources[l.file], l.line >= 1, l.line <= lines.count else {
            return out
        }
        let (text, caret) = Self.excerpt(lines[l.line - 1], column: l.column)
        out += "\n    \(text)\n    \(String(repeating: " ", count: caret))^"
        return out
    }

    /// Widest source excerpt quoted, in characters: a diagnostic in a 50 MB line quotes a window
    /// around its column, not the line.
    public static let excerptWidth = 120

    /// The part of `line` to quote around `column` (1-based), and the caret's offset in it.
    static func excerpt(_ line: Substring, column: Int) -> (String, Int) {
        var line = line
        if line.hasSuffix("\r") { line = line.dropLast() }
        let col = max(0, column - 1)
        var text: Substring
        var caret = col
        var prefix = ""
        var suffix = ""
        if line.utf8.count <= excerptWidth {
            text = line
        } else {
            // Keep a third of the window before the column, the rest after it.
            let before = excerptWidth / 3
            let startOffset = max(0, col - before)
            let start = line.index(line.startIndex, offsetBy: startOffset, limitedBy: line.endIndex) ?? line.endIndex
            let end = line.index(start, offsetBy: excerptWidth, limitedBy: line.endIndex) ?? line.endIndex
            text = line[start..<end]
            if startOffset > 0 {
                prefix = "..."
                caret = col - startOffset + 3
            }
            if end < line.endIndex { suffix = "..." }
        }
        // Tabs become one space so the caret lines up under the column.
        return (prefix + String(text).replacingTabs() + suffix, caret)
    }

    /// Renders several diagnostics, one block each, in the order given.
    public func render(_ ds: [Diagnostic]) -> String {
        ds.map(render).joined(separator: "\n")
    }
}

extension String {
    fileprivate func replacingTabs() -> String {
        guard contains("\t") else { return self }
        return String(map { $0 == "\t" ? " " : $0 })
    }
}
