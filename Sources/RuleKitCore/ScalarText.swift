/// Text operations on Unicode scalars rather than characters.
///
/// `String.split(separator: "/")` compares characters, and a `/` followed by a combining mark is one
/// character (`/⃩`), so a JSON pointer or URI path with such a key would not split where it should
/// (found by fuzz-schema). Pointers and paths are split and unescaped here, by scalars.
extension String {
    /// The parts between every occurrence of the ASCII `separator`.
    package func split(ascii separator: UInt8, omittingEmpty: Bool = false) -> [String] {
        precondition(separator < 0x80, "the separator must be ASCII")
        // An ASCII byte never occurs inside a multi-byte UTF-8 sequence: cutting there keeps scalars whole.
        return utf8.split(separator: separator, omittingEmptySubsequences: omittingEmpty).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every occurrence of `target` replaced by `replacement`, compared scalar by scalar.
    package func replacingScalars(_ target: String, with replacement: String) -> String {
        let t = Array(target.utf8)
        let bytes = Array(utf8)
        guard !t.isEmpty, bytes.count >= t.count else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        var changed = false
        while i < bytes.count {
            if bytes[i] == t[0], i + t.count <= bytes.count, bytes[i..<(i + t.count)].elementsEqual(t) {
                out += replacement.utf8
                i += t.count
                changed = true
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return changed ? String(decoding: out, as: UTF8.self) : self
    }

    /// A JSON pointer token unescaped (RFC 6901: `~1` is `/`, then `~0` is `~`).
    package var unescapedPointerToken: String {
        replacingScalars("~1", with: "/").replacingScalars("~0", with: "~")
    }
}
