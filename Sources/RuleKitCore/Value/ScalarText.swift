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

    /// The text as a JSON pointer token (RFC 6901: `~` is `~0`, `/` is `~1`), by scalars: a `/` followed by a
    /// combining mark is one Character, which a character-wise replacement misses (found by fuzz-schema).
    package var escapedPointerToken: String {
        replacingScalars("~", with: "~0").replacingScalars("/", with: "~1")
    }

    /// A JSON pointer token unescaped (RFC 6901: `~1` is `/`, then `~0` is `~`).
    package var unescapedPointerToken: String {
        replacingScalars("~1", with: "/").replacingScalars("~0", with: "~")
    }
}

/// File paths as text, split at `/` bytes. Foundation's `NSString` path methods trap on some inputs on
/// Linux (`deletingLastPathComponent` of "-" crashed `rulekit test -`), and paths come from users.
package enum PathText {
    /// The folder part of `path` ("" when it has none; "/" for a file at the root).
    package static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return "" }
        if slash == path.utf8.startIndex { return "/" }
        return String(decoding: path.utf8[..<slash], as: UTF8.self)
    }

    /// The part after the last `/`.
    package static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return path }
        return String(decoding: path.utf8[path.utf8.index(after: slash)...], as: UTF8.self)
    }

    /// `name` inside `directory` (`name` alone when the folder is "" or `name` is absolute).
    package static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty || name.utf8.first == 0x2F { return name }
        return directory.utf8.last == 0x2F ? directory + name : directory + "/" + name
    }
}
