internal import Foundation
internal import RuleKitCore
internal import RuleKitRules
internal import RuleKitSources

/// A Language Server Protocol 3.17 server for RuleKit's rules and rule tests.
///
/// Messages are handled one at a time, in order, on the caller's thread (`receive`); checks run on a
/// worker thread (`CheckScheduler`) and publish their diagnostics themselves. The server never ends on
/// a bad message: it answers with the protocol's error and reads on.
///
/// ```swift
/// let server = LanguageServer(output: OutputChannel { bytes in write(bytes) })
/// var framer = MessageFramer()
/// for item in framer.feed(bytesRead) { server.receive([item]) }
/// ```
public final class LanguageServer {
    /// Where the lifecycle stands.
    public enum Phase: Sendable, Equatable {
        case waitingForInitialize, running, shutDown, exited
    }

    /// Where the lifecycle stands now.
    public private(set) var phase = Phase.waitingForInitialize
    /// The exit code the process should end with: 0 after `shutdown` then `exit`, 1 otherwise.
    public var exitCode: Int32 { phase == .exited && shutdownRequested ? 0 : 1 }

    let output: OutputChannel
    let workspace = Locked(WorkspaceSnapshot())
    let scheduler: CheckScheduler
    private var documents: [String: TextDocument] = [:]
    private var encoding = PositionEncoding.utf16
    private var shutdownRequested = false
    private var root: String?
    /// The workspace folders the client has open, in the order it named them; the first is the workspace
    /// the server serves (`root`).
    private var folders: [String] = []
    private var nextRequestID: Int64 = 1
    private var watchesFiles = false

    /// A server writing to `output`; checks wait `debounceMilliseconds` for the next keystroke.
    public init(output: OutputChannel, debounceMilliseconds: Int = 10) {
        self.output = output
        scheduler = CheckScheduler(workspace: workspace, output: output, debounceMilliseconds: debounceMilliseconds)
        scheduler.start()
    }

    deinit { scheduler.stop() }

    /// Handles the items of one read, in order. A `$/cancelRequest` among them cancels a request of the
    /// same read that it follows or precedes and that is not yet answered (requests of earlier reads are
    /// answered already: each is handled whole before the next read).
    public func receive(_ items: [MessageFramer.Item]) {
        let messages: [IncomingMessage?] = items.map { item in
            switch item {
            case .message(let body): return IncomingMessage.parse(body)
            case .malformed(let why):
                output.log("rulekit lsp: \(why)", type: 1)
                return nil
            }
        }
        var cancelled = Set<RequestID>()
        for case .notification("$/cancelRequest", let params)? in messages {
            if let id = RequestID(params["id"]) { cancelled.insert(id) }
        }
        for case let m? in messages {
            if phase == .exited { return }
            if case .request(let id, _, _) = m, cancelled.contains(id) {
                output.send(OutgoingMessage.error(id, .requestCancelled, "the request was cancelled"))
                continue
            }
            handle(m)
        }
    }

    /// Stops the worker; the caller ends the process with `exitCode`.
    public func close() {
        scheduler.stop()
    }

    func handle(_ message: IncomingMessage) {
        switch message {
        case .invalid(let id, let code, let why):
            output.send(OutgoingMessage.error(id, code, why))
        case .response:
            break
        case .notification(let method, let params):
            notification(method, params)
        case .request(let id, let method, let params):
            switch phase {
            case .waitingForInitialize where method != "initialize":
                output.send(OutgoingMessage.error(id, .serverNotInitialized, "the server is not initialized"))
            case .shutDown:
                output.send(OutgoingMessage.error(id, .invalidRequest, "the server is shut down"))
            default:
                let answer = request(id, method, params)
                output.send(answer)
                // The workspace is read once the client has its answer (nothing but logs may come before it).
                if method == "initialize", phase == .running { scheduler.enqueue(.loadWorkspace(root: root)) }
            }
        }
    }

    func request(_ id: RequestID, _ method: String, _ params: Value) -> Value {
        switch method {
        case "initialize":
            guard phase == .waitingForInitialize else {
                return OutgoingMessage.error(id, .invalidRequest, "initialize was already received")
            }
            return OutgoingMessage.result(id, initialize(params))
        case "shutdown":
            phase = .shutDown
            shutdownRequested = true
            scheduler.stop()
            return OutgoingMessage.result(id, .null)
        default:
            break
        }
        guard let uri = params["textDocument"]?["uri"]?.stringValue else {
            if method.hasPrefix("textDocument/") {
                return OutgoingMessage.error(id, .invalidParams, "'textDocument.uri' is missing")
            }
            return OutgoingMessage.error(id, .methodNotFound, "no method '\(method)'")
        }
        guard let document = documents[uri] else {
            return OutgoingMessage.error(id, .invalidParams, "the document '\(uri)' is not open")
        }
        scheduler.waitUntilLoaded(seconds: 10)
        let w = workspace.withLock { $0 }
        let position = Position(params["position"])
        switch method {
        case "textDocument/completion":
            guard let position else { return invalidPosition(id) }
            return OutgoingMessage.result(id, Completion.items(document, at: position, kind: kind(of: uri, w), workspace: w))
        case "textDocument/hover":
            guard let position else { return invalidPosition(id) }
            return OutgoingMessage.result(id, Hover.at(document, position, workspace: w))
        case "textDocument/definition":
            guard let position else { return invalidPosition(id) }
            return OutgoingMessage.result(id, Navigation.definition(document, position, workspace: w, text: text(of:)))
        case "textDocument/references":
            guard let position else { return invalidPosition(id) }
            let include = params["context"]?["includeDeclaration"]?.boolValue ?? true
            return OutgoingMessage.result(
                id,
                Navigation.references(
                    document, position, includeDeclaration: include, workspace: w, files: workspaceDocuments(w), text: text(of:)))
        case "textDocument/documentSymbol":
            return OutgoingMessage.result(id, Navigation.symbols(document, facts: FileURI.path(uri).flatMap { w.facts[$0] }))
        case "textDocument/codeAction":
            return OutgoingMessage.result(id, CodeActions.fixes(uri, params: params))
        default:
            return OutgoingMessage.error(id, .methodNotFound, "no method '\(method)'")
        }
    }

    func invalidPosition(_ id: RequestID) -> Value {
        OutgoingMessage.error(id, .invalidParams, "'position' is missing or not a line and character")
    }

    func initialize(_ params: Value) -> Value {
        phase = .running
        let offered = params["capabilities"]?["general"]?["positionEncodings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        // UTF-32 counts as RuleKit's columns do; UTF-16 is the protocol's default and every client's.
        encoding = offered.contains("utf-32") ? .utf32 : offered.contains("utf-8") ? .utf8 : .utf16
        watchesFiles = params["capabilities"]?["workspace"]?["didChangeWatchedFiles"]?["dynamicRegistration"]?.boolValue ?? false
        folders = (params["workspaceFolders"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue.flatMap(FileURI.path) }
        if folders.isEmpty, let uri = params["rootUri"]?.stringValue, let path = FileURI.path(uri) {
            folders = [path]
        } else if folders.isEmpty, let path = params["rootPath"]?.stringValue {
            folders = [path]
        }
        root = folders.first
        return [
            "capabilities": [
                "positionEncoding": .string(encoding.rawValue),
                "textDocumentSync": ["openClose": true, "change": 2, "save": ["includeText": false]],
                "completionProvider": ["triggerCharacters": [".", "%", "~", " ", ":"], "resolveProvider": false],
                "hoverProvider": true,
                "definitionProvider": true,
                "referencesProvider": true,
                "documentSymbolProvider": true,
                "codeActionProvider": ["codeActionKinds": ["quickfix"]],
                "workspace": ["workspaceFolders": ["supported": true, "changeNotifications": true]],
            ],
            "serverInfo": ["name": "rulekit", "version": .string(RuleKitVersion.current)],
        ]
    }

    func notification(_ method: String, _ params: Value) {
        if method == "exit" {
            phase = .exited
            scheduler.stop()
            return
        }
        guard phase == .running else { return }
        switch method {
        case "initialized":
            if watchesFiles { registerWatchers() }
        case "textDocument/didOpen":
            guard let doc = params["textDocument"], let uri = doc["uri"]?.stringValue, let text = doc["text"]?.stringValue else {
                return
            }
            let version = doc["version"]?.intValue.map { Int(clamping: $0) } ?? 0
            let d = TextDocument(uri: uri, version: version, text: text, encoding: encoding)
            documents[uri] = d
            submit(d)
        case "textDocument/didChange":
            // Taken out while it changes, so that the edit happens in place rather than on a copy of the text.
            guard let uri = params["textDocument"]?["uri"]?.stringValue, var d = documents.removeValue(forKey: uri) else { return }
            for change in params["contentChanges"]?.arrayValue ?? [] {
                guard let text = change["text"]?.stringValue else { continue }
                d.replace(change["range"].flatMap { TextRange($0) }, with: text)
            }
            if let v = params["textDocument"]?["version"]?.intValue { d.version = Int(clamping: v) } else { d.version += 1 }
            documents[uri] = d
            submit(d)
        case "textDocument/didClose":
            guard let uri = params["textDocument"]?["uri"]?.stringValue else { return }
            documents[uri] = nil
            scheduler.close(uri: uri)
            if let path = FileURI.path(uri) { scheduler.enqueue(.refreshDisk([path])) }
        case "textDocument/didSave":
            guard let uri = params["textDocument"]?["uri"]?.stringValue, let path = FileURI.path(uri) else { return }
            changedOnDisk([path])
        case "workspace/didChangeWorkspaceFolders":
            let paths = { (key: String) in
                (params["event"]?[key]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue.flatMap(FileURI.path) }
            }
            changedFolders(added: paths("added"), removed: paths("removed"))
        case "workspace/didChangeWatchedFiles":
            let paths = (params["changes"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue.flatMap(FileURI.path) }
            changedOnDisk(paths)
        default:
            break
        }
    }

    /// The client opened or closed workspace folders. The server serves one workspace, the first folder
    /// still open: when that changes, the new one is read (its rules, schemas and example events) and every
    /// open document is checked against it.
    func changedFolders(added: [String], removed: [String]) {
        folders.removeAll { removed.contains($0) }
        for f in added where !folders.contains(f) { folders.append(f) }
        guard folders.first != root else { return }
        root = folders.first
        output.log("rulekit lsp: the workspace is now \(root ?? "none (files are checked alone)")", type: 3)
        scheduler.enqueue(.loadWorkspace(root: root))
    }

    func changedOnDisk(_ paths: [String]) {
        let w = workspace.withLock { $0 }
        if paths.contains(where: { DocumentKind.of($0, schemas: w.schemas) == .schema || $0.hasSuffix("events.jsonl") }) {
            scheduler.enqueue(.reloadSchemas)
        }
        let rules = paths.filter {
            // A rule archive is read where the workspace reads them: in its rules folder.
            if RuleArchive.isArchive($0) { return PathText.directory(of: $0) == w.rulesFolder }
            let k = DocumentKind.of($0, schemas: w.schemas)
            return (k == .rules || k == .ruleTests) && documents[FileURI.uri($0)] == nil
        }
        if !rules.isEmpty { scheduler.enqueue(.refreshDisk(rules)) }
    }

    func registerWatchers() {
        let id = nextRequestID
        nextRequestID += 1
        output.send(
            OutgoingMessage.request(
                id, "client/registerCapability",
                [
                    "registrations": [
                        [
                            "id": "rulekit-files", "method": "workspace/didChangeWatchedFiles",
                            "registerOptions": [
                                "watchers": .array(RuleProject.watchPatterns.map { ["globPattern": .string($0)] })
                            ],
                        ]
                    ]
                ]))
    }

    func submit(_ d: TextDocument) {
        let w = workspace.withLock { $0 }
        let path = FileURI.path(d.uri) ?? d.uri
        scheduler.submit(d, path: path, kind: kind(of: d.uri, w))
    }

    func kind(of uri: String, _ w: WorkspaceSnapshot) -> DocumentKind {
        DocumentKind.of(FileURI.path(uri) ?? uri, schemas: w.schemas)
    }

    /// The text of the file at `path`: the editor's when it is open, else the disk's.
    func text(of path: String) -> TextDocument? {
        let uri = FileURI.uri(path)
        if let d = documents[uri] { return d }
        if let d = documents.values.first(where: { FileURI.path($0.uri) == path }) { return d }
        guard let bytes = try? ByteInput.readAll(path) else { return nil }
        return TextDocument(uri: uri, version: 0, text: String(decoding: bytes, as: UTF8.self), encoding: encoding)
    }

    /// The rules files of the workspace as the editor has them: open ones with their text, the rest from disk.
    func workspaceDocuments(_ w: WorkspaceSnapshot) -> [TextDocument] {
        var out = Array(documents.values.filter { kind(of: $0.uri, w) == .rules })
        let open = Set(out.compactMap { FileURI.path($0.uri) })
        for (path, bytes) in w.diskRules where !open.contains(path) {
            out.append(TextDocument(uri: FileURI.uri(path), version: 0, text: String(decoding: bytes, as: UTF8.self), encoding: encoding))
        }
        return out
    }
}
