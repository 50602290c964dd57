// Invariants: a scalar's bytes are lent for the call (they belong to a libyaml event still alive, see
// `LibYAMLParser.swift`) and only read, every index inside the buffer; results are new `Value`s.
internal import Foundation
internal import RuleKitCore

/// YAML 1.2 core-schema resolution of plain scalars, and the explicit-tag conversions.
enum ScalarResolver {
    /// The value of an untagged plain scalar.
    static func resolvePlain(_ s: UnsafeBufferPointer<UInt8>, interner: inout StringInterner) -> Value {
        resolvePlainNonString(s) ?? .string(interner.string(s))
    }

    /// The value of an untagged plain scalar when the core schema makes it something other than a string
    /// (null, a bool, a number); nil when it is the string of its text.
    static func resolvePlainNonString(_ s: UnsafeBufferPointer<UInt8>) -> Value? {
        guard let first = s.first else { return .null }
        switch first {
        case UInt8(ascii: "~"):
            if s.count == 1 { return .null }
        case UInt8(ascii: "n"), UInt8(ascii: "N"):
            if equalsAny(s, ["null", "Null", "NULL"]) { return .null }
        case UInt8(ascii: "t"), UInt8(ascii: "T"):
            if equalsAny(s, ["true", "True", "TRUE"]) { return .bool(true) }
        case UInt8(ascii: "f"), UInt8(ascii: "F"):
            if equalsAny(s, ["false", "False", "FALSE"]) { return .bool(false) }
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."):
            if let n = number(s) { return n }
        default:
            break
        }
        return nil
    }

    /// Whether a plain scalar is one of YAML 1.1's boolean spellings (a string in YAML 1.2).
    static func isYAML11Boolean(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (1...5).contains(s.count) else { return false }
        switch s[0] {
        case UInt8(ascii: "y"), UInt8(ascii: "Y"), UInt8(ascii: "n"), UInt8(ascii: "N"),
            UInt8(ascii: "o"), UInt8(ascii: "O"):
            return equalsAny(
                s,
                [
                    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
                    "on", "On", "ON", "off", "Off", "OFF",
                ])
        default:
            return false
        }
    }

    static func equalsAny(_ s: UnsafeBufferPointer<UInt8>, _ words: [StaticString]) -> Bool {
        for w in words where w.utf8CodeUnitCount == s.count {
            let p = w.utf8Start
            var same = true
            for i in 0..<s.count where p[i] != s[i] {
                same = false
                break
            }
            if same { return true }
        }
        return false
    }

    /// A core-schema number, or nil when the text is not one.
    static func number(_ s: UnsafeBufferPointer<UInt8>) -> Value? {
        let n = s.count
        var i = 0
        var sign = false
        if s[0] == UInt8(ascii: "-") || s[0] == UInt8(ascii: "+") {
            i = 1
            sign = true
        }
        guard i < n else { return nil }
        // 0x / 0o (unsigned in the core schema)
        if !sign, n > 2, s[0] == UInt8(ascii: "0") {
            if s[1] == UInt8(ascii: "x") { return radixInt(s, from: 2, radix: 16) }
            if s[1] == UInt8(ascii: "o") { return radixInt(s, from: 2, radix: 8) }
        }
        // .inf / .nan
        if s[i] == UInt8(ascii: ".") && n - i == 4 {
            let rest = UnsafeBufferPointer(rebasing: s[(i + 1)...])
            if equalsAny(rest, ["inf", "Inf", "INF"]) { return .double(s[0] == UInt8(ascii: "-") ? -.infinity : .infinity) }
            if !sign && equalsAny(rest, ["nan", "NaN", "NAN"]) { return .double(.nan) }
        }
        // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
        var digits = 0
        while i < n && isDigit(s[i]) {
            i += 1
            digits += 1
        }
        var isInt = true
        if i < n && s[i] == UInt8(ascii: ".") {
            isInt = false
            i += 1
            var frac = 0
            while i < n && isDigit(s[i]) {
                i += 1
                frac += 1
            }
            if digits == 0 && frac == 0 { return nil }
        } else if digits == 0 {
            return nil
        }
        if i < n && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) {
            isInt = false
            i += 1
            if i < n && (s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+")) { i += 1 }
            var exp = 0
            while i < n && isDigit(s[i]) {
                i += 1
                exp += 1
            }
            if exp == 0 { return nil }
        }
        guard i == n else { return nil }
        if isInt {
            var acc: Int64 = 0
            let neg = s[0] == UInt8(ascii: "-")
            var overflow = false
            for j in (sign ? 1 : 0)..<n {
                let d = Int64(s[j] &- 0x30)
                let (m, o1) = acc.multipliedReportingOverflow(by: 10)
                let (r, o2) = neg ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 {
                    overflow = true
                    break
                }
                acc = r
            }
            if !overflow { return .int(acc) }
        }
        return .double(strtodBuffer(s))
    }

    static func radixInt(_ s: UnsafeBufferPointer<UInt8>, from start: Int, radix: Int64) -> Value? {
        guard start < s.count else { return nil }
        var acc: Int64 = 0
        for j in start..<s.count {
            let b = s[j]
            let d: Int64
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = Int64(b - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = Int64(b - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = Int64(b - 0x41 + 10)
            default: return nil
            }
            guard d < radix else { return nil }
            let (m, o1) = acc.multipliedReportingOverflow(by: radix)
            let (r, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            acc = r
        }
        return .int(acc)
    }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    static func strtodBuffer(_ s: UnsafeBufferPointer<UInt8>) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: s.count + 1) { tmp in
            for i in 0..<s.count { tmp[i] = CChar(bitPattern: s[i]) }
            tmp[s.count] = 0
            return strtod(tmp.baseAddress!, nil)
        }
    }

    /// The value of a scalar with an explicit core tag (`tag:yaml.org,2002:` + suffix), or an error
    /// message when the text does not fit the tag.
    static func resolveTagged(_ s: UnsafeBufferPointer<UInt8>, tag: String) -> Result<Value, TagError> {
        let text = String(decoding: s, as: UTF8.self)
        switch tag {
        case "tag:yaml.org,2002:str": return .success(.string(text))
        case "tag:yaml.org,2002:null":
            if s.isEmpty || equalsAny(s, ["~", "null", "Null", "NULL"]) { return .success(.null) }
            return .failure(TagError(message: "'\(text)' is not a !!null value"))
        case "tag:yaml.org,2002:bool":
            if equalsAny(s, ["true", "True", "TRUE"]) { return .success(.bool(true)) }
            if equalsAny(s, ["false", "False", "FALSE"]) { return .success(.bool(false)) }
            return .failure(TagError(message: "'\(text)' is not a !!bool value"))
        case "tag:yaml.org,2002:int":
            if let v = s.isEmpty ? nil : number(s), case .int = v { return .success(v) }
            return .failure(TagError(message: "'\(text)' is not a !!int value"))
        case "tag:yaml.org,2002:float":
            if let v = s.isEmpty ? nil : number(s) {
                if case .int(let i) = v { return .success(.double(Double(i))) }
                return .success(v)
            }
            return .failure(TagError(message: "'\(text)' is not a !!float value"))
        case "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq":
            return .failure(TagError(message: "a scalar cannot have the tag \(tag)"))
        default:
            // Local, non-specific and unknown tags: the text as written.
            return .success(.string(text))
        }
    }

    struct TagError: Error { var message: String }
}
