internal import RuleKitCore
internal import RuleKitRules
internal import RuleKitXDM

/// The word under the cursor, as the rules format reads it.
struct Word {
    var text: String
    var start: Int
    var end: Int
    /// Whether a `:` follows it (it is a key).
    var isKey: Bool
    /// The key whose value it is (`key` in `key: xdm.a`), when on the same line.
    var ofKey: String?

    static func at(_ document: TextDocument, _ position: Position) -> Word? {
        let line = document.line(position.line)
        let o = document.offset(of: position)
        guard o >= line.startIndex, o <= line.endIndex else { return nil }
        var s = o
        var e = o
        while s > line.startIndex, !stops(line[s - 1]) { s -= 1 }
        while e < line.endIndex, !stops(line[e]) { e += 1 }
        guard s < e else { return nil }
        var text = String(decoding: line[s..<e], as: UTF8.self)
        // `{%%name%%}` names the data element `%name%`.
        if text.hasPrefix("%%"), text.hasSuffix("%%"), text.count > 4 { text = String(text.dropFirst().dropLast()) }
        var i = e
        while i < line.endIndex, line[i] == 0x20 || line[i] == UInt8(ascii: "\"") || line[i] == UInt8(ascii: "'") { i += 1 }
        let isKey = i < line.endIndex && line[i] == UInt8(ascii: ":")
        // The key this word is the value of: the nearest `name:` before it on the line.
        var ofKey: String?
        var j = s
        while j > line.startIndex, line[j - 1] == 0x20 || line[j - 1] == UInt8(ascii: "\"") || line[j - 1] == UInt8(ascii: "'") {
            j -= 1
        }
        if j > line.startIndex, line[j - 1] == UInt8(ascii: ":") {
            var k = j - 1
            while k > line.startIndex, line[k - 1] == UInt8(ascii: "\"") || line[k - 1] == UInt8(ascii: "'") { k -= 1 }
            var ks = k
            while ks > line.startIndex, !stops(line[ks - 1]) { ks -= 1 }
            if ks < k { ofKey = String(decoding: line[ks..<k], as: UTF8.self) }
        }
        return Word(text: text, start: s, end: e, isKey: isKey, ofKey: ofKey)
    }

    static func stops(_ c: UInt8) -> Bool {
        switch c {
        case 0x20, 0x09, UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","),
            UInt8(ascii: ":"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "#"):
            true
        default: false
        }
    }

    /// The data element's name when the word is `%name%`.
    var elementName: String? {
        guard text.count > 2, text.hasPrefix("%"), text.hasSuffix("%") else { return nil }
        return String(text.dropFirst().dropLast())
    }
}

/// Hover: an XDM path's type, format, enum and description; a matcher's meaning and its Launch trap; a data
/// element's definition; a rule's consequences; a key of the format.
enum Hover {
    static func at(_ document: TextDocument, _ position: Position, workspace w: WorkspaceSnapshot) -> Value {
        guard let word = Word.at(document, position), let text = markdown(word, workspace: w, in: FileURI.path(document.uri))
        else { return .null }
        let range = TextRange(start: document.position(ofOffset: word.start), end: document.position(ofOffset: word.end))
        return ["contents": ["kind": "markdown", "value": .string(text)], "range": range.json]
    }

    static func markdown(_ word: Word, workspace w: WorkspaceSnapshot, in document: String? = nil) -> String? {
        if let name = word.elementName {
            guard let (e, file) = w.dataElements(in: document)[name] else {
                let scope = document.flatMap { w.facts[$0]?.ruleSet } != nil ? "this file" : "the workspace"
                return "`%\(name)%`: no data element of this name in \(scope)"
            }
            var s = "**%\(name)%** → `\(e.path)` (\(e.type.rawValue))"
            if let d = e.description { s += "\n\n" + d }
            if let leaf = w.linter.xdmLeaf(e.path) { s += "\n\n" + xdm(leaf) }
            s += "\n\nDefined in `\(file)`" + (e.location.map { ":\($0.line)" } ?? "")
            return s
        }
        let isMatcherValue = word.ofKey == "matcher"
        if word.isKey || isMatcherValue, let m = Vocabulary.matcher(word.text) {
            return "**\(m.code)** — \(m.name): \(m.meaning)\n\n**Trap:** \(m.trap)\n\n\(Vocabulary.conversion)"
        }
        if word.isKey, let meaning = Vocabulary.keyMeaning(word.text) {
            return "**\(word.text)** — \(meaning)"
        }
        if let (_, meaning) = Vocabulary.tokens.first(where: { $0.0 == word.text || (word.text.hasPrefix($0.0) && $0.0.hasSuffix(".")) }) {
            return "**\(word.text)** — \(meaning)"
        }
        if let leaf = w.linter.xdmLeaf(word.text) {
            return "**\(word.text)**\n\n" + xdm(leaf)
        }
        if let (rule, file) = w.rules.first(where: { $0.rule.id == word.text }) {
            return self.rule(rule, file: file)
        }
        return nil
    }

    static func xdm(_ leaf: XDMPath) -> String {
        var s = "XDM `\(leaf.path)`: `\(leaf.type)`"
        if let f = leaf.format { s += ", format `\(f)`" }
        if let e = leaf.enumValues, !e.isEmpty {
            s += "\n\none of: " + e.prefix(20).map { "`\($0.stringValue ?? JSONWriter.string($0))`" }.joined(separator: ", ")
            if e.count > 20 { s += ", … (\(e.count) in all)" }
        }
        if let d = leaf.description { s += "\n\n" + d }
        return s
    }

    static func rule(_ rule: Rule, file: String) -> String {
        var s = "**rule \(rule.id ?? "")**" + (rule.name.map { " — \($0)" } ?? "")
        if !rule.enabled { s += " (disabled)" }
        if let d = rule.description { s += "\n\n" + d }
        s += "\n\nthen:"
        for c in rule.consequences {
            var detail = JSONWriter.string(.object(c.detail))
            if detail.count > 200 { detail = String(detail.prefix(200)) + "…" }
            s += "\n- `\(c.id)` \(c.type) `\(detail)`"
        }
        s += "\n\nDefined in `\(file)`" + (rule.location.map { ":\($0.line)" } ?? "")
        return s
    }
}
