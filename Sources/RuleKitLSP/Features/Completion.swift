internal import RuleKitCore
internal import RuleKitRules

/// Completion in context: the format's keys where they may stand, matcher codes with their meaning, XDM
/// paths with their types, data elements, tokens, event types and sources, rule ids in tests.
enum Completion {
    /// Items beyond this many are cut (the list is then marked incomplete, and the client asks again as
    /// more is typed).
    static let maxItems = 500

    static func items(_ document: TextDocument, at position: Position, kind: DocumentKind, workspace: WorkspaceSnapshot)
        -> Value
    {
        let offset = document.offset(of: position)
        let context = CursorContext.at(document, line: min(position.line, document.lineCount - 1), offset: offset)
        let range = TextRange(start: document.position(ofOffset: context.tokenStart), end: document.position(ofOffset: offset))
        var list = List(prefix: context.prefix, range: range, file: FileURI.path(document.uri))
        switch kind {
        case .ruleTests: testFile(context, workspace: workspace, into: &list)
        case .rules: rulesFile(context, workspace: workspace, into: &list)
        case .schema, .other: break
        }
        return ["isIncomplete": .bool(list.cut), "items": .array(list.items)]
    }

    /// The items offered, filtered by what is typed.
    struct List {
        let prefix: String
        let lowered: String
        let range: TextRange
        /// The document's file: the data elements offered are the ones its `%name%` reads (the loader's scope).
        let file: String?
        var items: [Value] = []
        var cut = false

        init(prefix: String, range: TextRange, file: String?) {
            self.prefix = prefix
            self.lowered = prefix.lowercased()
            self.range = range
            self.file = file
        }

        mutating func add(
            _ label: String, kind: Int, detail: String? = nil, documentation: String? = nil, insert: String? = nil,
            sort: String? = nil
        ) {
            guard lowered.isEmpty || label.lowercased().hasPrefix(lowered) || label.lowercased().contains(lowered) else { return }
            guard items.count < maxItems else {
                cut = true
                return
            }
            var o: ValueObject = [
                "label": .string(label), "kind": .int(Int64(kind)),
                "textEdit": ["range": range.json, "newText": .string(insert ?? label)],
            ]
            if let detail { o["detail"] = .string(detail) }
            if let documentation { o["documentation"] = ["kind": "markdown", "value": .string(documentation)] }
            if let sort { o["sortText"] = .string(sort) }
            items.append(.object(o))
        }

        mutating func keys(_ table: [(String, String)], except present: [String] = []) {
            for (i, (k, meaning)) in table.enumerated() where !present.contains(k) {
                add(k, kind: 10, detail: meaning, insert: k + ": ", sort: String(format2(i)))
            }
        }

        /// JSON members: inside the key's quotes the name alone; after an opening quote the name, the closing
        /// quote and the colon; outside any quote the whole key.
        mutating func jsonKeys(_ table: [(String, String)], except present: [String], context c: CursorContext) {
            for (i, (k, meaning)) in table.enumerated() where !present.contains(k) {
                let insert = !c.inString ? "\"" + k + "\": " : c.quoteFollows ? k : k + "\": "
                add(k, kind: 10, detail: meaning, insert: insert, sort: String(format2(i)))
            }
        }
    }

    static func format2(_ i: Int) -> String { i < 10 ? "0\(i)" : "\(i)" }

    // CompletionItemKind: 5 field, 6 variable, 10 property, 12 value, 20 enum member, 21 constant.

    static func rulesFile(_ c: CursorContext, workspace w: WorkspaceSnapshot, into list: inout List) {
        if c.json { return launchFile(c, workspace: w, into: &list) }
        let path = c.path
        switch c.slot {
        case .key(let siblings):
            if path.isEmpty {
                list.keys(Vocabulary.topKeys, except: siblings)
            } else if path.first == "dataElements" {
                if path.count == 2 { list.keys(Vocabulary.dataElementKeys, except: siblings) }
            } else if path.contains("when") {
                if path.last == "history" {
                    list.keys(Vocabulary.historyConditionKeys, except: siblings)
                } else if path.last == "events" || path.last == "definition" {
                    return
                } else if siblings.contains("key") {
                    matchers(into: &list, except: siblings)
                } else {
                    list.keys(Vocabulary.conditionKeys, except: siblings)
                }
            } else if path.contains("then") {
                if path.last == "dispatch" {
                    list.keys(Vocabulary.dispatchKeys, except: siblings)
                } else if path.last == "history" {
                    list.keys(Vocabulary.historyConsequenceKeys, except: siblings)
                } else if path.last == "then", c.parents.last == "-" {
                    list.keys(Vocabulary.consequenceKeys, except: siblings)
                }
            } else if path == ["rules"], c.parents.last == "-" {
                list.keys(Vocabulary.ruleKeys, except: siblings)
            }
        case .value(let key, let siblings):
            value(key: key, siblings: siblings, context: c, workspace: w, into: &list)
        }
    }

    /// A Launch `rules.json`: its keys by place, and the values of its typed members.
    static func launchFile(_ c: CursorContext, workspace w: WorkspaceSnapshot, into list: inout List) {
        let path = c.path
        let item = c.parents.last == "-"
        switch c.slot {
        case .key(let siblings):
            let table: [(String, String)]
            switch path.last {
            case nil: table = Vocabulary.launchRootKeys
            case "rules" where item: table = Vocabulary.launchRuleKeys
            case "condition": table = Vocabulary.launchConditionKeys
            case "conditions" where item: table = Vocabulary.launchConditionKeys
            case "definition": table = Vocabulary.launchDefinitionKeys
            case "consequences" where item: table = Vocabulary.launchConsequenceKeys
            case "detail": table = Vocabulary.launchDetailKeys
            case "meta": table = [("reEvaluate", "true: the rule runs again after rules reload")]
            default: return
            }
            list.jsonKeys(table, except: siblings, context: c)
        case .value(let key, let siblings):
            switch (key, path.last) {
            case ("type", "condition"), ("type", "conditions"):
                for (t, meaning) in Vocabulary.launchConditionTypes { list.add(t, kind: 20, detail: meaning) }
            case ("type", "consequences"):
                for (t, meaning) in Vocabulary.launchConsequenceTypes { list.add(t, kind: 20, detail: meaning) }
            case ("type", "detail"):
                for t in Vocabulary.eventTypes { list.add(t, kind: 12) }
            case ("source", "detail"):
                for s in Vocabulary.eventSources { list.add(s, kind: 12) }
            case ("eventdataaction", _):
                list.add("copy", kind: 20, detail: "the triggering event's data")
                list.add("new", kind: 20, detail: "the consequence's eventdata")
            default:
                value(key: key, siblings: siblings, context: c, workspace: w, into: &list)
            }
        }
    }

    static func matchers(into list: inout List, except present: [String]) {
        for (i, m) in Vocabulary.matchers.enumerated() where !present.contains(m.code) {
            list.add(
                m.code, kind: 20, detail: m.name, documentation: "\(m.meaning)\n\n**Trap:** \(m.trap)",
                insert: m.code + ": ", sort: format2(i))
        }
        list.keys(Vocabulary.matcherExtraKeys, except: present)
    }

    static func value(
        key: String, siblings: [String: String], context c: CursorContext, workspace w: WorkspaceSnapshot,
        into list: inout List
    ) {
        if c.prefix.hasPrefix("%") || c.prefix.hasPrefix("{%") {
            dataElements(w, into: &list, tokens: c.prefix.hasPrefix("{%"))
            return
        }
        switch key {
        case "key", "path":
            keyPaths(w, into: &list)
        case "type" where c.path.last == "dataElements" || c.path.dropLast().last == "dataElements":
            for t in DataElement.ValueType.allCases { list.add(t.rawValue, kind: 20) }
        case "type" where c.path.last == "dispatch" || c.path.last == "events" || c.path.last == "history":
            for t in Vocabulary.eventTypes { list.add(t, kind: 12) }
        case "source":
            for s in Vocabulary.eventSources { list.add(s, kind: 12) }
        case "action":
            list.add("copy", kind: 20, detail: "the triggering event's data")
            list.add("new", kind: 20, detail: "the consequence's data")
        case "operation":
            list.add("insert", kind: 20)
            list.add("insertIfNotExists", kind: 20)
        case "searchType":
            for s in ["any", "ordered", "mostRecent"] { list.add(s, kind: 20) }
        case "matcher":
            for m in Vocabulary.matchers { list.add(m.code, kind: 20, detail: m.name, documentation: m.meaning) }
        case "logic":
            list.add("and", kind: 20)
            list.add("or", kind: 20)
        case "enabled", "ex", "nx", "reEvaluate":
            list.add("true", kind: 12)
            if key == "enabled" { list.add("false", kind: 12) }
        default:
            guard Operation(code: key) != nil, let subject = siblings["key"] else { return }
            if subject == "~type" {
                for t in Vocabulary.eventTypes { list.add(t, kind: 12) }
            } else if subject == "~source" {
                for s in Vocabulary.eventSources { list.add(s, kind: 12) }
            } else if let leaf = w.linter.xdmLeaf(subject), let values = leaf.enumValues {
                for v in values { list.add(v.stringValue ?? JSONWriter.string(v), kind: 20, detail: leaf.type) }
            }
        }
    }

    static func keyPaths(_ w: WorkspaceSnapshot, into list: inout List) {
        if list.prefix.hasPrefix("~") || list.prefix.isEmpty {
            for (t, meaning) in Vocabulary.tokens { list.add(t, kind: 21, detail: meaning) }
        }
        dataElements(w, into: &list, tokens: false)
        for (key, leaf) in w.xdmPaths {
            var doc = "`\(leaf.type)`" + (leaf.format.map { ", format `\($0)`" } ?? "")
            if let d = leaf.description { doc += "\n\n" + d }
            list.add(key, kind: 5, detail: leaf.type, documentation: doc)
        }
    }

    static func dataElements(_ w: WorkspaceSnapshot, into list: inout List, tokens: Bool) {
        for (name, (e, file)) in w.dataElements(in: list.file).sorted(by: { $0.key < $1.key }) {
            let label = tokens ? "{%%\(name)%%}" : "%\(name)%"
            list.add(
                label, kind: 6, detail: "\(e.path) (\(e.type.rawValue))",
                documentation: (e.description.map { $0 + "\n\n" } ?? "") + "Defined in `\(file)`.")
        }
    }

    static func testFile(_ c: CursorContext, workspace w: WorkspaceSnapshot, into list: inout List) {
        let path = c.path
        switch c.slot {
        case .key(let siblings):
            if path.isEmpty {
                list.keys(Vocabulary.testFileKeys, except: siblings)
            } else if path == ["cases"] {
                list.keys(Vocabulary.testCaseKeys, except: siblings)
            } else if path.last == "events" {
                list.keys(Vocabulary.testEventKeys, except: siblings)
            } else if path.last == "expect" {
                list.keys(Vocabulary.expectKeys, except: siblings)
            } else if path.last == "history" {
                list.keys(Vocabulary.testHistoryKeys, except: siblings)
            } else if path.last == "dispatched" {
                list.keys(Array(Vocabulary.testEventKeys[1...3]), except: siblings)
            }
        case .value(let key, _):
            switch key {
            case "type": for t in Vocabulary.eventTypes { list.add(t, kind: 12) }
            case "source": for s in Vocabulary.eventSources { list.add(s, kind: 12) }
            case "fired", "notFired":
                for (rule, file) in w.rules {
                    guard let id = rule.id else { continue }
                    list.add(id, kind: 12, detail: rule.name, documentation: "Defined in `\(file)`.")
                }
            default: break
            }
        }
    }
}
