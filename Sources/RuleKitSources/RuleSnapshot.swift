public import RuleKitCore
public import RuleKitRules

/// One load of a rule set, whole: the files read, each set planned once, the findings of both, and what the
/// files were when read. Everything that runs or judges rules takes a snapshot, so a reload that checked a
/// snapshot hands that same snapshot to every worker (one parse, one plan) instead of each reading the disk.
///
/// ```swift
/// let snapshot = RuleSnapshot.load(["Rules"])
/// guard !snapshot.hasErrors else { print(snapshot.render(snapshot.errors)); return }
/// let engine = RulesEngine(rules: snapshot.compiled)
/// ```
public struct RuleSnapshot: Sendable {
    /// The sources asked for (files, folders, `-`).
    public let sources: [String]
    /// What was read: the rule sets by file, the loaders' findings, the text for rendering.
    public let files: RuleFiles
    /// Each file's set as planned, in file order (the linter reads a file's plan on its own).
    public let plans: [CompiledRuleSet]
    /// Every plan appended in file order: the set an engine runs.
    public let compiled: CompiledRuleSet
    /// The loaders' and the planner's findings.
    public let diagnostics: [Diagnostic]
    /// Each rules file's stamp, taken before it was read: a change after the stamp shows as a change at the
    /// next look, never as a change missed.
    public let stamps: [String: FileStamp]
    /// FNV-1a 64 over every file's path and bytes as read, in load order: the identity of the rules in force
    /// (not a security hash). Computed when asked (a service asks once per load; a command never): hashing
    /// a 9 MB rules file costs about a twentieth of loading it.
    public var contentHash: String { files.contentHash() }

    /// Reads and plans `sources`. Paths that cannot be read are findings (`DiagnosticCode.unreadable`), as
    /// every other problem is; `keepsDocuments` as in `RuleFiles`.
    public static func load(_ sources: [String], keepsDocuments: Bool = false) -> RuleSnapshot {
        let stamps = RuleSources.stamps(sources)
        var files = RuleFiles()
        files.keepsDocuments = keepsDocuments
        files.load(sources)
        return RuleSnapshot(sources: sources, files: files, stamps: stamps)
    }

    /// A snapshot of rules already read (a test's, a host's own): planned here.
    public init(sources: [String], files: RuleFiles, stamps: [String: FileStamp] = [:]) {
        self.sources = sources
        self.files = files
        self.stamps = stamps
        let plans = files.sets.map { Planner().plan($0.set) }
        self.plans = plans
        compiled = Self.append(plans)
        diagnostics = files.diagnostics + plans.flatMap(\.diagnostics)
    }

    /// The one place planned sets are joined: in order, later files' rules after earlier ones'.
    public static func append(_ plans: [CompiledRuleSet]) -> CompiledRuleSet {
        plans.reduce(CompiledRuleSet.empty) { $0.appending($1) }
    }

    /// Whether any file had an error (its rules are then not in `compiled`).
    public var hasErrors: Bool { files.hasErrors }
    /// The error findings.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
    /// Whether a source could not be read at all (a usage mistake: exit 2 in the CLI).
    public var hasUnreadable: Bool { diagnostics.contains { $0.code == .unreadable } }
    /// Rules in the planned set.
    public var ruleCount: Int { compiled.rules.count }
    /// The diagnostics rendered with their source lines, sorted.
    public func render(_ ds: [Diagnostic]) -> String { files.render(ds) }
}
