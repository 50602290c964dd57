public import RuleKitCore

/// A small YAML emitter for RuleKit's own output: block mappings and sequences, flow style for short
/// leaf collections, and scalars quoted whenever the plain form would read back as anything else.
public struct YAMLText {
    /// The text written so far.
    public private(set) var text = ""

    /// An empty document.
    public init() {}

    /// A scalar that reads back as exactly `v` under the YAML 1.2 core schema.
    ///
    /// - Parameter v: the value.
    /// - Returns: the YAML scalar.
    public static func scalar(_ v: Value) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d):
            if d.isNaN { return ".nan" }
            if d.isInfinite { return d < 0 ? "-.inf" : ".inf" }
            return JSONWriter.doubleText(d)
        case .string(let s): return string(s)
        case .array(let a): return "[" + a.map(scalar).joined(separator: ", ") + "]"
        case .object(let o):
            return o.isEmpty ? "{}" : "{" + o.map { "\(string($0.key)): \(scalar($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    static let reserved: Set<String> = [
        "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE",
        "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
        "y", "Y", "n", "N", "<<",
    ]

    /// A string plain when safe in block and flow context, else double-quoted (JSON escapes are YAML's).
    ///
    /// - Parameter s: the string.
    /// - Returns: the YAML scalar.
    public static func string(_ s: String) -> String {
        if isPlainSafe(s) { return s }
        let quoted = JSONWriter.string(.string(s))
        guard quoted.unicodeScalars.contains(where: isNonPrintable) else { return quoted }
        // JSON leaves these as they are; YAML needs them escaped.
        var out = ""
        for u in quoted.unicodeScalars {
            if isNonPrintable(u) {
                let hex = String(u.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// What YAML cannot hold raw in a double-quoted scalar though JSON can: DEL, the C1 controls and
    /// U+FFFE/U+FFFF are not printable, and NEL, LS and PS are line breaks (folded into a space).
    static func isNonPrintable(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        return v == 0x7F || (v >= 0x80 && v <= 0x9F) || v == 0x2028 || v == 0x2029 || v == 0xFFFE || v == 0xFFFF
    }

    static func isPlainSafe(_ s: String) -> Bool {
        guard let first = s.utf8.first, !reserved.contains(s) else { return false }
        // Anything that could read as a number stays quoted.
        if (first >= 0x30 && first <= 0x39) || first == 0x2D || first == 0x2B || first == 0x2E { return false }
        // '@' is a reserved indicator: it cannot start a plain scalar.
        if first == 0x40 { return false }
        for b in s.utf8 {
            let ok =
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x5F || b == 0x2E || b == 0x2D || b == 0x2F || b == 0x7E || b == 0x24 || b == 0x40
            if !ok { return false }
        }
        return true
    }

    /// Whether a value is small enough to write on one line.
    static func isShort(_ v: Value) -> Bool {
        switch v {
        case .array(let a): return a.count <= 8 && a.allSatisfy { !isCollection($0) } && scalar(v).count <= 72
        case .object(let o): return o.count <= 4 && o.values.allSatisfy { !isCollection($0) } && scalar(v).count <= 72
        default: return true
        }
    }

    static func isCollection(_ v: Value) -> Bool {
        switch v {
        case .array(let a): !a.isEmpty
        case .object(let o): !o.isEmpty
        default: false
        }
    }

    /// Writes `s` as one line, indented by `indent` spaces.
    ///
    /// - Parameters:
    ///   - indent: spaces.
    ///   - s: the line's text.
    public mutating func line(_ indent: Int, _ s: String) {
        text += String(repeating: " ", count: indent) + s + "\n"
    }

    /// `key: value`, with collections in block style below the key when long.
    ///
    /// - Parameters:
    ///   - indent: spaces.
    ///   - key: the member's key.
    ///   - v: its value.
    public mutating func member(_ indent: Int, _ key: String, _ v: Value) {
        let k = Self.string(key)
        if Self.isShort(v) {
            line(indent, "\(k): \(Self.scalar(v))")
        } else {
            line(indent, "\(k):")
            block(indent + 2, v)
        }
    }

    /// A collection's members or items in block style at `indent`.
    ///
    /// - Parameters:
    ///   - indent: spaces.
    ///   - v: the collection.
    public mutating func block(_ indent: Int, _ v: Value) {
        switch v {
        case .object(let o):
            for (k, x) in o { member(indent, k, x) }
        case .array(let a):
            for x in a { item(indent, x) }
        default:
            line(indent, Self.scalar(v))
        }
    }

    /// `- value` in a block sequence.
    ///
    /// - Parameters:
    ///   - indent: spaces.
    ///   - v: the item's value.
    public mutating func item(_ indent: Int, _ v: Value) {
        if Self.isShort(v) {
            line(indent, "- \(Self.scalar(v))")
            return
        }
        switch v {
        case .object(let o):
            var first = true
            for (k, x) in o {
                if first {
                    let before = text
                    member(indent + 2, k, x)
                    // Put the first member on the dash line.
                    let added = String(text.dropFirst(before.count))
                    text = before + String(repeating: " ", count: indent) + "- " + added.drop(while: { $0 == " " })
                    first = false
                } else {
                    member(indent + 2, k, x)
                }
            }
        case .array:
            line(indent, "-")
            block(indent + 2, v)
        default:
            line(indent, "- \(Self.scalar(v))")
        }
    }
}
