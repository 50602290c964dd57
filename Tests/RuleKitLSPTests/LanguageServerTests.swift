import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitLSP

/// The server end to end in one process: lifecycle, diagnostics as the text changes, completion, hover,
/// navigation, quick fixes, and bad messages.
@Suite struct LanguageServerTests {
    static let rules = """
        version: 1
        dataElements:
          orderTotal:
            path: xdm.commerce.order.priceTotal
            type: double
            description: Order total
        rules:
          - id: big-order
            name: Tag big orders
            when:
              all:
                - {key: xdm.eventType, eq: commerce.purchases}
                - {key: '%orderTotal%', eqals: 500}
            then:
              - id: tag
                add: {data: {tier: gold, band: "{%%orderTotal%%}"}}

        """
    /// The same rules without the mistake.
    static let valid = rules.replacingOccurrences(of: "eqals", with: "ge")

    @Test func aMistakeIsDiagnosedAtItsRangeFixedByItsQuickFixAndCleared() throws {
        let root = try LSPSession.workspace([:])
        let s = LSPSession()
        let answer = s.initialize(root: root)
        #expect(answer["result"]?["capabilities"]?["textDocumentSync"]?["change"] == .int(2))
        #expect(answer["result"]?["capabilities"]?["positionEncoding"] == "utf-16")
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/shop.yaml")
        s.open(url, Self.rules)
        let found = try #require(s.diagnostics(url, version: 1))
        let unknown = try #require(found.first { $0["code"] == "rules.unknown-matcher" })
        #expect(unknown["severity"] == .int(1))
        // `eqals: 500` on line 13 (zero-based 12), from the key to the end of the entry.
        #expect(unknown["range"]?["start"] == LSPSession.position(12, 32))
        #expect(unknown["range"]?["end"] == LSPSession.position(12, 42))
        #expect(unknown["relatedInformation"]?[0]?["message"] == "did you mean 'eq'?")

        let actions = s.request(
            "textDocument/codeAction",
            [
                "textDocument": ["uri": .string(url.absoluteString)], "range": unknown["range"] ?? .null,
                "context": ["diagnostics": [unknown]],
            ])
        let edit = try #require(actions["result"]?[0]?["edit"]?["changes"]?[url.absoluteString]?[0])
        #expect(edit["newText"] == "eq")
        #expect(edit["range"]?["start"] == LSPSession.position(12, 32))
        #expect(edit["range"]?["end"] == LSPSession.position(12, 37))

        // The fix, sent as an incremental change: the diagnostic is gone at version 2.
        s.notify(
            "textDocument/didChange",
            [
                "textDocument": ["uri": .string(url.absoluteString), "version": 2],
                "contentChanges": [["range": edit["range"] ?? .null, "text": "eq"]],
            ])
        let after = try #require(s.diagnostics(url, version: 2))
        #expect(!after.contains { $0["code"] == "rules.unknown-matcher" }, "\(after)")

        #expect(s.request("shutdown", .null)["result"] == .null)
        s.notify("exit", .null)
        #expect(s.server.exitCode == 0)
    }

    @Test func completionOffersXDMPathsWithTypesMatchersAndElements() throws {
        let root = try LSPSession.workspace(["shop.yaml": Self.rules])
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/new.yaml")
        let text = """
            rules:
              - id: r
                when:
                  all:
                    - {key: xdm.commerce.order.pri
                    - key: ~type
                      e
            """
        s.open(url, text)
        let paths = s.request(
            "textDocument/completion", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(4, 40)])
        let items = paths["result"]?["items"]?.arrayValue ?? []
        let price = try #require(items.first { $0["label"] == "xdm.commerce.order.priceTotal" }, "\(items.prefix(5))")
        #expect(price["detail"] == "number")
        #expect(price["textEdit"]?["range"]?["start"] == LSPSession.position(4, 16))

        let matchers = s.request(
            "textDocument/completion", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(6, 11)])
        let labels = (matchers["result"]?["items"]?.arrayValue ?? []).compactMap { $0["label"]?.stringValue }
        #expect(labels.contains("eq") && labels.contains("ew") && !labels.contains("gt"), "\(labels)")

        let keys = s.request(
            "textDocument/completion", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(2, 4)])
        let ruleKeys = (keys["result"]?["items"]?.arrayValue ?? []).compactMap { $0["label"]?.stringValue }
        #expect(Set(ruleKeys).isSuperset(of: ["when", "then", "name"]), "\(ruleKeys)")
        #expect(!ruleKeys.contains("id"), "id is already there")

        // `%` offers the workspace's data elements.
        s.notify(
            "textDocument/didChange",
            [
                "textDocument": ["uri": .string(url.absoluteString), "version": 2],
                "contentChanges": [["range": ["start": LSPSession.position(4, 16), "end": LSPSession.position(4, 38)], "text": "'%"]],
            ])
        let elements = s.request(
            "textDocument/completion", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(4, 20)])
        let element = try #require(elements["result"]?["items"]?.arrayValue?.first { $0["label"] == "%orderTotal%" })
        #expect(element["detail"] == "xdm.commerce.order.priceTotal (double)")
    }

    @Test func hoverDefinitionReferencesAndOutline() throws {
        let root = try LSPSession.workspace([:])
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/shop.yaml")
        s.open(url, Self.valid)
        _ = try #require(s.diagnostics(url, version: 1))
        let doc: Value = ["uri": .string(url.absoluteString)]

        let matcher = s.request("textDocument/hover", ["textDocument": doc, "position": LSPSession.position(11, 32)])
        let matcherText = matcher["result"]?["contents"]?["value"]?.stringValue ?? ""
        #expect(matcherText.contains("**eq**") && matcherText.contains("missing key"), "\(matcherText)")

        let path = s.request("textDocument/hover", ["textDocument": doc, "position": LSPSession.position(3, 20)])
        #expect(path["result"]?["contents"]?["value"]?.stringValue?.contains("`number`") == true, "\(path)")

        let element = s.request("textDocument/hover", ["textDocument": doc, "position": LSPSession.position(12, 22)])
        #expect(
            element["result"]?["contents"]?["value"]?.stringValue?.hasPrefix("**%orderTotal%** → `xdm.commerce.order.priceTotal`") == true)

        let definition = s.request("textDocument/definition", ["textDocument": doc, "position": LSPSession.position(12, 22)])
        #expect(definition["result"]?["uri"]?.stringValue == url.absoluteString)
        #expect(definition["result"]?["range"]?["start"]?["line"] == .int(2), "\(definition)")

        let references = s.request(
            "textDocument/references",
            ["textDocument": doc, "position": LSPSession.position(12, 22), "context": ["includeDeclaration": false]])
        let lines = (references["result"]?.arrayValue ?? []).compactMap { $0["range"]?["start"]?["line"]?.intValue }
        #expect(lines == [12, 15], "\(references)")

        let outline = s.request("textDocument/documentSymbol", ["textDocument": doc])
        let names = (outline["result"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names == ["orderTotal", "big-order"], "\(outline)")
        #expect(outline["result"]?[1]?["children"]?[0]?["name"] == "tag")
    }

    @Test func aDataElementIsTheFilesOwnAsTheLoaderScopesIt() throws {
        // Another file, first in name order, defines an element of the same name: the loader reads each
        // file's `%orderTotal%` as its own file's, and so do definition, hover and references.
        let other = Self.valid.replacingOccurrences(of: "xdm.commerce.order.priceTotal", with: "xdm.other.total")
            .replacingOccurrences(of: "big-order", with: "other-order")
        let root = try LSPSession.workspace(["a.yaml": other])
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/shop.yaml")
        try Self.valid.write(to: url, atomically: true, encoding: .utf8)
        s.open(url, Self.valid)
        _ = try #require(s.diagnostics(url, version: 1))
        let doc: Value = ["uri": .string(url.absoluteString)]
        let definition = s.request("textDocument/definition", ["textDocument": doc, "position": LSPSession.position(12, 22)])
        #expect(definition["result"]?["uri"]?.stringValue == url.absoluteString, "\(definition)")
        let element = s.request("textDocument/hover", ["textDocument": doc, "position": LSPSession.position(12, 22)])
        #expect(element["result"]?["contents"]?["value"]?.stringValue?.contains("xdm.commerce.order.priceTotal") == true, "\(element)")
        let references = s.request(
            "textDocument/references",
            ["textDocument": doc, "position": LSPSession.position(12, 22), "context": ["includeDeclaration": true]])
        let uris = Set((references["result"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue })
        #expect(uris == [url.absoluteString], "\(references)")
        // Completion offers the file's own element, once.
        let completion = s.request("textDocument/completion", ["textDocument": doc, "position": LSPSession.position(12, 22)])
        let offered = (completion["result"]?["items"]?.arrayValue ?? []).filter { $0["label"] == "%orderTotal%" }
        #expect(offered.count == 1 && offered.first?["detail"] == "xdm.commerce.order.priceTotal (double)", "\(completion)")
    }

    @Test func aRuleIdInATestGoesToTheRule() throws {
        let root = try LSPSession.workspace(["shop.yaml": Self.valid])
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/shop.test.yaml")
        s.open(url, "cases:\n  - name: big\n    events: [{type: t, source: s}]\n    expect: {fired: [big-order]}\n")
        let found = try #require(s.diagnostics(url, version: 1))
        #expect(found.isEmpty, "\(found)")
        let definition = s.request(
            "textDocument/definition", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(3, 25)])
        #expect(definition["result"]?["uri"]?.stringValue?.hasSuffix("Rules/shop.yaml") == true, "\(definition)")
        #expect(definition["result"]?["range"]?["start"]?["line"] == .int(7))
        let hover = s.request(
            "textDocument/hover", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(3, 25)])
        #expect(hover["result"]?["contents"]?["value"]?.stringValue?.contains("`tag` add") == true, "\(hover)")
    }

    @Test func badMessagesAreAnsweredAndTheServerGoesOn() throws {
        let s = LSPSession()
        // Before initialize, a request is refused with the protocol's code.
        #expect(s.request("textDocument/hover", [:])["error"]?["code"] == .int(-32002))
        s.sendRaw(MessageFramer.frame(Array("{not json".utf8)))
        #expect(s.received.withLock { $0.last?["error"]?["code"] } == .int(-32700))
        s.sendRaw(Array("Content-Length: x\r\n\r\n".utf8))
        #expect(s.received.withLock { $0.last?["method"] } == "window/logMessage")
        _ = s.initialize(root: nil)
        #expect(s.request("no/such", [:])["error"]?["code"] == .int(-32601))
        #expect(s.request("textDocument/hover", ["textDocument": ["uri": "file:///nowhere.yaml"]])["error"]?["code"] == .int(-32602))
        #expect(s.request("initialize", [:])["error"]?["code"] == .int(-32600))
        // A client that exits without shutdown gets exit code 1.
        s.notify("exit", .null)
        #expect(s.server.phase == .exited)
        #expect(s.server.exitCode == 1)
    }

    @Test func aCancelledRequestIsAnsweredWithTheCancelledError() throws {
        let s = LSPSession()
        _ = s.initialize(root: nil)
        var bytes: [UInt8] = []
        for m: Value in [
            ["jsonrpc": "2.0", "id": 77, "method": "textDocument/documentSymbol", "params": ["textDocument": ["uri": "file:///a.yaml"]]],
            ["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": 77]],
        ] {
            var body: [UInt8] = []
            JSONWriter.write(m, to: &body)
            bytes += MessageFramer.frame(body)
        }
        s.sendRaw(bytes)
        #expect(s.received.withLock { $0.last { $0["id"] == .int(77) } }?["error"]?["code"] == .int(-32800))
    }

    @Test func noDiagnosticIsPublishedForAnOlderVersion() throws {
        let root = try LSPSession.workspace([:])
        let s = LSPSession(debounceMilliseconds: 0)
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/shop.yaml")
        s.open(url, Self.rules)
        for v in 2...40 { s.change(url, version: v, text: Self.rules + "# \(v)\n") }
        _ = try #require(s.diagnostics(url, version: 40))
        let versions = s.received.withLock { all in
            all.compactMap { $0["method"] == "textDocument/publishDiagnostics" ? $0["params"]?["version"]?.intValue : nil }
        }
        #expect(versions == versions.sorted(), "published out of order: \(versions)")
        #expect(versions.last == 40)
    }
}

/// What the workspace holds changes what an open file is checked against.
@Suite struct LanguageServerWorkspaceTests {
    @Test func aChangeToTheExampleEventsRechecksOpenFiles() throws {
        let root = Scratch.url("rk-lsp-\(UUID())")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Examples"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Rules"), withIntermediateDirectories: true)
        let examples = root.appendingPathComponent("Examples/events.jsonl")
        try #"{"type":"t","source":"s","data":{"known":1}}"#.write(to: examples, atomically: true, encoding: .utf8)
        let s = LSPSession()
        _ = s.initialize(root: root)
        let url = root.appendingPathComponent("Rules/r.yaml")
        s.open(url, "rules:\n  - id: r\n    when: {key: fresh, eq: 1}\n    then: [{id: c, add: {data: {x: 1}}}]\n")
        let before = try #require(s.diagnostics(url, version: 1))
        #expect(before.contains { $0["code"] == "lint.unknown-key" }, "\(before)")
        let published = s.publications()

        try #"{"type":"t","source":"s","data":{"known":1,"fresh":2}}"#.write(to: examples, atomically: true, encoding: .utf8)
        s.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": .string(examples.absoluteString), "type": 2]]])
        let after = s.diagnostics(after: published)
        let rechecked = try #require(after, "no new diagnostics after the example events changed")
        #expect(!rechecked.contains { $0["code"] == "lint.unknown-key" }, "\(rechecked)")

        // Closing the file clears its diagnostics.
        s.notify("textDocument/didClose", ["textDocument": ["uri": .string(url.absoluteString)]])
        let last = s.received.withLock { $0.last { $0["method"] == "textDocument/publishDiagnostics" } }
        #expect(last?["params"]?["diagnostics"] == [])
    }

    @Test func theWorkspaceFollowsTheClientsFolders() throws {
        // Two workspaces whose example events know different keys; the rules file is in neither.
        func workspace(_ key: String) throws -> URL {
            let root = Scratch.url("rk-lsp-\(UUID())")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("Examples"), withIntermediateDirectories: true)
            try #"{"type":"t","source":"s","data":{"\#(key)":1}}"#.write(
                to: root.appendingPathComponent("Examples/events.jsonl"), atomically: true, encoding: .utf8)
            return root
        }
        let a = try workspace("fresh")
        let b = try workspace("other")
        let s = LSPSession()
        let answer = s.initialize(root: a)
        #expect(answer["result"]?["capabilities"]?["workspace"]?["workspaceFolders"]?["changeNotifications"] == true)
        let url = Scratch.url("rk-lsp-\(UUID())").appendingPathComponent("r.yaml")
        s.open(url, "rules:\n  - id: r\n    when: {key: fresh, eq: 1}\n    then: [{id: c, add: {data: {x: 1}}}]\n")
        let inA = try #require(s.diagnostics(url, version: 1))
        #expect(!inA.contains { $0["code"] == "lint.unknown-key" }, "\(inA)")

        func folders(added: [URL], removed: [URL]) {
            let list = { (urls: [URL]) in Value.array(urls.map { ["uri": .string($0.absoluteString), "name": "w"] }) }
            s.notify("workspace/didChangeWorkspaceFolders", ["event": ["added": list(added), "removed": list(removed)]])
        }

        // A replaced by B: the file is checked again against B, where `fresh` is unknown.
        var published = s.publications()
        folders(added: [b], removed: [a])
        let inB = try #require(s.diagnostics(after: published), "no new diagnostics after the folders changed")
        #expect(inB.contains { $0["code"] == "lint.unknown-key" }, "\(inB)")
        // A added after B: B is still the first folder, nothing is read again.
        published = s.publications()
        folders(added: [a], removed: [])
        #expect(
            s.request("textDocument/hover", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(0, 0)])[
                "error"] == nil)
        #expect(s.publications() == published)
        // B closed: A is first again.
        folders(added: [], removed: [b])
        let backInA = try #require(s.diagnostics(after: published), "no new diagnostics after B was closed")
        #expect(!backInA.contains { $0["code"] == "lint.unknown-key" }, "\(backInA)")
    }

    @Test func launchJSONGetsItsDiagnosticsAndPathCompletion() throws {
        let root = try LSPSession.workspace([:])
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/rules.json")
        let text = """
            {"version": 1, "rules": [{"condition": {"type": "matcher", "definition": {"key": "xdm.commerce.order.pr", "matcher": "eqz", "values": [1]}},
              "consequences": [{"id": "c", "type": "add", "detail": {"eventdata": {"a": 1}}}]}]}
            """
        s.open(url, text)
        let found = try #require(s.diagnostics(url, version: 1))
        #expect(found.contains { $0["code"] == "rules.unknown-matcher" }, "\(found)")
        let offset = text.range(of: "order.pr")!.upperBound.utf16Offset(in: text)
        let items = s.request(
            "textDocument/completion",
            ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(0, offset)])
        let labels = (items["result"]?["items"]?.arrayValue ?? []).compactMap { $0["label"]?.stringValue }
        #expect(labels.contains("xdm.commerce.order.priceTotal"), "\(labels.prefix(5))")
    }

    @Test func launchJSONKeysAndTypedValuesAreCompletedByPlace() throws {
        let root = try LSPSession.workspace([:])
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/launch.json")
        // Each marker `|` is where a completion is asked; the text is opened without the markers.
        let marked = """
            {"rules": [{"condition": {"type": "group", "definition": {"logic": "and", "conditions": [
              {"type": "matcher", "definition": {"key": "~type", "|"}},
              {"type": "|"}]}},
              "|": 1,
              "consequences": [{"id": "c", "type": "|", "detail": {"|"}}, {"type": "dispatch", "detail": {"eventdataaction": "|"}}]}],
            |
            """
        var text = ""
        var positions: [(line: Int, character: Int)] = []
        var line = 0
        var character = 0
        for ch in marked {
            if ch == "|" {
                positions.append((line, character))
                continue
            }
            text.append(ch)
            if ch == "\n" {
                line += 1
                character = 0
            } else {
                character += ch.utf16.count
            }
        }
        s.open(url, text)
        func labels(_ k: Int) -> [String] {
            let answer = s.request(
                "textDocument/completion",
                [
                    "textDocument": ["uri": .string(url.absoluteString)],
                    "position": LSPSession.position(positions[k].line, positions[k].character),
                ])
            return (answer["result"]?["items"]?.arrayValue ?? []).compactMap { $0["label"]?.stringValue }
        }
        // A matcher's definition, `key` already there: the other definition keys.
        let definition = labels(0)
        #expect(definition.contains("matcher") && definition.contains("values") && !definition.contains("key"), "\(definition)")
        // A condition's type.
        #expect(labels(1) == ["group", "matcher", "historical"])
        // A rule's keys, without the ones it has.
        let rule = labels(2)
        #expect(rule.contains("meta") && rule.contains("enabled") && !rule.contains("condition"), "\(rule)")
        // A consequence's type, a detail's keys, a dispatch's data action.
        #expect(labels(3).starts(with: ["add", "mod", "dispatch", "schema"]))
        #expect(labels(4).contains("eventdata") && labels(4).contains("eventdataaction"))
        #expect(labels(5) == ["copy", "new"])
        // The root, outside any quote: the key is inserted whole, quoted.
        let top = s.request(
            "textDocument/completion",
            [
                "textDocument": ["uri": .string(url.absoluteString)],
                "position": LSPSession.position(positions[6].line, positions[6].character),
            ])
        let items = top["result"]?["items"]?.arrayValue ?? []
        #expect(items.compactMap { $0["label"]?.stringValue } == ["version"])
        #expect(items.first?["textEdit"]?["newText"] == #""version": "#)
        // Inside a key's quotes only the name is inserted.
        let inQuotes = s.request(
            "textDocument/completion",
            [
                "textDocument": ["uri": .string(url.absoluteString)],
                "position": LSPSession.position(positions[2].line, positions[2].character),
            ])
        #expect(inQuotes["result"]?["items"]?[0]?["textEdit"]?["newText"] == "consequences")
        #expect(JSONCursor.at(Array(#"{"rules": [{"#.utf8)[...], offset: 12)?.parents == ["rules", "-"])
    }
}
