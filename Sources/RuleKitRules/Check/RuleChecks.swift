// The checks of the Check phase that need nothing but the rules: Launch's traps in a matcher, a rule that
// can never fire, a rule that re-triggers itself, an id used in two files. Each is written here once;
// `Linter` (RuleKitTooling) walks a rule set with them and adds what needs the schemas (XDM keys and types).
public import RuleKitCore

/// The rules-only checks, one finding at a time, with the codes of `FindingCodes.swift`.
public enum RuleCheck {
    /// Launch's traps in matcher `m` of rule `rule`: a comparison a missing key satisfies (a missing key
    /// reads as ""), unless an enclosing `and` requires the key (`m.guarded`); a numeric matcher given a
    /// string, which never orders.
    ///
    /// - Parameters:
    ///   - m: the matcher, as planned.
    ///   - rule: the rule's label, for messages.
    ///   - out: where findings are added.
    public static func matcherTraps(_ m: PlannedMatcher, rule: String, into out: inout [Diagnostic]) {
        let (key, path, op, code, values) = (m.key, m.path, m.operation, m.code, m.values)
        let mayBeMissing = !path.hasPrefix("~") || path.hasPrefix("~state") || path.hasPrefix("~xdm.")
        if mayBeMissing, !m.guarded.contains(key),
            op == .notEquals || op == .notContains
                || (op == .equals && values.contains(where: { $0 == .string("") || $0 == .bool(false) }))
        {
            out.append(
                .warning(
                    .lintMissingKeyTrap,
                    "rule \(rule): '\(code)' on '\(key)' is also true when the key is missing (a missing key reads as \"\"); add {key: \(key), ex: true} if it must exist",
                    at: m.location))
        }
        if [.greaterThan, .greaterEqual, .lessThan, .lessEqual].contains(op), values.contains(where: { $0.stringValue != nil }) {
            out.append(
                .warning(
                    .lintNumericString,
                    "rule \(rule): '\(code)' with a string value never matches (ordering exists only for numbers); write the value as a number",
                    at: m.location))
        }
    }

    /// What the plan of rule `rule` (labelled `label`, at `location`) says of it: it can never fire, or it can
    /// match its own rules-consequence events. `probe` is `ConsequenceProbe(plan)`, made once for the
    /// rules of one plan.
    ///
    /// - Parameters:
    ///   - planned: the planned rule.
    ///   - plan: the plan it belongs to.
    ///   - label: the rule's label, for messages.
    ///   - location: where the rule is written.
    ///   - probe: the consequence-event probe of `plan`.
    ///   - out: where findings are added.
    public static func planFindings(
        _ planned: PlannedRule, in plan: CompiledRuleSet, label: String, at location: SourceLocation?,
        probe: inout ConsequenceProbe, into out: inout [Diagnostic]
    ) {
        if neverFires(planned.condition) {
            out.append(.warning(.lintNeverFires, "rule \(label) can never fire: its condition is always false", at: location))
        }
        if planned.consequences.contains(where: { $0.kind == .other || $0.kind == .schema }),
            probe.matches(plan, rule: planned.index)
        {
            out.append(
                .warning(
                    .lintSelfTrigger,
                    "rule \(label) can match its own rules-consequence events (its condition does not require the triggering event's type, source or data); in the reference it re-triggers without end",
                    at: location))
        }
    }

    /// Rule ids across the files of a rule set, in load order: an id used again in another file is an error
    /// at the later use, naming the file of the use before it (within one file the loader reports it).
    public struct IDs {
        var last: [String: SourceLocation?] = [:]

        /// No id seen yet.
        public init() {}

        /// Notes `rule` of file `path`; the finding when its id was first used in another file.
        ///
        /// - Parameters:
        ///   - rule: the rule.
        ///   - path: the file it is written in.
        /// - Returns: the finding, or nil.
        public mutating func note(_ rule: Rule, in path: String) -> Diagnostic? {
            guard let id = rule.id else { return nil }
            defer { last[id] = rule.location }
            guard let earlier = last[id], earlier?.file != path else { return nil }
            return .error(.lintDuplicateID, "rule id '\(id)' is also used in \(earlier?.file ?? "another file")", at: rule.location)
        }
    }

    /// Always false: an unknown logic, or an `and` requiring two different values (or ex and nx) of a key.
    ///
    /// - Parameter c: a planned condition.
    /// - Returns: whether no event can satisfy it.
    public static func neverFires(_ c: PlannedCondition) -> Bool {
        switch c {
        case .unknownLogic: return true
        case .or(let cs): return cs.allSatisfy(neverFires)
        case .and(let cs):
            if cs.contains(where: neverFires) { return true }
            // Two equalities of one key with different strings, or `ex` and `nx` of one key, never hold
            // together. A key is its slot (one per key in a plan): compared as an Int, never hashed. A
            // group of a few conditions is compared pair by pair, with nothing allocated; a larger one
            // through a table, so that no group costs more than linear time.
            if cs.count <= 16 {
                for i in cs.indices {
                    for j in cs.indices where j > i && contradict(cs[i], cs[j]) { return true }
                }
                return false
            }
            var eq: [Int: String] = [:]
            var exists: [Int: Bool] = [:]
            for x in cs {
                switch x {
                case .comparison(let k, .equals, .string(_, let v)):
                    if let other = eq[k.slot], other != v { return true }
                    eq[k.slot] = v
                case .existence(let k, let negated):
                    if let other = exists[k.slot], other != negated { return true }
                    exists[k.slot] = negated
                default: break
                }
            }
            return false
        default: return false
        }
    }

    /// Whether `a` and `b`, two conditions of one `and`, cannot both hold: equalities of one key with
    /// different strings, or `ex` and `nx` of one key.
    static func contradict(_ a: PlannedCondition, _ b: PlannedCondition) -> Bool {
        switch (a, b) {
        case (.comparison(let k, .equals, .string(_, let v)), .comparison(let l, .equals, .string(_, let w))):
            return k.slot == l.slot && v != w
        case (.existence(let k, let n), .existence(let l, let m)):
            return k.slot == l.slot && n != m
        default:
            return false
        }
    }

    /// Whether a rules-consequence event (type rulesEngine, data {triggeredconsequence}) can satisfy rule
    /// `rule` of `set`.
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - rule: the rule's index in it.
    /// - Returns: whether a consequence event can match it.
    public static func canMatchConsequenceEvents(_ set: CompiledRuleSet, rule: Int) -> Bool {
        var probe = ConsequenceProbe(set)
        return probe.matches(set, rule: rule)
    }

    /// A rules-consequence event (type rulesEngine, data {triggeredconsequence}) with its resolver, made once
    /// per plan and asked about each of its rules (a fresh event and resolver per rule were a twentieth of an
    /// editor's check).
    public struct ConsequenceProbe {
        var resolver: Resolver

        /// The probe for the rules of `set`.
        ///
        /// - Parameter set: the plan whose rules are probed.
        public init(_ set: CompiledRuleSet) {
            resolver = Resolver(
                event: Event(
                    name: RulesEventNames.consequenceEventName, type: RulesEventNames.rulesEngineType,
                    source: RulesEventNames.responseContent,
                    data: ["triggeredconsequence": ["id": "x", "type": "url", "detail": [:]]]),
                runtime: StaticRulesRuntime(), slotCount: set.slotCount)
        }

        /// Whether the event satisfies rule `rule` of `set` (the set the probe was made for).
        ///
        /// - Parameters:
        ///   - set: the plan the probe was made for.
        ///   - rule: the rule's index in it.
        /// - Returns: whether the probe's consequence event satisfies it.
        public mutating func matches(_ set: CompiledRuleSet, rule: Int) -> Bool {
            // A pass per question, as the resolver's borrowed walks require; the event and the resolver's
            // storage are made once.
            resolver.reset(event: resolver.event)
            return Evaluator.matches(set, rule: rule, &resolver)
        }
    }
}
