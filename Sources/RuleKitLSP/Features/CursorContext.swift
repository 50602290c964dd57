/// Where the cursor stands in a YAML (or JSON) rules text, read from the lines above it by their
/// indentation, as a person reads them: the chain of keys it is under, and whether it is at a key or at
/// a key's value. Read without parsing, because the text being typed rarely parses.
struct CursorContext: Equatable {
    enum Slot: Equatable {
        /// At a key of a mapping; `siblings` are the keys already in it.
        case key(siblings: [String])
        /// At the value of `key`; `siblings` are the mapping's other entries (`key: ~type`).
        case value(key: String, siblings: [String: String])
    }

    /// The keys the cursor is under, outermost first; `-` marks a list item.
    var parents: [String]
    var slot: Slot
    /// What is typed of the current token, up to the cursor.
    var prefix: String
    /// Byte offset in the line where the typed token starts.
    var tokenStart: Int
    /// Whether the text is JSON (a Launch `rules.json`).
    var json = false
    /// In JSON: whether the cursor is inside a string (its opening quote is typed), and whether a quote
    /// follows the cursor (the editor closed it, or the key was there).
    var inString = false
    var quoteFollows = false

    /// The parents without list markers.
    var path: [String] { parents.filter { $0 != "-" } }

    /// The context at byte offset `column` of line `line` of `document`.
    static func at(_ document: TextDocument, line: Int, offset: Int) -> CursorContext {
        let lineBytes = document.line(line)
        let cut = max(lineBytes.startIndex, min(offset, lineBytes.endIndex))
        let before = Array(lineBytes[lineBytes.startIndex..<cut])
        // The typed token: back to a space, a flow indicator or a quote.
        var t = before.count
        while t > 0, !Self.stops(before[t - 1]) { t -= 1 }
        let prefix = String(decoding: before[t...], as: UTF8.self)
        let tokenStart = lineBytes.startIndex + t

        // JSON: the members above the cursor, read from the text before it.
        if document.uri.hasSuffix(".json") {
            guard let j = JSONCursor.at(document.bytes[...], offset: offset) else {
                return CursorContext(parents: [], slot: .key(siblings: []), prefix: prefix, tokenStart: tokenStart, json: true)
            }
            let quoteFollows = offset < document.bytes.count && document.bytes[offset] == UInt8(ascii: "\"")
            return CursorContext(
                parents: j.parents, slot: j.slot, prefix: prefix, tokenStart: tokenStart, json: true, inString: j.inString,
                quoteFollows: quoteFollows)
        }

        let shape = LineShape(Array(lineBytes))
        var parents: [String] = []
        var slot: Slot
        // Inside a flow mapping on this line: `- {key: ~type, eq: |`.
        if let flow = Self.openFlowMapping(before) {
            let entries = Self.flowEntries(Array(before[(flow + 1)...]))
            let siblings = Dictionary(entries.dropLast().compactMap { e in e.value.map { (e.key, $0) } }, uniquingKeysWith: { a, _ in a })
            if let last = entries.last, last.value != nil {
                slot = .value(key: last.key, siblings: siblings)
            } else {
                slot = .key(siblings: Array(siblings.keys))
            }
            // The flow mapping is a list item when a dash opens the line before it.
            parents = Self.walk(document, line: line, column: shape.dashes.first ?? shape.keyColumn).chain
            if !shape.dashes.isEmpty { parents.append("-") }
            return CursorContext(parents: parents, slot: slot, prefix: prefix, tokenStart: tokenStart)
        }
        let beforeShape = LineShape(before)
        let valueKey = beforeShape.keyEnd <= before.count ? beforeShape.key : nil
        if !beforeShape.dashes.isEmpty {
            // A new item: the mapping the cursor is in starts on this line.
            parents = Self.walk(document, line: line, column: beforeShape.dashes[0]).chain
            parents += Array(repeating: "-", count: beforeShape.dashes.count)
            slot = valueKey.map { .value(key: $0, siblings: [:]) } ?? .key(siblings: [])
            return CursorContext(parents: parents, slot: slot, prefix: prefix, tokenStart: tokenStart)
        }
        let (chain, siblings) = Self.walk(document, line: line, column: valueKey == nil ? t : beforeShape.keyColumn)
        slot = valueKey.map { .value(key: $0, siblings: siblings) } ?? .key(siblings: Array(siblings.keys))
        return CursorContext(parents: chain, slot: slot, prefix: prefix, tokenStart: tokenStart)
    }

    static func stops(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == UInt8(ascii: "{") || c == UInt8(ascii: "[") || c == UInt8(ascii: ",")
            || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'")
    }

    /// The chain of keys above a token at `column` of `line` (every line above with a smaller indentation
    /// opens one), and the entries of the mapping the token is in, above it.
    static func walk(_ document: TextDocument, line: Int, column: Int) -> (chain: [String], siblings: [String: String]) {
        var chain: [String] = []
        var siblings: [String: String] = [:]
        var t = column
        var inSameMapping = true
        var l = line - 1
        // Bounded: a walk never looks past 20,000 lines.
        let stop = max(-1, line - 20_001)
        while l > stop, t > 0 {
            defer { l -= 1 }
            let shape = LineShape(Array(document.line(l)))
            guard shape.hasContent else { continue }
            if shape.keyColumn == t {
                if inSameMapping, let key = shape.key, siblings[key] == nil { siblings[key] = shape.value }
                if let dash = shape.dashes.last {
                    // The item the mapping is in starts here.
                    chain.insert("-", at: 0)
                    t = dash
                    inSameMapping = false
                }
            } else if shape.keyColumn < t {
                inSameMapping = false
                if let key = shape.key { chain.insert(key, at: 0) }
                for _ in shape.dashes { chain.insert("-", at: 0) }
                t = shape.dashes.first ?? shape.keyColumn
            }
        }
        return (chain, siblings)
    }

    /// The offset of the innermost `{` still open in `before`, outside quotes.
    static func openFlowMapping(_ before: [UInt8]) -> Int? {
        var stack: [Int] = []
        var quote: UInt8?
        for (i, c) in before.enumerated() {
            if let q = quote {
                if c == q { quote = nil }
                continue
            }
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = c
            case UInt8(ascii: "{"), UInt8(ascii: "["): stack.append(i)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = stack.popLast()
            case UInt8(ascii: "#") where i > 0 && before[i - 1] == 0x20 && stack.isEmpty: return nil
            default: break
            }
        }
        guard let last = stack.last, before[last] == UInt8(ascii: "{") else { return nil }
        return last
    }

    /// The entries of a flow mapping's text after its `{`: each key, with its value when a `:` follows it.
    static func flowEntries(_ text: [UInt8]) -> [(key: String, value: String?)] {
        var out: [(String, String?)] = []
        var depth = 0
        var quote: UInt8?
        var part: [UInt8] = []
        func flush() {
            let s = String(decoding: part, as: UTF8.self)
            if let colon = s.firstIndex(of: ":") {
                out.append((unquote(s[..<colon]), unquote(s[s.index(after: colon)...])))
            } else {
                out.append((unquote(Substring(s)), nil))
            }
            part = []
        }
        for c in text {
            if let q = quote {
                if c == q { quote = nil }
                part.append(c)
                continue
            }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c }
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") { depth += 1 }
            if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") { depth -= 1 }
            if c == UInt8(ascii: ","), depth == 0 {
                flush()
                continue
            }
            part.append(c)
        }
        flush()
        return out
    }

    static func unquote(_ s: Substring) -> String {
        var t = s.trimmingSpaces
        if t.count >= 1, t.first == "\"" || t.first == "'" { t = t.dropFirst() }
        if t.count >= 1, t.last == "\"" || t.last == "'" { t = t.dropLast() }
        return String(t)
    }
}

/// One line of block YAML: its list dashes, where its key starts, the key.
struct LineShape {
    /// Byte columns of the `- ` item markers that open the line.
    var dashes: [Int] = []
    /// Byte column of the first content after the dashes.
    var keyColumn = 0
    /// The key, when the content is `key:` (or `key: value`).
    var key: String?
    /// Byte offset just past the key's colon.
    var keyEnd = Int.max
    /// The text after the key's colon, without a comment (empty when the value is on lines below).
    var value = ""
    /// Whether the line has anything but spaces and a comment.
    var hasContent = false

    init(_ bytes: [UInt8]) {
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        while i < bytes.count, bytes[i] == UInt8(ascii: "-"), i + 1 == bytes.count || bytes[i + 1] == 0x20 {
            dashes.append(i)
            i += 1
            while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        }
        keyColumn = i
        hasContent = (i < bytes.count && bytes[i] != UInt8(ascii: "#")) || !dashes.isEmpty
        guard i < bytes.count, bytes[i] != UInt8(ascii: "{"), bytes[i] != UInt8(ascii: "[") else { return }
        let line = bytes[...]
        let start = i
        // The key ends at the first `: ` (or a final `:`) outside quotes; a comment first means no key.
        let j = NodeExtent.firstOutsideQuotes(line, from: i) { j in
            let c = line[j]
            return (c == UInt8(ascii: ":") && (j + 1 == line.endIndex || line[j + 1] == 0x20))
                || (c == UInt8(ascii: "#") && j > start && line[j - 1] == 0x20)
        }
        guard j < line.endIndex, line[j] == UInt8(ascii: ":") else { return }
        key = CursorContext.unquote(Substring(String(decoding: bytes[i..<j], as: UTF8.self)))
        keyEnd = j + 1
        let rest = bytes[(j + 1)...]
        let end = NodeExtent.lineEnd(rest, from: rest.startIndex)
        value = CursorContext.unquote(Substring(String(decoding: rest[rest.startIndex..<end], as: UTF8.self)))
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
