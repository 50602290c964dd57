// The JSON writer: UTF-8 bytes appended to a growing array.
//
// Invariants:
// 1. Pointers are lent for one call only: a string's UTF-8 (`withUTF8`), an object's members
//    (`withUnsafeBufferPointer`), a static string's bytes, a stack buffer of digits. Nothing is kept.
// 2. Every slice taken of a lent buffer lies within it: `clean` and `i` never pass `bytes.count` (a word is
//    loaded only where eight bytes remain, and a stop found in it is within it), and the digit buffer is
//    24 bytes while an `Int` has at most 20 digits and a sign.
// The plain reference is `ReferenceJSONWriter` in the tests (the `String`-based writer this replaced):
// `JSONWriterTests` compares the two on the corpora and on generated values.

package import Foundation

/// Deterministic JSON text for `Value`.
///
/// Keys come out in the object's order (or sorted, on request); doubles use the shortest text that reads
/// back to the same value and always keep a `.` or exponent, so an integral double (`22.0`) reads back as a
/// double. JSON has no NaN or infinity: those are written as `null`.
///
/// The text is built as UTF-8 bytes (`write(_:to:)` into a `[UInt8]`): a writer of event streams appends
/// thousands of short strings per block, and byte appends cost a fraction of `String` appends.
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
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(value, to: &out, options: options)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the JSON text of `value` to `out`.
    public static func write(_ value: Value, to out: inout String, options: Options = .compact) {
        out += string(value, options: options)
    }

    /// Appends the JSON text of `value`, as UTF-8, to `out`.
    public static func write(_ value: Value, to out: inout [UInt8], options: Options = .compact) {
        if options == .compact {
            writeCompact(value, to: &out)
        } else {
            write(value, to: &out, options: options, level: 0)
        }
    }

    /// Appends the compact JSON text of an object's members (`{"k":v,...}`) to `out`.
    public static func write(_ object: ValueObject, to out: inout [UInt8]) {
        writeCompact(object, to: &out)
    }

    /// The compact form, the one event streams use: no option tests per node, members read in place.
    static func writeCompact(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null: append("null", to: &out)
        case .bool(let b): append(b ? "true" : "false", to: &out)
        case .int(let i): writeInt(i, to: &out)
        case .double(let d): out.append(contentsOf: doubleText(d).utf8)
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out.append(0x5B)
            var first = true
            for v in a {
                if !first { out.append(0x2C) }
                first = false
                writeCompact(v, to: &out)
            }
            out.append(0x5D)
        case .object(let o): writeCompact(o, to: &out)
        }
    }

    static func writeCompact(_ o: ValueObject, to out: inout [UInt8]) {
        out.append(0x7B)
        o._members.withUnsafeBufferPointer { members in
            for i in members.indices {
                if i > 0 { out.append(0x2C) }
                writeString(members[i].key, to: &out)
                out.append(0x3A)
                writeCompact(members[i].value, to: &out)
            }
        }
        out.append(0x7D)
    }

    private static func write(_ value: Value, to out: inout [UInt8], options: Options, level: Int) {
        switch value {
        case .array(let a):
            if a.isEmpty {
                append("[]", to: &out)
                return
            }
            out.append(0x5B)
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(0x2C) }
                newline(&out, options, level + 1)
                write(v, to: &out, options: options, level: level + 1)
            }
            newline(&out, options, level)
            out.append(0x5D)
        case .object(let o):
            if o.isEmpty {
                append("{}", to: &out)
                return
            }
            out.append(0x7B)
            let order: [Int] =
                options.sortKeys
                ? (0..<o.count).sorted { o.key(at: $0) < o.key(at: $1) }
                : Array(0..<o.count)
            for (n, i) in order.enumerated() {
                if n > 0 { out.append(0x2C) }
                newline(&out, options, level + 1)
                writeString(o.key(at: i), to: &out)
                append(options.pretty ? ": " : ":", to: &out)
                write(o.value(at: i), to: &out, options: options, level: level + 1)
            }
            newline(&out, options, level)
            out.append(0x7D)
        default:
            writeCompact(value, to: &out)
        }
    }

    private static func newline(_ out: inout [UInt8], _ options: Options, _ level: Int) {
        guard options.pretty else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: level * options.indent))
    }

    @inline(__always)
    package static func append(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Decimal digits of `i`, as `String(i)` writes them.
    static func writeInt(_ i: Int64, to out: inout [UInt8]) {
        if i >= 0 && i < 10 {
            out.append(0x30 &+ UInt8(i))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int.min has 20 digits
        var n = i.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                count += 1
                d[24 - count] = 0x30 &+ UInt8(n % 10)
                n /= 10
            } while n > 0
            if i < 0 {
                count += 1
                d[24 - count] = 0x2D
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[(24 - count)...]))
        }
    }

    /// Shortest round-trip text of a double, always marked as a double (`3.0`, `1e+20`).
    public static func doubleText(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        let s = d.description
        // Bytes, not `contains(_: String)`: that is Foundation's substring search, a bridge per number.
        if s.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            return s
        }
        return s + ".0"
    }

    /// A JSON string literal: `"`, `\` and control characters escaped (the short forms where JSON has
    /// them, else `\u00xx`), everything else copied as UTF-8.
    package static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(bytes: $0, to: &out) }
    }

    /// The same for a string's UTF-8 bytes (a tape's strings are written from their bytes).
    package static func writeString(bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(0x22)
        var clean = 0
        var i = 0
        while i < bytes.count {
            // Eight bytes at a time up to the next byte that needs an escape: '"', '\\' or a control
            // character, the reader's stop set (`JSONParser.stopBytes`, whose lowest flagged byte is exact).
            if let base = bytes.baseAddress, i + 8 <= bytes.count {
                let w = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                let stops = JSONParser.stopBytes(w)
                if stops == 0 {
                    i += 8
                    continue
                }
                i += stops.trailingZeroBitCount >> 3
            }
            let b = bytes[i]
            i += 1
            guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean..<(i - 1)]))
            clean = i
            out.append(0x5C)
            switch b {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x0A: out.append(0x6E)
            case 0x0D: out.append(0x72)
            case 0x09: out.append(0x74)
            case 0x08: out.append(0x62)
            case 0x0C: out.append(0x66)
            default:
                let hex: StaticString = "0123456789abcdef"
                append("u00", to: &out)
                out.append(hex.utf8Start[Int(b >> 4)])
                out.append(hex.utf8Start[Int(b & 0xF)])
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean...]))
        out.append(0x22)
    }

    /// `id.uuidString` (upper-case hex, dashed 8-4-4-4-12), appended as bytes: made in a buffer on the
    /// stack, then appended at once (36 single appends each check the array's capacity and uniqueness).
    package static func writeUUID(_ id: UUID, to out: inout [UInt8]) {
        let u = id.uuid
        let hex: StaticString = "0123456789ABCDEF"
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
            var i = 0
            func put(_ c: UInt8) {
                text[i] = c
                i += 1
            }
            func byte(_ b: UInt8) {
                put(hex.utf8Start[Int(b >> 4)])
                put(hex.utf8Start[Int(b & 0xF)])
            }
            byte(u.0)
            byte(u.1)
            byte(u.2)
            byte(u.3)
            put(0x2D)
            byte(u.4)
            byte(u.5)
            put(0x2D)
            byte(u.6)
            byte(u.7)
            put(0x2D)
            byte(u.8)
            byte(u.9)
            put(0x2D)
            byte(u.10)
            byte(u.11)
            byte(u.12)
            byte(u.13)
            byte(u.14)
            byte(u.15)
            out.append(contentsOf: UnsafeBufferPointer(text))
        }
    }
}

extension UUID {
    /// `uuidString`, made by `JSONWriter.writeUUID`: Foundation's spends some 6,000 instructions on
    /// each (through a C formatter), and history keys and output ids need one per record and event.
    package var text: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        JSONWriter.writeUUID(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
