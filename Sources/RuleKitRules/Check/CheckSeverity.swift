// How bad each finding is for a rule author: the one place a code's severity is decided.
public import RuleKitCore

/// How bad each finding is for a rule author. The engine keeps running a rule set whatever the planner
/// found (as the reference does: a dropped rule is dropped silently), but a rule that can never run, or
/// runs other than written, is an error for its author; a trap that may be intended is a warning.
/// `docs/diagnostics.md` lists every code with its severity.
public enum CheckSeverity {
    /// The codes lint reports as errors (exit 1); every other code is a warning or a note.
    public static let errors: Set<DiagnosticCode> = [
        .rulesDroppedRule, .rulesDroppedCondition, .rulesUnknownMatcher, .rulesUnknownLogic, .rulesUnknownDataElement,
        .rulesDroppedConsequence, .lintNeverFires, .lintSelfTrigger, .lintNumericString, .lintInvalidXDM, .lintDuplicateID,
    ]

    /// `d` with the severity lint gives its code (findings of other codes keep theirs).
    ///
    /// - Parameter d: a finding.
    /// - Returns: the finding with lint's severity for its code.
    public static func apply(_ d: Diagnostic) -> Diagnostic {
        guard d.severity == .warning, errors.contains(d.code) else { return d }
        var e = d
        e.severity = .error
        return e
    }
}
