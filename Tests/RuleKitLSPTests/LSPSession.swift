import Foundation
import RuleKitCore
import RuleKitTestSupport

@testable import RuleKitLSP

/// A client in the same process: sends framed messages to a `LanguageServer` and reads what it writes.
final class LSPSession {
    let received = Locked<[Value]>([])
    let server: LanguageServer
    private let ids = Locked<Int64>(0)

    /// The repository's root (for `Schemas/`).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    init(debounceMilliseconds: Int = 0) {
        let received = self.received
        let output = OutputChannel { framed in
            guard let end = framed.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound,
                let v = try? JSONReader.read(Array(framed[end...])).value
            else { return false }
            received.withLock { $0.append(v) }
            return true
        }
        server = LanguageServer(output: output, debounceMilliseconds: debounceMilliseconds)
    }

    deinit { server.close() }

    func send(_ message: Value) {
        var body: [UInt8] = []
        JSONWriter.write(message, to: &body)
        var framer = MessageFramer()
        server.receive(framer.feed(MessageFramer.frame(body)))
    }

    func sendRaw(_ bytes: [UInt8]) {
        var framer = MessageFramer()
        server.receive(framer.feed(bytes))
    }

    /// Sends a request and returns its answer (requests are answered before `receive` returns).
    @discardableResult
    func request(_ method: String, _ params: Value) -> Value {
        let id = ids.withLock { n in
            n += 1
            return n
        }
        send(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params])
        return received.withLock { all in all.last { $0["id"] == .int(id) } } ?? .null
    }

    func notify(_ method: String, _ params: Value) {
        send(["jsonrpc": "2.0", "method": .string(method), "params": params])
    }

    /// Initializes with `root` as the workspace folder and waits for the workspace to load.
    func initialize(root: URL?, encodings: [String] = []) -> Value {
        var params: ValueObject = [
            "processId": .null, "capabilities": ["general": ["positionEncodings": .array(encodings.map(Value.string))]],
        ]
        if let root { params["workspaceFolders"] = [["uri": .string(root.absoluteString), "name": "w"]] }
        let answer = request("initialize", .object(params))
        notify("initialized", [:])
        return answer
    }

    func open(_ url: URL, _ text: String, version: Int = 1) {
        notify(
            "textDocument/didOpen",
            [
                "textDocument": [
                    "uri": .string(url.absoluteString), "languageId": "yaml", "version": .int(Int64(version)), "text": .string(text),
                ]
            ])
    }

    /// Replaces the whole text of `url` (a full-sync change) at `version`.
    func change(_ url: URL, version: Int, text: String) {
        notify(
            "textDocument/didChange",
            [
                "textDocument": ["uri": .string(url.absoluteString), "version": .int(Int64(version))],
                "contentChanges": [["text": .string(text)]],
            ])
    }

    /// Waits (up to 20 s) for the diagnostics of `url` at `version`, and returns them.
    func diagnostics(_ url: URL, version: Int) -> [Value]? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let found = received.withLock { all in
                all.last {
                    $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["uri"]?.stringValue == url.absoluteString
                        && $0["params"]?["version"] == .int(Int64(version))
                }
            }
            if let found { return found["params"]?["diagnostics"]?.arrayValue }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return nil
    }

    /// How many diagnostics have been published so far, for any file.
    func publications() -> Int {
        received.withLock { $0.count { $0["method"] == "textDocument/publishDiagnostics" } }
    }

    /// Waits (up to 20 s) for a publication after the first `published`, and returns the diagnostics of
    /// the newest.
    func diagnostics(after published: Int) -> [Value]? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let found = received.withLock { all in
                let publishes = all.filter { $0["method"] == "textDocument/publishDiagnostics" }
                return publishes.count > published ? publishes.last?["params"]?["diagnostics"]?.arrayValue : nil
            }
            if let found { return found }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return nil
    }

    /// Waits until the workspace has loaded (its linter knows the XDM paths) or 20 s passed.
    func waitForWorkspace() {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, server.workspace.withLock({ $0.xdmPaths.isEmpty }) { Thread.sleep(forTimeInterval: 0.005) }
    }

    static func position(_ line: Int, _ character: Int) -> Value {
        ["line": .int(Int64(line)), "character": .int(Int64(character))]
    }

    /// A workspace with `Rules/` holding `files`, and the repository's `Schemas/`.
    static func workspace(_ files: [String: String]) throws -> URL {
        let root = Scratch.url("rk-lsp-\(UUID())")
        let rules = root.appendingPathComponent("Rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("Schemas"), withDestinationURL: repository.appendingPathComponent("Schemas"))
        for (name, text) in files { try text.write(to: rules.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return root
    }
}
