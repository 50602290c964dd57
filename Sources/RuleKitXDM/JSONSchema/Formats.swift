internal import Foundation

/// The `format` checks RuleKit asserts (RFC 3339 dates and times, RFC 5321/5322 email, RFC 1123
/// hostnames, IPv4/IPv6, RFC 3986 URIs, UUIDs, ECMA regexes, JSON pointers, and XDM's `url`).
enum Formats {
    static func check(_ kind: FormatKind, _ s: String) -> Bool {
        switch kind {
        case .dateTime: dateTime(s)
        case .date: date(s)
        case .time: time(s)
        case .email: email(s)
        case .hostname: hostname(s)
        case .ipv4: ipv4(s)
        case .ipv6: ipv6(s)
        case .uri: uri(s, absolute: true)
        case .uriReference: uri(s, absolute: false)
        case .url: uri(s, absolute: true)
        case .uuid: uuid(s)
        case .regex: regex(s)
        case .jsonPointer: jsonPointer(s)
        }
    }

    // MARK: dates and times

    static func digits(_ b: ArraySlice<UInt8>) -> Int? {
        guard !b.isEmpty, b.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return b.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func date(_ s: String) -> Bool { parseDate(Array(s.utf8)[...]) != nil }

    static func parseDate(_ b: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        guard b.count == 10, b[b.startIndex + 4] == 0x2D, b[b.startIndex + 7] == 0x2D,
            let y = digits(b[b.startIndex..<b.startIndex + 4]), let m = digits(b[b.startIndex + 5..<b.startIndex + 7]),
            let d = digits(b[b.startIndex + 8..<b.startIndex + 10]),
            (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y)
        else { return nil }
        return (y, m, d)
    }

    static func time(_ s: String) -> Bool { parseTime(Array(s.utf8)[...]) }

    /// `HH:MM:SS[.frac](Z|±HH:MM)`; second 60 only where the UTC time is 23:59.
    static func parseTime(_ b: ArraySlice<UInt8>) -> Bool {
        let a = Array(b)
        guard a.count >= 9, a[2] == 0x3A, a[5] == 0x3A,
            let h = digits(a[0..<2]), let m = digits(a[3..<5]), let sec = digits(a[6..<8])
        else { return false }
        var i = 8
        if i < a.count, a[i] == 0x2E {
            i += 1
            let start = i
            while i < a.count, a[i] >= 0x30, a[i] <= 0x39 { i += 1 }
            if i == start { return false }
        }
        guard i < a.count else { return false }
        var offsetMinutes = 0
        if a[i] == 0x5A || a[i] == 0x7A {
            i += 1
        } else if a[i] == 0x2B || a[i] == 0x2D {
            guard a.count - i == 6, a[i + 3] == 0x3A, let oh = digits(a[(i + 1)..<(i + 3)]), let om = digits(a[(i + 4)..<(i + 6)]),
                oh <= 23, om <= 59
            else { return false }
            offsetMinutes = (oh * 60 + om) * (a[i] == 0x2B ? 1 : -1)
            i += 6
        } else {
            return false
        }
        guard i == a.count, h <= 23, m <= 59, sec <= 60 else { return false }
        if sec == 60 {
            let utc = ((h * 60 + m - offsetMinutes) % 1440 + 1440) % 1440
            return utc == 23 * 60 + 59
        }
        return true
    }

    static func dateTime(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count > 11, b[10] == 0x54 || b[10] == 0x74 else { return false }
        return parseDate(b[0..<10]) != nil && parseTime(b[11...])
    }

    // MARK: network names

    static func hostname(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= 253 else { return false }
        let labels = s.split(separator: ".", omittingEmptySubsequences: false)
        for l in labels {
            guard (1...63).contains(l.utf8.count), l.first != "-", l.last != "-",
                l.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D })
            else { return false }
            // "--" in positions 3-4 is reserved for IDNA: only an A-label ("xn--") may have it, and it must
            // decode to a valid U-label.
            let u = Array(l.utf8)
            if u.count >= 4, u[2] == 0x2D, u[3] == 0x2D {
                guard l.lowercased().hasPrefix("xn--"), IDNA.validALabel(l) else { return false }
            }
        }
        return true
    }

    static func ipv4(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        for p in parts {
            guard (1...3).contains(p.utf8.count), p.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                !(p.utf8.count > 1 && p.hasPrefix("0")), let v = Int(p), v <= 255
            else { return false }
        }
        return true
    }

    static func ipv6(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        var text = Substring(s)
        var groupsNeeded = 8
        // An embedded IPv4 address takes the last two groups.
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard ipv4(String(text[text.index(after: lastColon)...])) else { return false }
            text = text[...lastColon]
            if text.hasSuffix(":") && !text.hasSuffix("::") { text = text.dropLast() }
            groupsNeeded = 6
        }
        let doubleColons = text.components(separatedBy: "::").count - 1
        guard doubleColons <= 1 else { return false }
        func groups(_ t: Substring) -> [Substring]? {
            if t.isEmpty { return [] }
            let g = t.split(separator: ":", omittingEmptySubsequences: false)
            for x in g {
                guard (1...4).contains(x.count), x.allSatisfy({ $0.isHexDigit }) else { return nil }
            }
            return g
        }
        if doubleColons == 1 {
            let parts = text.components(separatedBy: "::")
            guard let l = groups(Substring(parts[0])), let r = groups(Substring(parts[1])) else { return false }
            return l.count + r.count < groupsNeeded
        }
        guard let g = groups(text) else { return false }
        return g.count == groupsNeeded
    }

    static func email(_ s: String) -> Bool {
        guard let at = s.lastIndex(of: "@") else { return false }
        let local = s[..<at]
        let domain = s[s.index(after: at)...]
        guard !local.isEmpty, !domain.isEmpty, local.utf8.count <= 64 else { return false }
        if local.hasPrefix("\"") && local.hasSuffix("\"") && local.count >= 2 {
            // quoted local part
        } else {
            guard !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else { return false }
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~.".utf8)
            guard local.utf8.allSatisfy(allowed.contains) else { return false }
        }
        if domain.hasPrefix("[") && domain.hasSuffix("]") {
            let inner = domain.dropFirst().dropLast()
            if inner.lowercased().hasPrefix("ipv6:") { return ipv6(String(inner.dropFirst(5))) }
            return ipv4(String(inner))
        }
        return hostname(String(domain))
    }

    // MARK: URIs

    /// Allowed-byte tables for URI components (unreserved + sub-delims + the component's extra
    /// characters), built once.
    static func table(_ extra: String) -> [Bool] {
        var t = [Bool](repeating: false, count: 128)
        for b in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=".utf8 { t[Int(b)] = true }
        for b in extra.utf8 { t[Int(b)] = true }
        return t
    }

    static let hostTable = table(""), userTable = table(":"), pathTable = table(":@/"), queryTable = table(":@/?")

    static func isHex(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }

    /// Checks RFC 3986 characters of a component: unreserved, sub-delims, the table's extra characters, and
    /// valid %XX escapes.
    static func component(_ s: ArraySlice<UInt8>, _ allowed: [Bool]) -> Bool {
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == 0x25 {
                guard i + 2 < s.endIndex, isHex(s[i + 1]), isHex(s[i + 2]) else { return false }
                i += 3
                continue
            }
            guard c < 128, allowed[Int(c)] else { return false }
            i += 1
        }
        return true
    }

    static func isDigits(_ s: ArraySlice<UInt8>) -> Bool { s.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    /// RFC 3986 URI (or URI reference), checked on bytes: the text is ASCII by the first test.
    static func uri(_ s: String, absolute: Bool) -> Bool {
        guard s.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        let all = Array(s.utf8)
        var rest = all[...]
        if let hash = rest.firstIndex(of: 0x23) {
            guard component(rest[(hash + 1)...], queryTable) else { return false }
            rest = rest[..<hash]
        }
        if let q = rest.firstIndex(of: 0x3F) {
            guard component(rest[(q + 1)...], queryTable) else { return false }
            rest = rest[..<q]
        }
        var hasScheme = false
        if let colon = rest.firstIndex(of: 0x3A) {
            let scheme = rest[..<colon]
            let slash = rest.firstIndex(of: 0x2F)
            if slash == nil || colon < slash! {
                guard let f = scheme.first, isAlpha(f),
                    scheme.allSatisfy({ isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
                else { return false }
                hasScheme = true
                rest = rest[(colon + 1)...]
            }
        }
        if absolute && !hasScheme { return false }
        if rest.count >= 2 && rest[rest.startIndex] == 0x2F && rest[rest.startIndex + 1] == 0x2F {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: 0x2F) ?? rest.endIndex
            var authority = rest[..<end]
            rest = rest[end...]
            if let at = authority.lastIndex(of: 0x40) {
                guard component(authority[..<at], userTable) else { return false }
                authority = authority[(at + 1)...]
            }
            if authority.first == 0x5B {
                guard let close = authority.firstIndex(of: 0x5D) else { return false }
                let inner = authority[(authority.startIndex + 1)..<close]
                guard ipv6(String(decoding: inner, as: UTF8.self)) || inner.first.map({ $0 | 0x20 == 0x76 }) == true
                else { return false }
                let after = authority[(close + 1)...]
                if !after.isEmpty {
                    guard after.first == 0x3A, isDigits(after.dropFirst()) else { return false }
                }
            } else {
                var host = authority
                if let colon = authority.lastIndex(of: 0x3A) {
                    guard isDigits(authority[(colon + 1)...]) else { return false }
                    host = authority[..<colon]
                }
                guard component(host, hostTable) else { return false }
            }
        } else if !hasScheme {
            // A relative path's first segment may not contain ':'.
            let firstSlash = rest.firstIndex(of: 0x2F) ?? rest.endIndex
            if rest[..<firstSlash].contains(0x3A) { return false }
        }
        return component(rest, pathTable)
    }

    static func uuid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 36 else { return false }
        for (i, c) in b.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == 0x2D else { return false }
            } else {
                guard Character(UnicodeScalar(c)).isHexDigit else { return false }
            }
        }
        return true
    }

    static func regex(_ s: String) -> Bool {
        // ECMA 262 has no \Z, \z, \A, and rejects "\a".
        if s.contains("\\a") || s.contains("\\Z") || s.contains("\\z") || s.contains("\\A") { return false }
        return (try? NSRegularExpression(pattern: s)) != nil
    }

    static func jsonPointer(_ s: String) -> Bool {
        if s.isEmpty { return true }
        guard s.utf8.first == 0x2F else { return false }
        let b = Array(s.utf8)
        for (i, c) in b.enumerated() where c == 0x7E {
            guard i + 1 < b.count, b[i + 1] == 0x30 || b[i + 1] == 0x31 else { return false }
        }
        return true
    }
}
