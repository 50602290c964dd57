/// Deterministic JSON text for `Value`.
///
/// Keys come out in the object's order (or sorted, on request); doubles use the shortest text that reads
/// back to the same value and always keep a `.` or exponent, so an integral double (`22.0`) reads back as a
/// double. JSON has no NaN or infinity: those are written as `null`.
public enum JSONWriter {
    /// How values are laid out.
    public struct Options: Sendable, Hashable {
        /// One member or element per line, indented.
        public var pretty: Bool
        /// Object members sorted by key (by Unicode scalars) instead of kept in order.
        public var sortKeys: Bool
        /// Spaces per level when `pretty`.
        public var indent: Int

        /// Options for the writer; compact and in member order unless told otherwise.
        public init(pretty: Bool = false, sortKeys: Bool = false, indent: Int = 2) {
            self.pretty = pretty
            self.sortKeys = sortKeys
            self.indent = indent
        }

        /// One line, no spaces, members in order.
        public static let compact = Options()
        /// Indented by two spaces, members in order.
        public static let pretty = Options(pretty: true)
    }

    /// The JSON text of `value`.
    public static func string(_ value: Value, options: Options = .compact) -> String {
        var out = ""
        write(value, to: &out, options: options)
        return out
    }

    /// Appends the JSON text of `value` to `out`.
    public static func write(_ value: Value, to out: inout String, options: Options = .compact) {
        write(value, to: &out, options: options, level: 0)
    }

    private static func write(_ value: Value, to out: inout String, options: Options, level: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += doubleText(d)
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            if a.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                newline(&out, options, level + 1)
                write(v, to: &out, options: options, level: level + 1)
            }
            newline(&out, options, level)
            out += "]"
        case .object(let o):
            if o.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            let order: [Int] =
                options.sortKeys
                ? (0..<o.count).sorted { o.key(at: $0) < o.key(at: $1) }
                : Array(0..<o.count)
            for (n, i) in order.enumerated() {
                if n > 0 { out += "," }
                newline(&out, options, level + 1)
                writeString(o.key(at: i), to: &out)
                out += options.pretty ? ": " : ":"
                write(o.value(at: i), to: &out, options: options, level: level + 1)
            }
            newline(&out, options, level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ options: Options, _ level: Int) {
        guard options.pretty else { return }
        out += "\n"
        out += String(repeating: " ", count: level * options.indent)
    }

    /// Shortest round-trip text of a double, always marked as a double (`3.0`, `1e+20`).
    public static func doubleText(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        let s = d.description
        if s.contains(".") || s.contains("e") || s.contains("E") { return s }
        return s + ".0"
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        var needsEscape = false
        for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C {
            needsEscape = true
            break
        }
        if !needsEscape {
            out += s
        } else {
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                default:
                    if u.value < 0x20 {
                        let h = String(u.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
            }
        }
        out += "\""
    }
}
