internal import Foundation
internal import RuleKitCore
internal import RuleKitRules
internal import RuleKitSources
public import RuleKitTooling
public import RuleKitXDM

/// What the server knows of the workspace, shared by the message thread (completion, hover, navigation)
/// and the check worker (which fills it): the linter made from `Schemas/`, the XDM paths it offers, each
/// rules file's text on disk, and what each file defines.
public struct WorkspaceSnapshot: Sendable {
    /// The workspace folder (nil: none was sent; files are checked alone).
    public var root: String?
    /// The schema folder in use (`<root>/Schemas`), when there is one.
    public var schemas: String?
    /// The linter every check uses.
    public var linter = Linter()
    /// XDM leaves as a rule names them (`xdm.productListItems.0.SKU`), sorted, with what the schema says.
    public var xdmPaths: [(key: String, path: XDMPath)] = []
    /// The text on disk of every rules file of the workspace (open files are checked with their editor text).
    public var diskRules: [(path: String, bytes: [UInt8])] = []
    /// What each file defines, by path: open files as last checked, the others as on disk.
    public var facts: [String: FileFacts] = [:]
    /// What went wrong loading the workspace (a broken schema), for the client's log.
    public var problems: [String] = []
    /// The findings of each rule archive (`*.zip`) of the rules folder, by the archive's path. An editor
    /// does not open an archive, so they are published on its URI when it is read. Its rules and data
    /// elements are in `facts` as `ARCHIVE!ENTRY`, read-only: rule tests complete and hover them, and they
    /// are no rules file's `others` (an archive is most often the rules folder packed, whose every id a
    /// rules file shares).
    var archiveFindings: [String: [Diagnostic]] = [:]

    /// An empty workspace: no root, no schemas, nothing read.
    public init() {}

    /// The project the workspace is: its root with `RuleProject`'s defaults.
    var project: RuleProject? { root.map { RuleProject(root: $0) } }

    /// The rules folder of the workspace: `<root>/Rules` when it exists, else the root.
    var rulesFolder: String? { project?.rulesFolder }

    /// Loads the linter from `<root>/Schemas` and `<root>/Examples/events.jsonl` (as `rulekit lint` run in
    /// the root does), then reads every rules and test file of the rules folder.
    public static func load(root: String?) -> WorkspaceSnapshot {
        var w = WorkspaceSnapshot()
        w.root = root
        guard root != nil else { return w }
        w.loadLinter()
        if let folder = w.rulesFolder {
            for f in RuleSources.rulesFiles(folder) ?? [] {
                guard let bytes = try? ByteInput.readAll(f) else { continue }
                w.diskRules.append((f, bytes))
            }
            for (path, bytes) in w.diskRules {
                if let r = DocumentCheck.run(path: path, kind: .rules, bytes: bytes, linter: w.linter) { w.facts[path] = r.facts }
            }
            for f in RuleSources.testFiles(folder) ?? [] {
                guard let bytes = try? ByteInput.readAll(f) else { continue }
                if let r = DocumentCheck.run(path: f, kind: .ruleTests, bytes: bytes, linter: w.linter) { w.facts[f] = r.facts }
            }
            for a in archives(in: folder) { w.readArchive(a) }
        }
        return w
    }

    /// The rule archives of `folder` (`*.zip`, not hidden), in name order. Rules URLs are not read: an
    /// editor's check does not wait on the network.
    static func archives(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") && RuleArchive.isArchive($0) }.sorted().map { PathText.join(folder, $0) }
    }

    /// Reads the archive at `path` as `rulekit lint` reads it (bounded, its entries loaded, planned and
    /// checked with `linter`'s schemas): its findings, and its entries' facts by `ARCHIVE!ENTRY`. An archive
    /// no longer there has neither (an empty list of findings clears the client's).
    static func readArchive(_ path: String, linter: Linter) -> (findings: [Diagnostic], facts: [String: FileFacts]) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], [:]) }
        var files = RuleFiles()
        files.load([path])
        let snapshot = RuleSnapshot(sources: [path], files: files, context: linter)
        var facts: [String: FileFacts] = [:]
        for (p, set) in files.sets + files.unloaded { facts[p] = FileFacts(path: p, ruleSet: set) }
        return (snapshot.findings, facts)
    }

    /// Reads the archive at `path` (`readArchive(_:linter:)`) in place of what was read of it before.
    mutating func readArchive(_ path: String) { replaceArchive(path, Self.readArchive(path, linter: linter)) }

    /// What was read of the archive at `path` replaced by `read`.
    mutating func replaceArchive(_ path: String, _ read: (findings: [Diagnostic], facts: [String: FileFacts])) {
        facts = facts.filter { !$0.key.hasPrefix(path + "!") }.merging(read.facts) { _, new in new }
        archiveFindings[path] = read.findings
    }

    /// Re-reads the schemas and the example events.
    public mutating func loadLinter() {
        guard let root else { return }
        var linter = Linter()
        problems = []
        let project = RuleProject(root: root)
        if let schemas = project.schemas {
            self.schemas = schemas
            do {
                if try !linter.useSchemas(folder: schemas) {
                    problems.append("no ExperienceEvent class in \(schemas): XDM key and type checks are skipped")
                }
            } catch {
                problems.append("the schemas in \(schemas) do not load: \(error.diagnostics.first?.description ?? "")")
            }
        }
        if let examples = project.events {
            do { try linter.addExampleKeys(from: examples) } catch {
                problems.append("the example events do not load: \(error.diagnostics.first?.description ?? "")")
            }
        }
        self.linter = linter
        xdmPaths = (linter.catalog?.paths ?? []).map { ("xdm." + $0.path.replacingOccurrences(of: "[*]", with: ".0"), $0) }
    }

    /// The data elements a `%name%` written in `file` reads, by name: the file's own, as the loader scopes
    /// them (a name defined in two files is two elements); for any other document (a rule test, a file not
    /// read as rules) every rules file's, the first definition of a name winning.
    func dataElements(in file: String?) -> [String: (element: DataElement, file: String)] {
        guard let file, let set = facts[file]?.ruleSet else { return dataElements }
        var out: [String: (DataElement, String)] = [:]
        for e in set.dataElements where out[e.name] == nil { out[e.name] = (e, file) }
        return out
    }

    /// The data elements defined in the workspace, by name (the first definition of a name wins).
    var dataElements: [String: (element: DataElement, file: String)] {
        var out: [String: (DataElement, String)] = [:]
        for (path, f) in orderedFacts {
            for e in f.ruleSet?.dataElements ?? [] where out[e.name] == nil { out[e.name] = (e, path) }
        }
        return out
    }

    /// Every rule of the workspace with an id, with its file.
    var rules: [(rule: Rule, file: String)] {
        orderedFacts.flatMap { path, f in (f.ruleSet?.rules ?? []).map { ($0, path) } }
    }

    /// The facts by path, the files' before the archives' entries: a name both define is found where an
    /// editor can open it.
    var orderedFacts: [(key: String, value: FileFacts)] {
        facts.sorted { a, b in
            let (x, y) = (a.key.contains(".zip!"), b.key.contains(".zip!"))
            return x == y ? a.key < b.key : !x
        }
    }
}
