internal import Dispatch
internal import Foundation
internal import RuleKitCore
internal import RuleKitSources
internal import RuleKitYAML

/// Runs the checks on a thread of its own, so that typing never waits on them.
///
/// A change replaces the check pending for its document (only the newest text is ever checked). A change
/// after a pause is checked at once; one that follows another within `debounce` waits for the next
/// keystroke that long before it starts. A check asks between its phases whether a newer text
/// came; when one did, it stops. Its findings are published only if its version is still the newest when
/// they are written: the check of the version number and the write happen under one lock, which `submit`
/// takes too, so no older diagnostic ever follows a newer change.
final class CheckScheduler: Sendable {
    /// One check to run.
    struct Job: Sendable {
        var document: TextDocument
        var path: String
        var kind: DocumentKind
        /// Uptime in nanoseconds before which it does not start.
        var due: UInt64
    }

    /// Work other than a document's check, run before pending checks.
    enum Task: Sendable {
        /// Read the workspace (at start) or re-read the schemas (a schema changed), then re-check open files.
        case loadWorkspace(root: String?)
        case reloadSchemas
        /// Re-read rules files changed on disk.
        case refreshDisk([String])
    }

    private struct State {
        var pending: [String: Job] = [:]
        var tasks: [Task] = []
        var latest: [String: Int] = [:]
        var open: [String: Job] = [:]
        /// Uptime of each document's last change, for the debounce.
        var lastChange: [String: UInt64] = [:]
        var stopped = false
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    let workspace: Locked<WorkspaceSnapshot>
    let output: OutputChannel
    let debounce: UInt64
    /// Checks run, for tests.
    let checksRun = Locked(0)
    /// Each open YAML rules document's libyaml events, as of its last check: the next check re-reads only
    /// the rule an edit touched (`YAMLEventLog`). Touched by the check thread only, and by `close`.
    private let eventLogs = Locked([String: YAMLEventLog]())
    /// Checks whose events were spliced from the last check's, for tests.
    let splicedChecks = Locked(0)
    /// Whether the workspace has been read once (set once; `loadedSignal` wakes who waits for it).
    private let loaded = Locked(false)
    private let loadedSignal = DispatchSemaphore(value: 0)

    init(workspace: Locked<WorkspaceSnapshot>, output: OutputChannel, debounceMilliseconds: Int) {
        self.workspace = workspace
        self.output = output
        self.debounce = UInt64(max(0, debounceMilliseconds)) * 1_000_000
    }

    /// Starts the worker thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "rulekit-lsp-check"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits until the workspace has been read once, or `seconds` passed: a request that came with the first
    /// keystrokes (completion right after opening) answers from the schemas rather than from nothing.
    func waitUntilLoaded(seconds: Double) {
        guard !loaded.withLock({ $0 }) else { return }
        if loadedSignal.wait(timeout: .now() + seconds) == .success { loadedSignal.signal() }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    /// Checks `document` after the debounce, replacing a pending check of the same document.
    func submit(_ document: TextDocument, path: String, kind: DocumentKind, immediately: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { s in
            // The first change after a pause is checked at once; a change that follows another within the
            // debounce waits for the pause after it (typing is checked once it stops, an edit right away).
            let calm = s.lastChange[document.uri].map { now &- $0 >= debounce } ?? true
            let due = immediately || calm ? now : now + debounce
            let job = Job(document: document, path: path, kind: kind, due: due)
            s.pending[document.uri] = job
            s.latest[document.uri] = document.version
            s.open[document.uri] = job
            if !immediately { s.lastChange[document.uri] = now }
        }
        wake.signal()
    }

    /// The document was closed: its pending check is dropped and its diagnostics cleared.
    func close(uri: String) {
        state.withLock { s in
            s.pending[uri] = nil
            s.latest[uri] = nil
            s.open[uri] = nil
            s.lastChange[uri] = nil
            eventLogs.withLock { $0[uri] = nil }
            output.send(
                OutgoingMessage.notification("textDocument/publishDiagnostics", ["uri": .string(uri), "diagnostics": []]))
        }
    }

    func enqueue(_ task: Task) {
        state.withLock { $0.tasks.append(task) }
        wake.signal()
    }

    private func isCurrent(_ uri: String, _ version: Int) -> Bool {
        state.withLock { $0.latest[uri] == version }
    }

    private enum Next {
        case task(Task)
        case job(Job)
        case wait(UInt64?)
        case stop
    }

    private func next() -> Next {
        state.withLock { s in
            if s.stopped { return .stop }
            if !s.tasks.isEmpty { return .task(s.tasks.removeFirst()) }
            let now = DispatchTime.now().uptimeNanoseconds
            guard let first = s.pending.values.min(by: { $0.due < $1.due }) else { return .wait(nil) }
            if first.due > now { return .wait(first.due - now) }
            s.pending[first.document.uri] = nil
            return .job(first)
        }
    }

    private func run() {
        while true {
            switch next() {
            case .stop: return
            case .wait(nil): wake.wait()
            case .wait(let ns?): _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(ns, 1_000_000_000))))
            case .task(let t): perform(t)
            case .job(let j): check(j)
            }
        }
    }

    private func perform(_ task: Task) {
        switch task {
        case .loadWorkspace(let root):
            let w = WorkspaceSnapshot.load(root: root)
            for p in w.problems { output.log(p, type: 2) }
            workspace.withLock { $0 = w }
            publishArchives(w.archiveFindings)
            if !loaded.withLock({ l in
                defer { l = true }
                return l
            }) {
                loadedSignal.signal()
            }
        case .reloadSchemas:
            var w = workspace.withLock { $0 }
            w.loadLinter()
            for p in w.problems { output.log(p, type: 2) }
            let linter = w.linter
            let paths = w.xdmPaths
            // An archive's findings depend on the schemas too.
            let archives = w.archiveFindings.keys.map { ($0, WorkspaceSnapshot.readArchive($0, linter: linter)) }
            workspace.withLock {
                $0.linter = linter
                $0.xdmPaths = paths
                for (a, read) in archives { $0.replaceArchive(a, read) }
            }
            publishArchives(Dictionary(archives.map { ($0.0, $0.1.findings) }, uniquingKeysWith: { a, _ in a }))
        case .refreshDisk(let paths):
            let linter = workspace.withLock { $0.linter }
            for p in paths where RuleArchive.isArchive(p) {
                let read = WorkspaceSnapshot.readArchive(p, linter: linter)
                workspace.withLock { $0.replaceArchive(p, read) }
                publishArchives([p: read.findings])
            }
            for p in paths where !RuleArchive.isArchive(p) {
                let bytes = try? ByteInput.readAll(p)
                let kind = DocumentKind.of(p, schemas: nil)
                let result = bytes.flatMap { DocumentCheck.run(path: p, kind: kind, bytes: $0, linter: linter) }
                workspace.withLock { w in
                    w.diskRules.removeAll { $0.path == p }
                    if let bytes, kind == .rules { w.diskRules.append((p, bytes)) }
                    w.facts[p] = result?.facts
                }
            }
        }
        // Whatever changed, every open document is checked again against it.
        let open = state.withLock { s in Array(s.open.values) }
        for j in open where state.withLock({ $0.pending[j.document.uri] == nil }) {
            submit(j.document, path: j.path, kind: j.kind, immediately: true)
        }
    }

    /// Publishes each archive's findings on its URI (`DiagnosticsFeature.json(archive:uri:)`).
    private func publishArchives(_ findings: [String: [Diagnostic]]) {
        for (path, found) in findings.sorted(by: { $0.key < $1.key }) {
            let uri = FileURI.uri(path)
            output.send(
                OutgoingMessage.notification(
                    "textDocument/publishDiagnostics",
                    ["uri": .string(uri), "diagnostics": DiagnosticsFeature.json(archive: found, uri: uri)]))
        }
    }

    private func check(_ job: Job) {
        let uri = job.document.uri
        let version = job.document.version
        let (linter, others) = workspace.withLock { ($0.linter, $0.diskRules) }
        // The facts this check replaces are freed at the end, after its findings went out.
        var retired: FileFacts?
        let bytes = job.document.bytes
        let events = eventLog(uri: uri, job: job, bytes: bytes)
        guard
            DocumentCheck.run(
                path: job.path, kind: job.kind, bytes: bytes, linter: linter, others: others, events: events,
                isCancelled: { [self] in !isCurrent(uri, version) },
                publish: { [self] diagnostics, facts in
                    // Facts first: a request that follows the diagnostics sees this version's rules.
                    if facts.ruleSet != nil || facts.tests != nil || job.kind == .other {
                        retired = workspace.withLock { w in
                            defer { w.facts[job.path] = facts }
                            return w.facts[job.path]
                        }
                    }
                    let json = DiagnosticsFeature.json(diagnostics, in: job.document)
                    state.withLock { s in
                        guard s.latest[uri] == version else { return }
                        output.send(
                            OutgoingMessage.notification(
                                "textDocument/publishDiagnostics",
                                ["uri": .string(uri), "version": .int(Int64(version)), "diagnostics": json]))
                    }
                }) != nil
        else {
            // Stopped for a newer text: the events are still this text's, a base for the next splice.
            keepEventLog(events, uri: uri)
            return
        }
        keepEventLog(events, uri: uri)
        checksRun.withLock { $0 += 1 }
        withExtendedLifetime(retired) {}
    }

    /// The events of a YAML rules document's text: the last check's carried over when the edit stayed inside
    /// one rule (or above the rules), only that part read again; else the whole text's, read now. Either way
    /// the check builds its tape from them, and the next check starts from them.
    private func eventLog(uri: String, job: Job, bytes: [UInt8]) -> YAMLEventLog? {
        guard Self.keepsEvents(job) else { return nil }
        // Taken out of the table, the log is held once and changes in place, without a copy of its events.
        if var log = eventLogs.withLock({ $0.removeValue(forKey: uri) }) {
            if log.update(to: bytes) {
                splicedChecks.withLock { $0 += 1 }
                return log
            }
        }
        // The last log is freed before the new one is read (a large file's takes tens of MB).
        return YAMLEventLog.record(bytes)
    }

    /// A YAML rules file keeps its events between checks.
    private static func keepsEvents(_ job: Job) -> Bool { job.kind == .rules && !job.path.hasSuffix(".json") }

    /// Keeps the events of the text just checked for the next check of the document, while it is open
    /// (`close` drops them).
    private func keepEventLog(_ log: YAMLEventLog?, uri: String) {
        guard let log else { return }
        if state.withLock({ $0.open[uri] != nil }) { eventLogs.withLock { $0[uri] = log } }
    }
}
