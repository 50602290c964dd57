// A rule project: where its rules, rule tests, schemas and example events are, with the defaults written
// once. The command-line tool, the language server, the report, `serve` and the rules extension take their
// paths from here, so a folder layout is decided in one place.
internal import Foundation
internal import RuleKitCore
public import RuleKitRules

/// Where a project's rules, tests, schemas and example events are.
///
/// ```swift
/// let project = RuleProject(root: ".")            // Rules/, Schemas/, Examples/events.jsonl
/// let snapshot = project.load(context: linter)    // Load → Plan → Check
/// for test in project.testFiles() { ... }         // the rule tests beside the rules
/// ```
public struct RuleProject: Sendable, Hashable {
    /// The folder of rules when none is named: `Rules`.
    public static let defaultRules = "Rules"
    /// The folder of XDM schemas when none is named: `Schemas`.
    public static let defaultSchemas = "Schemas"
    /// The example events when none are named: `Examples/events.jsonl`.
    public static let defaultEvents = "Examples/events.jsonl"
    /// The file patterns an editor watches for a project's rules, tests, rule archives and example events.
    public static let watchPatterns = ["**/*.{yaml,yml,json,zip}", "**/" + defaultEvents]

    /// The project's folder ("" or "." for the current one); the defaults are under it.
    public let root: String
    /// The rule sources: files and folders (`-` for standard input), as given, or the default folder.
    public let rules: [String]
    /// Whether `rules` was named (not the default).
    public let namesRules: Bool
    private let givenSchemas: String?
    private let givenEvents: String?

    /// A project at `root`; each part not named takes its default under `root`.
    ///
    /// - Parameters:
    ///   - root: the project's folder ("": the current folder).
    ///   - rules: rule sources; empty for `<root>/Rules`.
    ///   - schemas: the schema folder; nil for `<root>/Schemas` when it exists.
    ///   - events: the example events; nil for `<root>/Examples/events.jsonl` when it exists.
    public init(root: String = "", rules: [String] = [], schemas: String? = nil, events: String? = nil) {
        self.root = root
        namesRules = !rules.isEmpty
        self.rules = rules.isEmpty ? [Self.under(root, Self.defaultRules)] : rules
        givenSchemas = schemas
        givenEvents = events
    }

    static func under(_ root: String, _ name: String) -> String {
        root.isEmpty || root == "." ? name : PathText.join(root, name)
    }

    /// The schema folder: the one named, else the default when it is a folder here (nil otherwise).
    public var schemas: String? {
        if let givenSchemas { return givenSchemas }
        let d = Self.under(root, Self.defaultSchemas)
        return RuleSources.kind(d) == .folder ? d : nil
    }

    /// Whether the schema folder was named (a named folder must exist; the default may be absent).
    public var namesSchemas: Bool { givenSchemas != nil }

    /// The example events: the file named, else the default when it exists (nil otherwise).
    public var events: String? {
        if let givenEvents { return givenEvents }
        let f = Self.under(root, Self.defaultEvents)
        return RuleSources.kind(f) == .file ? f : nil
    }

    /// The example events to run when none are named: the one named, else the default path (which may
    /// not exist; the command then says so).
    public var eventsOrDefault: String { givenEvents ?? Self.under(root, Self.defaultEvents) }

    /// The rules folder of an editor's workspace: `<root>/Rules` when it is a folder, else the root.
    public var rulesFolder: String {
        let d = Self.under(root, Self.defaultRules)
        return RuleSources.kind(d) == .folder ? d : (root.isEmpty ? "." : root)
    }

    /// The rules files of the project's sources, in load order.
    public func rulesFiles() -> [String] { rules.flatMap { RuleSources.rulesFiles($0) ?? [] } }

    /// The rule tests that go with the project's rules: each folder's test files, each file's
    /// `NAME.test.yaml` (`.yml`, `.json`) beside it.
    public func testFiles() -> [String] {
        var seen = Set<String>()
        return rules.flatMap { RuleSources.testFiles(besides: $0) }.filter { seen.insert($0).inserted }
    }

    /// The rules a rule test file runs against, the other way of `testFiles()`: the files it names
    /// (relative to its folder), else `NAME.yaml` (`.yml`, `.json`) beside `NAME.test.yaml`, else its folder.
    ///
    /// - Parameters:
    ///   - test: the test file's path.
    ///   - named: the rules files the test file names, if it names any.
    /// - Returns: the rules files or folder the tests run against.
    public static func rules(forTest test: String, named: [String]?) -> [String] {
        let dir = PathText.directory(of: test)
        if let named { return named.map { PathText.join(dir, $0) } }
        let name = PathText.lastComponent(of: test)
        var stem = Substring(name)
        if let s = RuleSources.stem(name), s.hasSuffix(".test") { stem = s.dropLast(".test".count) }
        for ext in RuleSources.extensions {
            let candidate = PathText.join(dir, stem + ext)
            if RuleSources.kind(candidate) == .file { return [candidate] }
        }
        return [dir.isEmpty ? "." : dir]
    }

    /// Loads, plans and checks the project's rules (`RuleSnapshot.load`).
    ///
    /// - Parameters:
    ///   - keepsDocuments: as in `RuleFiles`.
    ///   - context: the schema checks (a `Linter` with the project's schemas); nil for the rules-only checks.
    /// - Returns: the snapshot, with every finding of the three phases.
    public func load(keepsDocuments: Bool = false, context: (any CheckContext)? = nil) -> RuleSnapshot {
        RuleSnapshot.load(rules, keepsDocuments: keepsDocuments, context: context)
    }
}
