// Every finding code of the rules layer, in one place: the loaders' (`rules.*`) and the checks' (`lint.*`).
// `CheckSeverity` says how bad each is for a rule author; `docs/diagnostics.md` lists them all.
public import RuleKitCore

// The loaders' findings.
extension DiagnosticCode {
    /// The document's shape is wrong (a rule that is not an object, ...).
    public static let rulesStructure: DiagnosticCode = "rules.structure"
    /// A key the format does not have.
    public static let rulesUnknownKey: DiagnosticCode = "rules.unknown-key"
    /// A consequence that cannot run was dropped (as the reference drops it).
    public static let rulesDroppedConsequence: DiagnosticCode = "rules.dropped-consequence"
    /// A matcher name the reference does not know.
    public static let rulesUnknownMatcher: DiagnosticCode = "rules.unknown-matcher"
    /// A group logic other than `and` and `or`.
    public static let rulesUnknownLogic: DiagnosticCode = "rules.unknown-logic"
    /// A condition that cannot run was dropped.
    public static let rulesDroppedCondition: DiagnosticCode = "rules.dropped-condition"
    /// A rule that cannot run was dropped (as the reference drops it).
    public static let rulesDroppedRule: DiagnosticCode = "rules.dropped-rule"
    /// A value of the wrong type for its key.
    public static let rulesBadValue: DiagnosticCode = "rules.bad-value"
    /// A `{% %}` token that cannot be parsed (it renders as the reference renders it).
    public static let rulesBadToken: DiagnosticCode = "rules.bad-token"
    /// A `~` data element the reference does not have.
    public static let rulesUnknownDataElement: DiagnosticCode = "rules.unknown-data-element"
    /// A consequence type the reference does not know.
    public static let rulesUnknownConsequence: DiagnosticCode = "rules.unknown-consequence"
    /// Two rules share one id.
    public static let rulesDuplicateID: DiagnosticCode = "rules.duplicate-id"
}

// The checks' findings: what a rule set means, judged as its author would.
extension DiagnosticCode {
    /// A comparison on a key that may be missing, where Launch's missing-key rule decides the outcome.
    public static let lintMissingKeyTrap: DiagnosticCode = "lint.missing-key-trap"
    /// A numeric matcher (`gt`, `lt`, ...) given a string value, which never compares as a number.
    public static let lintNumericString: DiagnosticCode = "lint.numeric-matcher-string-value"
    /// A comparison whose value's type cannot match the XDM type of the path it reads.
    public static let lintTypeMismatch: DiagnosticCode = "lint.xdm-type-mismatch"
    /// A condition reads a key no known event, state or schema has.
    public static let lintUnknownKey: DiagnosticCode = "lint.unknown-key"
    /// A rule whose conditions can never all hold.
    public static let lintNeverFires: DiagnosticCode = "lint.never-fires"
    /// A rule dispatches an event that its own conditions match.
    public static let lintSelfTrigger: DiagnosticCode = "lint.self-trigger"
    /// A consequence attaches XDM data the schemas refuse.
    public static let lintInvalidXDM: DiagnosticCode = "lint.invalid-xdm-data"
    /// Two rules share one id.
    public static let lintDuplicateID: DiagnosticCode = "lint.duplicate-rule-id"
}
