public import RuleKitCore
public import RuleKitRules

/// One load of a rule set, whole — Load, Plan, Check: the files read, each set planned once, every finding
/// of the three phases, and what the files were when read. Everything that runs or judges rules takes a snapshot, so a reload that checked a
/// snapshot hands that same snapshot to every worker (one parse, one plan) instead of each reading the disk.
///
/// ```swift
/// let snapshot = RuleSnapshot.load(["Rules"])
/// let refused = snapshot.refusals(strict: false)
/// guard refused.isEmpty else { print(snapshot.render(refused)); return }
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
    /// The loaders' and the planner's findings, as they made them.
    public let diagnostics: [Diagnostic]
    /// Every finding of Load, Plan and Check with the severity a rule author is given (`CheckSeverity`):
    /// what lint prints, and what `refusals(strict:)` reads.
    public let findings: [Diagnostic]
    /// Each rules file's stamp, taken before it was read: a change after the stamp shows as a change at the
    /// next look, never as a change missed.
    public let stamps: [String: FileStamp]
    /// FNV-1a 64 over every file's path and bytes as read, in load order: the identity of the rules in force
    /// (not a security hash). Computed when asked (a service asks once per load; a command never): hashing
    /// a 9 MB rules file costs about a twentieth of loading it.
    public var contentHash: String { files.contentHash() }

    /// Reads, plans and checks `sources`. Paths that cannot be read are findings (`DiagnosticCode.unreadable`),
    /// as every other problem is.
    ///
    /// - Parameters:
    ///   - sources: rules files, folders and zip archives, `-` for standard input, rules URLs.
    ///   - fetched: each rules URL's body, fetched (`RemoteRules`, `RulesCache`) before the load.
    ///   - keepsDocuments: as in `RuleFiles`.
    ///   - context: the schema checks of the Check phase (a `Linter` with the project's schemas); nil for
    ///     the rules-only checks.
    /// - Returns: the snapshot, with every finding of the three phases.
    public static func load(
        _ sources: [String], fetched: [String: [UInt8]] = [:], keepsDocuments: Bool = false, context: (any CheckContext)? = nil
    ) -> RuleSnapshot {
        let stamps = RuleSources.stamps(sources)
        var files = RuleFiles()
        files.keepsDocuments = keepsDocuments
        files.load(sources, fetched: fetched)
        return RuleSnapshot(sources: sources, files: files, stamps: stamps, context: context)
    }

    /// A snapshot of rules already read (a test's, a host's own): planned and checked here.
    ///
    /// - Parameters:
    ///   - sources: what the rules were read from, for messages and reloads.
    ///   - files: the rules read.
    ///   - stamps: each file's stamp when read (none for rules that are no files).
    ///   - context: the schema checks, as in `load`.
    public init(sources: [String], files: RuleFiles, stamps: [String: FileStamp] = [:], context: (any CheckContext)? = nil) {
        self.sources = sources
        self.files = files
        self.stamps = stamps
        let plans = files.sets.map { Planner().plan($0.set) }
        self.plans = plans
        compiled = Self.append(plans)
        diagnostics = files.diagnostics + plans.flatMap(\.diagnostics)
        let checked = RuleChecker(context: context).check(files.sets, plans: plans)
        checkErrors = checked.filter { $0.severity == .error }
        findings = diagnostics.map(CheckSeverity.apply) + checked
    }

    /// The Check's error findings (its warnings are lint's to show, not a host's to report at every load).
    private let checkErrors: [Diagnostic]

    /// The findings of Load, Plan and Check with `context`'s schema checks, for the engines of `target`
    /// (the snapshot's own `findings` were made with the context it was loaded with, for mobile).
    public func check(_ context: (any CheckContext)?, target: RuleTarget = .mobile) -> [Diagnostic] {
        diagnostics.map(CheckSeverity.apply) + RuleChecker(context: context, target: target).check(files.sets, plans: plans)
    }

    /// The error findings that keep this rule set from running: every error of RuleKit-format files and of
    /// files that did not load; in a Launch `rules.json` that loaded, only with `strict` — a device runs
    /// such a file, silently dropping what it cannot run, so a rule set a Tags publish gives devices
    /// always runs here too (its findings are `lenient(strict:)`, reported as warnings).
    public func refusals(strict: Bool) -> [Diagnostic] {
        findings.filter { $0.severity == .error && (strict || !isLenient($0)) }
    }

    /// The error findings of Launch files a device would run anyway (see `refusals`): what a command that
    /// runs the rules reports as warnings. Empty with `strict`.
    public func lenient(strict: Bool) -> [Diagnostic] {
        strict ? [] : findings.filter { $0.severity == .error && isLenient($0) }
    }

    /// Whether a host runs this snapshot: every file loaded, and no refusal (`refusals(strict:)`) unless
    /// `allowErrors` says to run the rules with their errors. The one rule of `run`, `serve`, its reload
    /// and the rules extension.
    ///
    /// - Parameters:
    ///   - strict: whether a Launch `rules.json`'s findings refuse it too.
    ///   - allowErrors: whether error findings are reported only (files that did not load still refuse).
    /// - Returns: whether the rules may run.
    public func admits(strict: Bool, allowErrors: Bool) -> Bool {
        !hasErrors && (allowErrors || refusals(strict: strict).isEmpty)
    }

    /// The findings a host reports when it loads this snapshot: the loaders' and the planner's, and the
    /// Check's errors (its warnings are lint's); the refusing ones as errors, a Launch `rules.json`'s as
    /// warnings (`lenient(strict:)`).
    public func reported(strict: Bool) -> [Diagnostic] {
        let reported = diagnostics.map(CheckSeverity.apply) + checkErrors
        guard !strict else { return reported }
        return reported.map { d in
            guard d.severity == .error, isLenient(d) else { return d }
            var w = d
            w.severity = .warning
            return w
        }
    }

    func isLenient(_ d: Diagnostic) -> Bool {
        guard let file = d.location?.file else { return false }
        return files.launchFiles.contains(file)
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
