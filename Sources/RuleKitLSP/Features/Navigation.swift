internal import Foundation
internal import RuleKitCore
internal import RuleKitRules
internal import RuleKitSources

/// Go to definition, references and the outline.
enum Navigation {
    /// A location in a file, for the protocol (the file's text gives the range of the node's first token).
    static func location(_ l: SourceLocation, text: (String) -> TextDocument?) -> Value? {
        guard let doc = text(l.file) else { return nil }
        let d = Diagnostic(.note, "lsp.location", "", at: l)
        return ["uri": .string(doc.uri), "range": DiagnosticsFeature.range(of: d, in: doc).json]
    }

    /// `%element%` → its definition; a rule id (in a test, or anywhere) → the rule; a test's `rules:` file → it.
    static func definition(
        _ document: TextDocument, _ position: Position, workspace w: WorkspaceSnapshot, text: (String) -> TextDocument?
    ) -> Value {
        guard let word = Word.at(document, position) else { return .null }
        let elements = w.dataElements(in: FileURI.path(document.uri))
        if let name = word.elementName, let (e, _) = elements[name], let l = e.location {
            return location(l, text: text) ?? .null
        }
        if let (rule, _) = w.rules.first(where: { $0.rule.id == word.text }), let l = rule.location {
            return location(l, text: text) ?? .null
        }
        if word.ofKey == "rules" || document.lineText(position.line).trimmingCharacters(in: .whitespaces).hasPrefix("- "),
            let path = FileURI.path(document.uri)
        {
            let candidate = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(word.text)
            if FileManager.default.fileExists(atPath: candidate), RuleSources.isRulesFile((candidate as NSString).lastPathComponent) {
                return [
                    "uri": .string(FileURI.uri(candidate)),
                    "range": TextRange(start: .init(line: 0, character: 0), end: .init(line: 0, character: 0)).json,
                ]
            }
        }
        return .null
    }

    /// Every use of a data element (`%name%` and `{%%name%%}`), and its definition when asked for, across
    /// the workspace's rules files.
    static func references(
        _ document: TextDocument, _ position: Position, includeDeclaration: Bool, workspace w: WorkspaceSnapshot,
        files: [TextDocument], text: (String) -> TextDocument?
    ) -> Value {
        guard let word = Word.at(document, position), let name = word.elementName ?? declaredElement(word, document, position, w)
        else { return .null }
        var out: [Value] = []
        let defined = w.dataElements(in: FileURI.path(document.uri))[name]
        if includeDeclaration, let (e, _) = defined, let l = e.location, let d = location(l, text: text) {
            out.append(d)
        }
        let needle = Array("%\(name)%".utf8)
        // A rules file's uses read its own element only: another file's `%name%` is another element (or none).
        for f in files where !isOtherRulesFile(f, than: defined?.file, w) {
            var i = 0
            let b = f.bytes
            while i + needle.count <= b.count {
                if b[i] == needle[0], Array(b[i..<i + needle.count]) == needle {
                    // `{%%name%%}`: the match sits inside the doubled percents.
                    let before = i > 0 && b[i - 1] == UInt8(ascii: "%")
                    let s = before ? i - 1 : i
                    let e =
                        before && i + needle.count < b.count && b[i + needle.count] == UInt8(ascii: "%")
                        ? i + needle.count + 1 : i + needle.count
                    out.append([
                        "uri": .string(f.uri),
                        "range": TextRange(start: f.position(ofOffset: s), end: f.position(ofOffset: e)).json,
                    ])
                    i += needle.count
                } else {
                    i += 1
                }
            }
        }
        return .array(out)
    }

    /// Whether `f` is a rules file other than `file`, the one defining the element asked about.
    static func isOtherRulesFile(_ f: TextDocument, than file: String?, _ w: WorkspaceSnapshot) -> Bool {
        guard let file, let path = FileURI.path(f.uri) else { return false }
        return path != file && w.facts[path]?.ruleSet != nil
    }

    /// The element whose definition key the cursor is on (`orderTotal:` under `dataElements`).
    static func declaredElement(_ word: Word, _ document: TextDocument, _ position: Position, _ w: WorkspaceSnapshot) -> String? {
        guard word.isKey, w.dataElements(in: FileURI.path(document.uri))[word.text] != nil else { return nil }
        return word.text
    }

    /// The outline: data elements, rules and their consequences; in a test file, its cases.
    static func symbols(_ document: TextDocument, facts: FileFacts?) -> Value {
        guard let facts else { return [] }
        var out: [Value] = []
        let end = document.position(ofOffset: document.bytes.count)
        if let set = facts.ruleSet {
            for e in set.dataElements {
                guard let l = e.location else { continue }
                let r = tokenRange(l, document)
                out.append(symbol(e.name, detail: e.path, kind: 13, range: r, selection: r))
            }
            let located = set.rules.enumerated().compactMap { i, r in r.location.map { (i, r, $0) } }
            for (n, (i, rule, l)) in located.enumerated() {
                let next = n + 1 < located.count ? located[n + 1].2 : nil
                let stop = next.map { Position(line: max(l.line - 1, $0.line - 2), character: 0) } ?? end
                let start = document.position(of: l)
                let range = TextRange(start: start, end: max(start, stop))
                let children: [Value] = rule.consequences.compactMap { c in
                    guard let cl = c.location else { return nil }
                    let r = tokenRange(cl, document)
                    return symbol(c.id, detail: c.type, kind: 24, range: r, selection: r)
                }
                out.append(
                    symbol(
                        rule.label(index: i), detail: rule.name ?? "", kind: 12, range: range, selection: tokenRange(l, document),
                        children: children))
            }
        }
        if let tests = facts.tests {
            for c in tests.cases {
                guard let l = c.location else { continue }
                let r = tokenRange(l, document)
                out.append(
                    symbol(c.name, detail: "\(c.events.count) event\(c.events.count == 1 ? "" : "s")", kind: 6, range: r, selection: r))
            }
        }
        return .array(out)
    }

    static func tokenRange(_ l: SourceLocation, _ document: TextDocument) -> TextRange {
        DiagnosticsFeature.range(of: Diagnostic(.note, "lsp.location", "", at: l), in: document)
    }

    static func symbol(_ name: String, detail: String, kind: Int, range: TextRange, selection: TextRange, children: [Value] = []) -> Value {
        var o: ValueObject = [
            "name": .string(name.isEmpty ? "(unnamed)" : name), "detail": .string(detail), "kind": .int(Int64(kind)),
            "range": range.json, "selectionRange": selection.json,
        ]
        if !children.isEmpty { o["children"] = .array(children) }
        return .object(o)
    }
}

/// The quick fixes: each "did you mean" applied.
enum CodeActions {
    static func fixes(_ uri: String, params: Value) -> Value {
        var out: [Value] = []
        for d in params["context"]?["diagnostics"]?.arrayValue ?? [] {
            guard case .string(let s)? = d["data"]?["suggestion"], let range = TextRange(d["data"]?["range"]) else { continue }
            out.append([
                "title": .string("Replace with '\(s)'"),
                "kind": "quickfix",
                "diagnostics": [d],
                "isPreferred": true,
                "edit": ["changes": .object([uri: [["range": range.json, "newText": .string(s)]]])],
            ])
        }
        return .array(out)
    }
}
