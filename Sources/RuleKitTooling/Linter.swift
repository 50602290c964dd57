// The linter: everything knowable about a rule set offline, judged as a rule author would. `rulekit lint`
// prints it; the report and the service show the same findings.
internal import Foundation
public import RuleKitCore
public import RuleKitRules
public import RuleKitSources
public import RuleKitXDM

/// The severities lint gives (`CheckSeverity`, the Check phase's), under the name this module gave them first.
public typealias LintSeverity = CheckSeverity

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
        var ids = RuleCheck.IDs()
        for ((path, set), plan) in zip(sources.files.sets, sources.plans) {
            let elements = Dictionary(set.dataElements.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            // Each rule's plan, found by where the rule is and its id (the first of equals, as a search from
            // the start would find it): one pass, where a search per rule was quadratic (10,000 rules: 1 s).
            var plannedAt: [PlanKey: Int] = [:]
            var probe = RuleCheck.ConsequenceProbe(plan)
            for (i, p) in plan.rules.enumerated() where plannedAt[PlanKey(p.rule)] == nil { plannedAt[PlanKey(p.rule)] = i }
            for (i, rule) in set.rules.enumerated() {
                let label = rule.id ?? "#\(i)"
                // Every finding made below is about this rule.
                let first = out.count
                defer { for k in first..<out.count where out[k].rule == nil { out[k].rule = label } }
                if let d = ids.note(rule, in: path) { out.append(d) }
                lintCondition(rule.condition, rule: label, elements: elements, guarded: [], into: &out)
                if let p = plannedAt[PlanKey(rule)] {
                    RuleCheck.planFindings(plan.rules[p], in: plan, label: label, at: rule.location, probe: &probe, into: &out)
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
        RuleCheck.matcherTraps(c, key: key, path: path, op: op, rule: rule, guarded: guarded, into: &out)
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
}
