/// Renders diagnostics the way compilers do: the location line, then the source line and a caret.
///
/// ```
/// Rules/commerce.yaml:12:9: error: unknown matcher 'eqals' (did you mean 'eq'?)
///     - { key: ~type, eqals: com.adobe.eventType.edge }
///             ^
/// ```
public struct DiagnosticRenderer: Sendable {
    private var sources: [String: [Substring]] = [:]

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
        var text = String(lines[l.line - 1])
        if text.hasSuffix("\r") { text.removeLast() }
        // Tabs become one space so the caret lines up under the column.
        text = text.replacingTabs()
        let caretPad = String(repeating: " ", count: max(0, l.column - 1))
        out += "\n    \(text)\n    \(caretPad)^"
        return out
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
