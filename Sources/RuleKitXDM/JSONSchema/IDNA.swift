/// Checks of IDNA2008 A-labels (`xn--...`) inside hostnames: the label must decode as Punycode (RFC 3492)
/// and the decoded label must obey the RFC 5891/5892 rules the JSON-Schema format tests exercise —
/// no leading combining mark, no DISALLOWED exceptions, the CONTEXTJ/CONTEXTO rules, and no "--" at
/// positions 3–4.
enum IDNA {
    static func validALabel(_ label: Substring) -> Bool {
        guard let decoded = punycodeDecode(label.dropFirst(4).lowercased()) else { return false }
        return validULabel(decoded)
    }

    static func validULabel(_ s: [Unicode.Scalar]) -> Bool {
        guard let first = s.first else { return false }
        switch first.properties.generalCategory {
        case .spacingMark, .nonspacingMark, .enclosingMark: return false
        default: break
        }
        if s.count >= 4, s[2] == "-", s[3] == "-" { return false }
        let disallowed: Set<UInt32> = [0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B]
        let hasArabicIndic = s.contains { (0x0660...0x0669).contains($0.value) }
        let hasExtendedArabicIndic = s.contains { (0x06F0...0x06F9).contains($0.value) }
        if hasArabicIndic && hasExtendedArabicIndic { return false }
        for (i, c) in s.enumerated() {
            let v = c.value
            if disallowed.contains(v) { return false }
            let prev = i > 0 ? s[i - 1] : nil
            let next = i + 1 < s.count ? s[i + 1] : nil
            switch v {
            case 0x00B7:  // MIDDLE DOT: between two 'l'
                guard prev == "l", next == "l" else { return false }
            case 0x0375:  // GREEK KERAIA: followed by Greek
                guard let n = next, isGreek(n) else { return false }
            case 0x05F3, 0x05F4:  // HEBREW GERESH / GERSHAYIM: preceded by Hebrew
                guard let p = prev, (0x0590...0x05FF).contains(p.value) else { return false }
            case 0x30FB:  // KATAKANA MIDDLE DOT: some Hiragana, Katakana or Han in the label
                guard s.contains(where: { isKana($0) || isHan($0) }) else { return false }
            case 0x200D:  // ZERO WIDTH JOINER: after a virama
                guard let p = prev, p.properties.canonicalCombiningClass == .virama else { return false }
            default:
                break
            }
        }
        return true
    }

    static func isGreek(_ c: Unicode.Scalar) -> Bool {
        (0x0370...0x03FF).contains(c.value) || (0x1F00...0x1FFF).contains(c.value)
    }

    static func isKana(_ c: Unicode.Scalar) -> Bool {
        ((0x3040...0x309F).contains(c.value) || (0x30A0...0x30FF).contains(c.value)) && c.value != 0x30FB
    }

    static func isHan(_ c: Unicode.Scalar) -> Bool {
        (0x4E00...0x9FFF).contains(c.value) || (0x3400...0x4DBF).contains(c.value) || (0x20000...0x2A6DF).contains(c.value)
            || (0xF900...0xFAFF).contains(c.value)
    }

    /// RFC 3492 decoding; nil for invalid input.
    static func punycodeDecode(_ input: String) -> [Unicode.Scalar]? {
        let base = 36
        let tMin = 1
        let tMax = 26
        let skew = 38
        let damp = 700
        var n = 128
        var i = 0
        var bias = 72
        var output: [Unicode.Scalar] = []
        let bytes = Array(input.utf8)
        var start = 0
        if let d = bytes.lastIndex(of: UInt8(ascii: "-")) {
            for b in bytes[..<d] {
                guard b < 0x80 else { return nil }
                output.append(Unicode.Scalar(b))
            }
            start = d + 1
        }
        var pos = start
        func digit(_ b: UInt8) -> Int? {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(b - UInt8(ascii: "a"))
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(b - UInt8(ascii: "0")) + 26
            default: return nil
            }
        }
        func adapt(_ delta: Int, _ numPoints: Int, _ first: Bool) -> Int {
            var delta = first ? delta / damp : delta / 2
            delta += delta / numPoints
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (((base - tMin + 1) * delta) / (delta + skew))
        }
        if pos >= bytes.count && start > 0 && output.isEmpty { return nil }
        while pos < bytes.count {
            let oldi = i
            var w = 1
            var k = base
            while true {
                guard pos < bytes.count, let d = digit(bytes[pos]) else { return nil }
                pos += 1
                let (m, o1) = d.multipliedReportingOverflow(by: w)
                let (s2, o2) = i.addingReportingOverflow(m)
                if o1 || o2 { return nil }
                i = s2
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if d < t { break }
                let (w2, o3) = w.multipliedReportingOverflow(by: base - t)
                if o3 { return nil }
                w = w2
                k += base
            }
            bias = adapt(i - oldi, output.count + 1, oldi == 0)
            n += i / (output.count + 1)
            i %= output.count + 1
            guard n < 0x110000, let scalar = Unicode.Scalar(UInt32(n)) else { return nil }
            output.insert(scalar, at: i)
            i += 1
        }
        return output
    }
}
