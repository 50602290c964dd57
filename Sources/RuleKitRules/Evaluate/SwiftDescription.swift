public import RuleKitCore

/// Text the reference produces with Swift's `String(describing:)` on its `Any` values: what tokens render
/// and what string conversion yields. Kept exact because rules compare against it.
public enum SwiftDescription {
    /// `String(describing:)` of a top-level value: strings as-is, `22.0` as "22.0", null as "<null>".
    ///
    /// - Parameter v: the value.
    /// - Returns: its description.
    public static func describe(_ v: Value) -> String {
        switch v {
        case .string(let s): s
        default: debugDescribe(v)
        }
    }

    /// The form inside collections, where strings are quoted: `["k": "v"]`, `[1, "a"]`.
    ///
    /// - Parameter v: the value.
    /// - Returns: its description.
    public static func debugDescribe(_ v: Value) -> String {
        switch v {
        case .null: "<null>"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d.description
        case .string(let s): s.debugDescription
        case .array(let a): "[" + a.map(debugDescribe).joined(separator: ", ") + "]"
        case .object(let o):
            o.isEmpty ? "[:]" : "[" + o.map { "\($0.key.debugDescription): \(debugDescribe($0.value))" }.joined(separator: ", ") + "]"
        }
    }
}

/// Percent-encoding as the reference's `urlenc` function and `~all_url` do it.
public enum URLEncoding {
    /// `urlenc`: everything but ASCII letters, digits and `-._~` is percent-encoded (UTF-8).
    ///
    /// - Parameter s: the text.
    /// - Returns: the text encoded.
    public static func urlenc(_ s: String) -> String {
        encode(s) { b in isAlnum(b) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E }
    }

    /// The URL-query allowed set (RFC 3986 query characters): `&`, `=`, `/`, `?` stay as they are.
    ///
    /// - Parameter s: the text.
    /// - Returns: the text encoded.
    public static func queryEncode(_ s: String) -> String {
        encode(s) { b in
            isAlnum(b) || "-._~!$&'()*+,;=:@/?".utf8.contains(b)
        }
    }

    static func isAlnum(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }

    static func encode(_ s: String, keep: (UInt8) -> Bool) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for b in s.utf8 {
            if keep(b) {
                bytes.append(b)
            } else {
                bytes.append(0x25)
                bytes.append(hex[Int(b >> 4)])
                bytes.append(hex[Int(b & 0xF)])
            }
        }
        out = String(decoding: bytes, as: UTF8.self)
        return out
    }
}
