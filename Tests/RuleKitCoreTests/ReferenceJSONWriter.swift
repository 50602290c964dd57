// The plain reference the byte writer (`JSONWriter`) is compared with: the `String`-based writer it
// replaced, kept here for that purpose only. It shares no code with `Sources/` but `doubleText`.
import RuleKitTestSupport

@testable import RuleKitCore

enum ReferenceJSONWriter {
    static func string(_ value: Value, options: JSONWriter.Options = .compact) -> String {
        var out = ""
        write(value, to: &out, options: options, level: 0)
        return out
    }

    private static func write(_ value: Value, to out: inout String, options: JSONWriter.Options, level: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONWriter.doubleText(d)
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
            let order: [Int] = options.sortKeys ? (0..<o.count).sorted { o.key(at: $0) < o.key(at: $1) } : Array(0..<o.count)
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

    private static func newline(_ out: inout String, _ options: JSONWriter.Options, _ level: Int) {
        guard options.pretty else { return }
        out += "\n" + String(repeating: " ", count: level * options.indent)
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
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
        out += "\""
    }
}

/// Values for agreement tests, from a seeded generator: every kind, nesting, keys and strings with
/// escapes, control characters and non-ASCII text, integers at their limits.
struct ValueGenerator {
    var random: SeededGenerator

    init(state: UInt64) { random = SeededGenerator(state: state) }

    mutating func next() -> UInt64 { random.next() }

    mutating func below(_ n: Int) -> Int { random.int(n) }

    mutating func string() -> String {
        let pieces = [
            "a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "😀", "/", ".", "[*]",
            "long-text-over-fifteen-bytes",
        ]
        var s = ""
        for _ in 0..<below(8) { s += pieces[below(pieces.count)] }
        return s
    }

    mutating func value(depth: Int = 0) -> Value {
        switch below(depth > 3 ? 6 : 8) {
        case 0: return .null
        case 1: return .bool(below(2) == 0)
        case 2: return .int([0, 1, -1, 9, 10, -10, Int64.max, Int64.min, Int64(bitPattern: next())][below(9)])
        case 3: return .double([0.5, -0.0, 22.0, 1e20, 1e-7, .nan, .infinity, Double(bitPattern: next() >> 2)][below(8)])
        case 4, 5: return .string(string())
        case 6: return .array((0..<below(5)).map { _ in value(depth: depth + 1) })
        default:
            var o = ValueObject()
            for _ in 0..<below(below(4) == 0 ? 30 : 6) { o[string()] = value(depth: depth + 1) }
            return .object(o)
        }
    }
}
