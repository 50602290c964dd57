internal import Foundation
public import RuleKitCore
public import RuleKitRules
public import RuleKitYAML

/// Reads rules from files and folders (YAML or JSON, Launch or RuleKit format), collecting every
/// diagnostic with its location.
public struct RuleFiles: Sendable {
    /// Every rule set read, with its file, in the order read.
    public private(set) var sets: [(path: String, set: RuleSet)] = []
    /// Every finding of every file, sorted per file.
    public private(set) var diagnostics: [Diagnostic] = []
    /// The bytes of every file read, kept as read: made into text only for the files a diagnostic quotes
    /// (decoding every file up front cost as much as a tenth of loading it).
    private var sourceBytes: [String: [UInt8]] = [:]
    /// The names of the files read, in order.
    private var readOrder: [String] = []
    /// The text of every file read, for rendering diagnostics with their source lines.
    public var sources: [String: String] { sourceBytes.mapValues { String(decoding: $0, as: UTF8.self) } }
    /// The text of the file read as `path`, or nil.
    public func source(_ path: String) -> String? { sourceBytes[path].map { String(decoding: $0, as: UTF8.self) } }
    /// How many files were read, loaded or not.
    public private(set) var fileCount = 0
    /// Whether the documents read are kept (in `documents`) instead of freed once their rules are loaded.
    /// A command that ends when its work is done sets it and leaves them to the process's end, as compilers
    /// do with their syntax trees: freeing a large document node by node costs about a tenth of reading it
    /// (5% of `rulekit match` on 10,000 YAML rules), at the cost of keeping them in memory: a long-running
    /// host, or a command that goes on over a long stream, leaves it off. Rules read into a tape (JSON, and
    /// the YAML a tape holds: a few allocations, however large the file) leave no document to keep.
    public var keepsDocuments = false
    /// What was read of the files whose errors kept their rules from loading: never run, but an editor
    /// still outlines and completes a file that is being fixed.
    public private(set) var unloaded: [(path: String, set: RuleSet)] = []
    /// The files (as diagnostics name them) whose rules loaded from Launch's format: a device runs what
    /// they hold with the reference's leniency, so their findings are reported and not refused when run.
    public private(set) var launchFiles: Set<String> = []
    /// The documents read, when `keepsDocuments` is set.
    public private(set) var documents: [Document] = []

    /// Nothing read yet.
    public init() {}

    /// Whether any file had an error (its rules are then not in `sets`).
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// Loads every file under `paths`; unreadable paths, and folders with no rules file (a mistyped path
    /// more often than a wish for no rules), become error diagnostics. A rules URL (`RemoteRules.isURL`) is
    /// read from `fetched`, its body as fetched: a zip (`addArchive`) or a rules file.
    ///
    /// - Parameters:
    ///   - paths: files, folders, zip archives, `-`, rules URLs.
    ///   - fetched: the body fetched for each rules URL of `paths`.
    public mutating func load(_ paths: [String], fetched: [String: [UInt8]] = [:]) {
        for p in paths {
            if RemoteRules.isURL(p) {
                guard let body = fetched[p] else {
                    diagnostics.append(.error(.unreadable, "rules URL '\(RemoteRules.redacted(p))' was not fetched"))
                    continue
                }
                addFetched(body, name: RemoteRules.redacted(p))
                continue
            }
            guard let files = RuleSources.rulesFiles(p) else {
                diagnostics.append(.error(.unreadable, "no such rules file or folder '\(p)'"))
                continue
            }
            if files.isEmpty {
                diagnostics.append(.error(.unreadable, "no rules files (*.yaml, *.yml, *.json) in '\(p)'"))
                continue
            }
            if files == [p], RuleSources.isTestFile(PathText.lastComponent(of: p)) {
                // A file named as rules that is a rule test: a usage mistake, not a broken rules file.
                diagnostics.append(.error(.unreadable, "'\(p)' is a rule test file, not rules: run it with `rulekit test \(p)`"))
                continue
            }
            for f in files { load(file: f) }
        }
    }

    mutating func load(file f: String) {
        let archive = RuleArchive.isArchive(f)
        let bytes: [UInt8]
        do {
            bytes = try ByteInput.readAll(
                f, limit: archive ? RuleArchive.Limits.default.maxArchiveBytes : ReaderLimits.default.maxDocumentBytes)
        } catch {
            diagnostics += error.diagnostics
            return
        }
        if archive { addArchive(bytes, name: f) } else { add(bytes, file: f) }
    }

    /// Reads a fetched body: a zip (by its signature) or a rules file, YAML when the URL's path says so.
    mutating func addFetched(_ body: [UInt8], name: String) {
        if body.starts(with: [0x50, 0x4B, 0x03, 0x04]) || body.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            addArchive(body, name: name)
            return
        }
        let path = name.split(separator: "?").first.map(String.init) ?? name
        add(body, file: name, json: !(path.hasSuffix(".yaml") || path.hasSuffix(".yml")))
    }

    /// Reads the rules of a zip archive's bytes (`RuleArchive.rulesEntries`: a Launch `rules.zip`'s
    /// `rules.json`, or the rules files of a zip of a rules folder), each named `NAME!ENTRY` in diagnostics.
    /// An archive that breaks a bound, or holds a link or a path outside it, loads nothing.
    ///
    /// - Parameters:
    ///   - bytes: the zip.
    ///   - name: the archive's name in messages (its path or URL).
    public mutating func addArchive(_ bytes: [UInt8], name: String) {
        let archive: RuleArchive
        do { archive = try RuleArchive.read(bytes, name: name) } catch {
            diagnostics += error.diagnostics
            return
        }
        let entries = archive.rulesEntries
        guard !entries.isEmpty else {
            diagnostics.append(.error(.unreadable, "no rules file in archive '\(name)' (a Launch rules.zip holds rules.json)"))
            return
        }
        for e in entries {
            // An entry named otherwise than YAML is JSON: the reference reads a zip's first file as rules JSON.
            let yaml = e.path.hasSuffix(".yaml") || e.path.hasSuffix(".yml")
            add(e.bytes, file: archive.name(of: e), json: !yaml)
        }
    }

    /// Reads rules from `bytes` as the file `f` (an editor's unsaved text, a test's): as `load` reads a file.
    /// JSON when `f` ends in `.json`; `-` is standard input, JSON when its text opens with `{`. `events`, when
    /// given, are libyaml's events of this YAML text, kept by an editor from its last check
    /// (`YAMLEventLog`): the tape is built from them instead of pulling libyaml's events anew.
    public mutating func add(_ bytes: [UInt8], file f: String, events: YAMLEventLog? = nil) {
        add(bytes, file: f, json: nil, events: events)
    }

    mutating func add(_ bytes: [UInt8], file f: String, json given: Bool?, events: YAMLEventLog? = nil) {
        fileCount += 1
        // Standard input has no extension to tell JSON from YAML: a text that opens with '{' is JSON.
        let name = f == "-" ? "<stdin>" : f
        let json = given ?? (f == "-" ? bytes.first { $0 > 0x20 } == UInt8(ascii: "{") : f.hasSuffix(".json"))
        sourceBytes[name] = bytes
        readOrder.append(name)
        let (set, found, document, partial, format) = Self.read(bytes, file: name, json: json, limits: .default, events: events)
        if keepsDocuments, let document { documents.append(document) }
        if set != nil, format == .launch { launchFiles.insert(name) }
        diagnostics += found
        if let set { sets.append((f, set)) } else if let partial { unloaded.append((f, partial)) }
    }

    /// One rules file's text → its rule set (either syntax, either format) and every finding on the way.
    public static func parse(_ bytes: [UInt8], file f: String, json: Bool? = nil, limits: RuleLimits = .default)
        -> (RuleSet?, [Diagnostic])
    {
        let (set, found, _, _, _) = read(bytes, file: f, json: json ?? f.hasSuffix(".json"), limits: limits)
        return (set, found)
    }

    /// A YAML text's tape: from `events` when they are this text's, else from a pull of libyaml's events.
    static func tape(_ bytes: [UInt8], file f: String, events: YAMLEventLog?) -> (tape: JSONTape, warnings: [Diagnostic])? {
        if let events, events.text == bytes { return YAMLReader.tape(events, file: f) }
        return YAMLReader.tape(bytes, file: f)
    }

    /// `parse`, with the document read, when the text was read as one (YAML a tape does not hold; the rest
    /// is read into a tape).
    static func read(_ bytes: [UInt8], file f: String, json: Bool, limits: RuleLimits, events: YAMLEventLog? = nil)
        -> (RuleSet?, [Diagnostic], Document?, partial: RuleSet?, format: RuleSetLoader.Format?)
    {
        var (set, found): (RuleSet?, [Diagnostic])
        var doc: Document?
        var partial: RuleSet?
        var format: RuleSetLoader.Format?
        do {
            if json {
                // JSON is read into a tape, with no document to keep (`RuleSetLoader.load(json:)`).
                let result = try RuleSetLoader.load(json: bytes, file: f)
                (set, found, partial, format) = (result.ruleSet, result.diagnostics, result.partial, result.format)
            } else if let (tape, warnings) = Self.tape(bytes, file: f, events: events),
                let result = RuleSetLoader.load(tape: tape, file: f)
            {
                // YAML the tape holds (one mapping; no tags, merge keys or odd keys) is loaded from a tape
                // too; anything else, and every YAML error, from the document `read` makes.
                (set, found, partial, format) = (result.ruleSet, warnings + result.diagnostics, result.partial, result.format)
            } else {
                let d = try YAMLReader.read(bytes, file: f)
                let result = RuleSetLoader.load(d)
                (set, found, doc, partial, format) = (result.ruleSet, d.warnings + result.diagnostics, d, result.partial, result.format)
            }
        } catch {
            return (nil, error.diagnostics, nil, nil, nil)
        }
        if let s = set {
            let over = limits.check(s)
            if !over.isEmpty { (set, found) = (nil, found + over) }
        }
        return (set, found, doc, partial, format)
    }

    /// FNV-1a 64 over every file's path and bytes as read, in load order, as hexadecimal.
    func contentHash() -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for name in readOrder {
            for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            h = (h ^ 0) &* 0x0000_0100_0000_01B3
            for b in sourceBytes[name] ?? [] { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        }
        return String(h, radix: 16)
    }

    /// The diagnostics rendered with source lines, sorted.
    public func render(_ ds: [Diagnostic]) -> String {
        var r = DiagnosticRenderer()
        // Only the files quoted: cutting a large rules file into lines costs more than loading it.
        let quoted = Set(ds.compactMap { $0.location?.file })
        for f in quoted { if let text = source(f) { r.addSource(text, for: f) } }
        var d = Diagnostics(cap: 1000)
        d.append(contentsOf: ds)
        return r.render(d.sorted)
    }
}
