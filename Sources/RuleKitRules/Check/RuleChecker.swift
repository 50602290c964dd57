// The Check phase: every planned rule judged as its author would, with the rules-only checks of `RuleCheck`
// and, when a context is plugged in, the schemas' (XDM keys and types, attached XDM). It reads the plan
// alone — the planned condition, and what the planner read of each matcher (`PlannedMatcher`: the key as
// written, what it reads, where it is) — so a check sees the rule as it will run: a disabled rule or a
// dropped condition is the planner's finding, not the Check's. The loaded sets give only the ids, which no
// two rules may share, enabled or not. One walk for every consumer: lint, the editor, the report, and the
// hosts that refuse a rule set with errors before running it (`RuleSnapshot.findings`).
public import RuleKitCore

/// Walks planned rule sets with the checks; the findings carry the severity `CheckSeverity`
/// gives their code.
public struct RuleChecker: Sendable {
    /// The schema checks, when any.
    public var context: (any CheckContext)?
    /// The engines the rules are meant for: `.web` and `.both` add the conditions the web engine answers
    /// otherwise than the mobile one (`RuleCheck.targetDifferences`).
    public var target: RuleTarget

    /// A checker with `context`'s schema checks (nil: the rules-only checks) for `target`.
    ///
    /// - Parameters:
    ///   - context: the schema and example checks (nil: rules-only).
    ///   - target: the engines whose answers are compared (`mobile`, `web`, `both`).
    public init(context: (any CheckContext)? = nil, target: RuleTarget = .mobile) {
        self.context = context
        self.target = target
    }

    /// The findings of the rule sets `sets` (by file, in load order) planned as `plans` (one per set,
    /// in the same order), with `CheckSeverity`'s severities.
    ///
    /// - Parameters:
    ///   - sets: each file's path and its rule set as loaded (for the ids).
    ///   - plans: each set as planned, in the order of `sets`.
    /// - Returns: the findings of the Check phase only (the loaders' and the planner's are the caller's).
    public func check(_ sets: [(path: String, set: RuleSet)], plans: [CompiledRuleSet]) -> [Diagnostic] {
        var out: [Diagnostic] = []
        var ids = RuleCheck.IDs()
        for ((path, set), plan) in zip(sets, plans) {
            // An id is noted for every rule loaded, disabled ones too: two rules may not share one.
            for (i, rule) in set.rules.enumerated() {
                if var d = ids.note(rule, in: path) {
                    d.rule = d.rule ?? rule.id ?? "#\(i)"
                    out.append(d)
                }
            }
            var probe = RuleCheck.ConsequenceProbe(plan)
            for planned in plan.rules {
                // Named as the planner names it: by id, else by its place in the file.
                let label = planned.rule.id ?? "#\(planned.sourceIndex)"
                // Every finding made below is about this rule.
                let first = out.count
                defer { for k in first..<out.count where out[k].rule == nil { out[k].rule = label } }
                for m in plan.matchers(of: planned) { matcher(m, rule: label, into: &out) }
                if target != .mobile {
                    for h in planned.historicalSources { RuleCheck.targetHistoryDifferences(h, rule: label, into: &out) }
                }
                RuleCheck.planFindings(planned, in: plan, label: label, at: planned.rule.location, probe: &probe, into: &out)
                for c in planned.consequences where c.kind == .add || c.kind == .mod { attachedXDM(c.source, rule: label, into: &out) }
            }
        }
        return out.map(CheckSeverity.apply)
    }

    /// One matcher as the planner read it: Launch's traps, the engines' differences when asked, and its key
    /// and values against the schemas when a context is plugged in.
    func matcher(_ m: PlannedMatcher, rule: String, into out: inout [Diagnostic]) {
        RuleCheck.matcherTraps(m, rule: rule, into: &out)
        if target != .mobile { RuleCheck.targetDifferences(m, rule: rule, into: &out) }
        let (key, path, op) = (m.key, m.path, m.operation)
        guard !path.hasPrefix("~"), let context else { return }
        let leafType = context.xdmType(ofKey: path)
        if leafType == nil, m.declaredType == nil, context.checksKeys, !context.isExampleKey(path) {
            out.append(
                .warning(
                    .lintUnknownKey,
                    "rule \(rule): key '\(key)' is neither an XDM path of Schemas/, a data element, a ~ token, nor a key seen in the example events",
                    at: m.location))
        }
        guard let leafType, op != .exists, op != .notExist else { return }
        let numeric = leafType.contains("number") || leafType.contains("integer")
        for v in m.values {
            if numeric, case .string(let s) = v, op == .equals || op == .notEquals {
                out.append(
                    .warning(
                        .lintTypeMismatch,
                        "rule \(rule): '\(key)' is a \(leafType) in XDM but the value \"\(s)\" is a string, so it is compared as text",
                        at: m.location))
            }
            if leafType == "string", v.numberValue != nil, op != .equals, op != .notEquals {
                out.append(
                    .warning(
                        .lintTypeMismatch, "rule \(rule): '\(key)' is a string in XDM but '\(m.code)' compares it as a number",
                        at: m.location))
            }
        }
    }

    /// The XDM an `add` or `mod` consequence attaches, against the schemas.
    func attachedXDM(_ c: Consequence, rule: String, into out: inout [Diagnostic]) {
        guard let context, case .object(let data)? = c.detail["eventdata"], case .object(let xdm)? = data["xdm"] else { return }
        // In `mod` a null deletes a field rather than setting it.
        for p in context.xdmProblems(Self.withoutNulls(.object(xdm))).prefix(5) {
            out.append(
                .warning(
                    .lintInvalidXDM,
                    "rule \(rule): consequence \(c.id) attaches XDM that does not fit Schemas/ at xdm\(p.pointer): \(p.message)",
                    at: c.location))
        }
    }

    static func withoutNulls(_ v: Value) -> Value {
        switch v {
        case .object(let o): return .object(ValueObject(o.compactMap { k, x in x.isNull ? nil : (k, withoutNulls(x)) }))
        case .array(let a): return .array(a.map(withoutNulls))
        default: return v
        }
    }
}
