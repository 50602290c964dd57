// The linter: everything knowable about a rule set offline, judged as a rule author would. `rulekit lint`
// prints it; the report and the service show the same findings.
internal import Foundation
public import RuleKitCore
internal import RuleKitRules
public import RuleKitSources
public import RuleKitXDM

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

/// How bad each finding is for a rule author. The engine keeps running a rule set whatever the planner
/// found (as the reference does: a dropped rule is dropped silently), but a rule that can never run, or
/// runs other than written, is an error for its author; a trap that may be intended is a warning.
/// `docs/diagnostics.md` lists every code with its severity.
public enum LintSeverity {
    /// The codes lint reports as errors (exit 1); every other code is a warning or a note.
    public static let errors: Set<DiagnosticCode> = [
        .rulesDroppedRule, .rulesDroppedCondition, .rulesUnknownMatcher, .rulesUnknownLogic, .rulesUnknownDataElement,
        .rulesDroppedConsequence, .lintNeverFires, .lintSelfTrigger, .lintNumericString, .lintInvalidXDM, .lintDuplicateID,
    ]

    /// `d` with the severity lint gives its code (findings of other codes keep theirs).
    public static func apply(_ d: Diagnostic) -> Diagnostic {
        guard d.severity == .warning, errors.contains(d.code) else { return d }
        var e = d
        e.severity = .error
        return e
    }
}

/// Everything `rulekit lint` can know without running: the loaders' and planner's findings plus the
/// Launch traps, key checks against the XDM catalog and example events, and rules that cannot fire.
public struct Linter: Sendable {
    /// The XDM paths keys are checked against (nil: no XDM checks).
    public var catalog: XDMPathCatalog?
    /// The ExperienceEvent schema attached XDM is checked against.
    public var xdmValidator: JSONSchemaValidator?
    /// Flattened keys seen in example events (`Examples/events.jsonl`).
    public var exampleKeys: Set<String> = []

    /// A linter with no schemas and no known keys beyond the rules' own.
    public init() {}

    /// The XDM leaf an event-data key reads: under `xdm.` (or, for a key without it, the key itself), array
    /// indexes read as `[*]` (nil: no catalog, or no such leaf). The one mapping from a rule's key to the
    /// schemas, for lint and the report.
    public func xdmLeaf(_ key: String) -> XDMPath? {
        guard let catalog else { return nil }
        return catalog.leaf(XDMPathCatalog.normalize(key.hasPrefix("xdm.") ? String(key.dropFirst(4)) : key))
    }

    /// Every finding of the loaded files, with lint's severities (`LintSeverity`).
    public func lint(_ sources: RuleSnapshot) -> [Diagnostic] {
        findings(sources).map(LintSeverity.apply)
    }

    func findings(_ sources: RuleSnapshot) -> [Diagnostic] {
        var out = sources.diagnostics
        var ids: [String: SourceLocation?] = [:]
        for ((path, set), plan) in zip(sources.files.sets, sources.plans) {
            let elements = Dictionary(set.dataElements.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            // Each rule's plan, found by where the rule is and its id (the first of equals, as a search from
            // the start would find it): one pass, where a search per rule was quadratic (10,000 rules: 1 s).
            var plannedAt: [PlanKey: Int] = [:]
            for (i, p) in plan.rules.enumerated() where plannedAt[PlanKey(p.rule)] == nil { plannedAt[PlanKey(p.rule)] = i }
            for (i, rule) in set.rules.enumerated() {
                let label = rule.id ?? "#\(i)"
                // Every finding made below is about this rule.
                let first = out.count
                defer { for k in first..<out.count where out[k].rule == nil { out[k].rule = label } }
                if let id = rule.id {
                    if let first = ids[id], first?.file != path {
                        out.append(
                            .error(
                                .lintDuplicateID, "rule id '\(id)' is also used in \(first?.file ?? "another file")",
                                at: rule.location))
                    }
                    ids[id] = rule.location
                }
                lintCondition(rule.condition, rule: label, elements: elements, guarded: [], into: &out)
                if let p = plannedAt[PlanKey(rule)] {
                    let planned = plan.rules[p]
                    if Self.neverFires(planned.condition) {
                        out.append(
                            .warning(
                                .lintNeverFires, "rule \(label) can never fire: its condition is always false",
                                at: rule.location))
                    }
                    if planned.consequences.contains(where: { $0.kind == .other || $0.kind == .schema }),
                        Self.canMatchConsequenceEvents(plan, rule: planned.index)
                    {
                        out.append(
                            .warning(
                                .lintSelfTrigger,
                                "rule \(label) can match its own rules-consequence events (its condition does not require the triggering event's type, source or data); in the reference it re-triggers without end",
                                at: rule.location))
                    }
                }
                for c in rule.consequences where c.type == "add" || c.type == "mod" {
                    lintXDMData(c, rule: label, into: &out)
                }
            }
        }
        return out
    }

    /// What identifies a rule's plan: where the rule is, and its id.
    struct PlanKey: Hashable {
        let location: SourceLocation?
        let id: String?
        init(_ r: Rule) {
            location = r.location
            id = r.id
        }
    }

    /// `guarded`: keys an enclosing `and` requires to exist (so the missing-key trap cannot spring).
    func lintCondition(
        _ c: Condition, rule: String, elements: [String: DataElement], guarded: Set<String>,
        into out: inout [Diagnostic]
    ) {
        var inner = guarded
        if c.kind == .group, c.definition.logic == "and" {
            for sub in c.definition.conditions ?? [] where sub.kind == .matcher && sub.definition.matcher == "ex" {
                if let k = sub.definition.key { inner.insert(k) }
            }
        }
        for sub in c.definition.conditions ?? [] {
            lintCondition(sub, rule: rule, elements: elements, guarded: c.definition.logic == "and" ? inner : guarded, into: &out)
        }
        guard c.kind == .matcher, let key = c.definition.key, let code = c.definition.matcher,
            let op = Operation(code: code)
        else { return }
        let values = c.definition.values ?? []
        var path = key
        var declaredType: DataElement.ValueType?
        if key.hasPrefix("%"), key.hasSuffix("%"), let e = elements[String(key.dropFirst().dropLast())] {
            path = e.path
            declaredType = e.type
        }
        let isToken = path.hasPrefix("~")
        let mayBeMissing = !isToken || path.hasPrefix("~state") || path.hasPrefix("~xdm.")
        // Launch traps: a missing key reads as "".
        if mayBeMissing, !guarded.contains(key),
            op == .notEquals || op == .notContains
                || (op == .equals && values.contains(where: { $0 == .string("") || $0 == .bool(false) }))
        {
            out.append(
                .warning(
                    .lintMissingKeyTrap,
                    "rule \(rule): '\(code)' on '\(key)' is also true when the key is missing (a missing key reads as \"\"); add {key: \(key), ex: true} if it must exist",
                    at: c.location))
        }
        if [.greaterThan, .greaterEqual, .lessThan, .lessEqual].contains(op), values.contains(where: { $0.stringValue != nil }) {
            out.append(
                .warning(
                    .lintNumericString,
                    "rule \(rule): '\(code)' with a string value never matches (ordering exists only for numbers); write the value as a number",
                    at: c.location))
        }
        guard !isToken else { return }
        let leaf = xdmLeaf(path)
        if leaf == nil, declaredType == nil, !exampleKeys.contains(path), !exampleKeys.contains(XDMPathCatalog.normalize(path)) {
            if catalog != nil || !exampleKeys.isEmpty {
                out.append(
                    .warning(
                        .lintUnknownKey,
                        "rule \(rule): key '\(key)' is neither an XDM path of Schemas/, a data element, a ~ token, nor a key seen in the example events",
                        at: c.location))
            }
        }
        if let leaf, op != .exists, op != .notExist {
            let numeric = leaf.type.contains("number") || leaf.type.contains("integer")
            for v in values {
                if numeric, case .string(let s) = v, [.equals, .notEquals].contains(op) {
                    out.append(
                        .warning(
                            .lintTypeMismatch,
                            "rule \(rule): '\(key)' is a \(leaf.type) in XDM but the value \"\(s)\" is a string, so it is compared as text",
                            at: c.location))
                }
                if leaf.type == "string", v.numberValue != nil, op != .equals, op != .notEquals {
                    out.append(
                        .warning(
                            .lintTypeMismatch,
                            "rule \(rule): '\(key)' is a string in XDM but '\(code)' compares it as a number", at: c.location))
                }
            }
        }
    }

    func lintXDMData(_ c: Consequence, rule: String, into out: inout [Diagnostic]) {
        guard let validator = xdmValidator, case .object(let data)? = c.detail["eventdata"],
            case .object(let xdm)? = data["xdm"]
        else { return }
        // A consequence attaches part of a payload: missing required fields are not its business, and in
        // `mod` a null deletes a field rather than setting it.
        let errors = validator.validate(Self.withoutNulls(.object(xdm))).filter { !$0.schemaPath.hasSuffix("/required") }
        for e in errors.prefix(5) {
            out.append(
                .warning(
                    .lintInvalidXDM,
                    "rule \(rule): consequence \(c.id) attaches XDM that does not fit Schemas/ at xdm\(e.instancePath): \(e.message)",
                    at: c.location))
        }
    }

    static func withoutNulls(_ v: Value) -> Value {
        switch v {
        case .object(let o):
            return .object(ValueObject(o.compactMap { k, x in x.isNull ? nil : (k, withoutNulls(x)) }))
        case .array(let a): return .array(a.map(withoutNulls))
        default: return v
        }
    }

    /// Always false: an unknown logic, or an `and` requiring two different values (or ex and nx) of a key.
    static func neverFires(_ c: PlannedCondition) -> Bool {
        switch c {
        case .unknownLogic: return true
        case .or(let cs): return cs.allSatisfy(neverFires)
        case .and(let cs):
            if cs.contains(where: neverFires) { return true }
            var eq: [KeyRef: String] = [:]
            var exists: [KeyRef: Bool] = [:]
            for x in cs {
                switch x {
                case .comparison(let k, .equals, .string(_, let v)):
                    if let other = eq[k.ref], other != v { return true }
                    eq[k.ref] = v
                case .existence(let k, let negated):
                    if let other = exists[k.ref], other != negated { return true }
                    exists[k.ref] = negated
                default: break
                }
            }
            return false
        default: return false
        }
    }

    /// Whether a rules-consequence event (type rulesEngine, data {triggeredconsequence}) can satisfy it.
    static func canMatchConsequenceEvents(_ set: CompiledRuleSet, rule: Int) -> Bool {
        var r = Resolver(
            event: Event(
                name: RulesEventNames.consequenceEventName, type: RulesEventNames.rulesEngineType,
                source: RulesEventNames.responseContent,
                data: ["triggeredconsequence": ["id": "x", "type": "url", "detail": [:]]]),
            runtime: StaticRulesRuntime(), slotCount: set.slotCount)
        return Evaluator.matches(set, rule: rule, &r)
    }
}
