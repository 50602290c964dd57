import Foundation
import RuleKitCore
import RuleKitSources
import RuleKitTestSupport
import Testing

@testable import RuleKitLSP

/// A rule archive in the workspace's rules folder (a Launch publish kept beside the YAML): read as
/// `rulekit lint` reads it, its findings published on its URI, its rules offered to the rule tests, and read
/// again when it changes on disk.
@Suite struct RuleArchiveWorkspaceTests {
    /// A Launch rules.json with one rule `id`, whose `ne` on a key a missing key also satisfies.
    static func launchZip(ruleID id: String) throws -> Data {
        let json =
            #"{"version":1,"rules":[{"id":"\#(id)","condition":{"type":"matcher","definition":{"key":"plan","matcher":"ne","values":["free"]}},"#
            + #""consequences":[{"id":"c","type":"add","detail":{"eventdata":{"paid":true}}}]}]}"#
        return Data(try RuleArchive.launchZip(rulesJSON: Array(json.utf8)))
    }

    /// The newest diagnostics published for `uri` after the first `published` publications, waited for up to 20 s.
    static func published(_ s: LSPSession, uri: String, after published: Int = 0) -> [Value]? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let found = s.received.withLock { all in
                Array(all.filter { $0["method"] == "textDocument/publishDiagnostics" }.dropFirst(published))
                    .last { $0["params"]?["uri"]?.stringValue == uri }
            }
            if let found { return found["params"]?["diagnostics"]?.arrayValue }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return nil
    }

    static func firedCompletion(_ s: LSPSession, _ url: URL) -> [String] {
        let items = s.request(
            "textDocument/completion", ["textDocument": ["uri": .string(url.absoluteString)], "position": LSPSession.position(3, 20)])
        return (items["result"]?["items"]?.arrayValue ?? []).compactMap { $0["label"]?.stringValue }
    }

    @Test func anArchiveInTheRulesFolderIsReadCheckedAndFollowed() throws {
        let root = try LSPSession.workspace(["shop.yaml": LanguageServerTests.valid])
        let zip = root.appendingPathComponent("Rules/published.zip")
        try Self.launchZip(ruleID: "from-zip").write(to: zip)
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let uri = FileURI.uri(zip.path)

        let found = try #require(Self.published(s, uri: uri), "no diagnostics published for the archive")
        let trap = try #require(found.first { $0["code"] == "lint.missing-key-trap" }, "\(found)")
        #expect(trap["message"]?.stringValue?.hasPrefix("rules.json:1:") == true, "\(trap)")

        // A rule test completes the archive's rule ids beside the files'.
        let test = root.appendingPathComponent("Rules/shop.test.yaml")
        s.open(test, "cases:\n  - name: big\n    events: [{type: t, source: s}]\n    expect: {fired: }\n")
        #expect(Set(Self.firedCompletion(s, test)).isSuperset(of: ["from-zip", "big-order"]))

        // Replaced on disk: read again, the old rule gone and the new one offered.
        let before = s.publications()
        try Self.launchZip(ruleID: "renamed").write(to: zip, options: .atomic)
        s.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": .string(uri), "type": 2]]])
        #expect(Self.published(s, uri: uri, after: before) != nil, "the changed archive was not read again")
        let labels = Self.firedCompletion(s, test)
        #expect(labels.contains("renamed") && !labels.contains("from-zip"), "\(labels)")

        // Removed: its findings are cleared and its rules forgotten.
        let again = s.publications()
        try FileManager.default.removeItem(at: zip)
        s.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": .string(uri), "type": 3]]])
        #expect(Self.published(s, uri: uri, after: again) == [])
        #expect(!Self.firedCompletion(s, test).contains("renamed"))
    }
}
