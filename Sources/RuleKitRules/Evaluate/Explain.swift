public import RuleKitCore

/// What one rule did with one event, condition by condition.
public struct RuleTrace: Sendable {
    /// The rule's position in the rule set.
    public var index: Int
    /// The rule's id, or its position when it has none.
    public var label: String
    /// Whether the rule matched.
    public var matched: Bool
    /// The condition tree, evaluated whole.
    public var condition: ConditionTrace
    /// The rendered consequences, when it matched.
    public var consequences: [Consequence]
}

/// The evaluation of a condition node, kept whole: every child is evaluated (no short circuit) so the
/// trace shows all of them, while `result` follows the Launch semantics.
public indirect enum ConditionTrace: Sendable {
    /// How many matchers (comparisons, existence and historical conditions) failed.
    public var failedMatchers: Int {
        switch self {
        case .group(_, _, let children): children.reduce(0) { $0 + $1.failedMatchers }
        default: result ? 0 : 1
        }
    }

    case group(logic: String, result: Bool, children: [ConditionTrace])
    case comparison(ComparisonTrace)
    case existence(key: String, value: Value?, negated: Bool, result: Bool)
    case historical(searchType: String, operand: Int, operation: Operation, value: Int64, result: Bool)

    /// The node's outcome under the Launch semantics.
    public var result: Bool {
        switch self {
        case .group(_, let r, _), .existence(_, _, _, let r), .historical(_, _, _, _, let r): r
        case .comparison(let c): c.outcome.isMatch
        }
    }
}

/// One comparison: the key, what it resolved to, the conversion the operand's type chose, and why it
/// matched or not ("no match" apart from "error").
public struct ComparisonTrace: Sendable {
    /// The key as written.
    public var key: String
    /// nil: the key does not exist (it compares as "").
    public var resolved: Value?
    /// The conversion the operand's type chose (`string`, `number`, ...).
    public var conversion: String
    /// The left side after conversion; nil when the conversion failed.
    public var converted: Value?
    /// The matcher.
    public var operation: Operation
    /// The value compared with.
    public var operand: Value
    /// Match, no match, or why it could not compare.
    public var outcome: ComparisonOutcome
}

extension Evaluator {
    /// Every rule of `set` against the resolver's event, with the full trace of each condition.
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - r: the resolver of the event.
    /// - Returns: one trace per rule.
    public static func explain(_ set: CompiledRuleSet, _ r: inout Resolver) -> [RuleTrace] {
        set.rules.map { rule in
            let t = trace(set, rule: rule.index, &r)
            let rendered = t.result ? rule.consequences.map { render($0, &r) } : []
            return RuleTrace(index: rule.index, label: rule.label, matched: t.result, condition: t, consequences: rendered)
        }
    }

    /// Evaluates rule `rule` of `set` whole (every child of every group) against the resolver's event.
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - rule: the rule's index in it.
    ///   - r: the resolver of the event.
    /// - Returns: the condition's trace.
    public static func trace(_ set: CompiledRuleSet, rule: Int, _ r: inout Resolver) -> ConditionTrace {
        var t = TraceBuilder()
        _ = r.borrowingData { r in Interpreter.run(set.program, Int(set.program.roots[rule]), &r, &t) }
        return t.root
    }
}

/// Builds a `ConditionTrace` as the interpreter reports each node.
struct TraceBuilder: ConditionTracer {
    static var evaluatesAll: Bool { true }
    /// The children of each group being evaluated; the bottom level holds the root.
    private var levels: [[ConditionTrace]] = [[]]

    var root: ConditionTrace { levels[0][0] }

    mutating func enterGroup() { levels.append([]) }

    mutating func leaveGroup(logic: String, result: Bool) {
        let children = levels.removeLast()
        levels[levels.count - 1].append(.group(logic: logic, result: result, children: children))
    }

    mutating func comparison(key: SlotKey, resolved: Value?, operation: Operation, operand: Operand, result: Bool) {
        let lhs = resolved ?? .string("")
        let converted: Value? =
            switch operand {
            case .string: .string(Conversion.string(lhs))
            case .int: Conversion.int(lhs).map(Value.int)
            case .double: Conversion.double(lhs).map(Value.double)
            case .bool: .bool(Conversion.bool(lhs))
            }
        // The general path's reading; the interpreter's fast path must agree with it (checked in debug
        // builds, and by the tests against an independent oracle).
        let outcome = Compare.outcome(resolved, operation, operand)
        assert(outcome.isMatch == result, "fast path and general path disagree on \(key.ref) \(operation.code) \(operand.value)")
        levels[levels.count - 1].append(
            .comparison(
                ComparisonTrace(
                    key: key.ref.description, resolved: resolved, conversion: operand.typeName, converted: converted,
                    operation: operation, operand: operand.value, outcome: outcome)))
    }

    mutating func existence(key: SlotKey, resolved: Value?, negated: Bool, result: Bool) {
        levels[levels.count - 1].append(.existence(key: key.ref.description, value: resolved, negated: negated, result: result))
    }

    mutating func historical(_ h: PlannedCondition.Historical, operand: Int, result: Bool) {
        levels[levels.count - 1].append(
            .historical(searchType: h.searchType.rawValue, operand: operand, operation: h.operation, value: h.value, result: result))
    }
}

/// Human-readable explain output.
public enum ExplainText {
    /// The traces as indented text, one line per node.
    ///
    /// - Parameter traces: the rules' traces.
    /// - Returns: the text.
    public static func render(_ traces: [RuleTrace]) -> String {
        var out = ""
        for t in traces {
            out += "\(t.matched ? "MATCH   " : "no match") rule \(t.label)\n"
            line(t.condition, indent: 2, into: &out)
            for c in t.consequences {
                out += "  → \(c.type) \(c.id): \(JSONWriter.string(.object(c.detail)))\n"
            }
        }
        return out
    }

    /// One condition's trace, matcher by matcher.
    ///
    /// - Parameter condition: the trace.
    /// - Returns: the text.
    public static func render(_ condition: ConditionTrace) -> String {
        var out = ""
        line(condition, indent: 0, into: &out)
        return out
    }

    static func mark(_ b: Bool) -> String { b ? "✓" : "✗" }

    static func line(_ c: ConditionTrace, indent: Int, into out: inout String) {
        let pad = String(repeating: " ", count: indent)
        switch c {
        case .group(let logic, let r, let children):
            out += "\(pad)\(mark(r)) \(logic)\(logic == "and" || logic == "or" ? "" : " (unknown logic: always false)")\n"
            for ch in children { line(ch, indent: indent + 2, into: &out) }
        case .existence(let key, let v, let negated, let r):
            out += "\(pad)\(mark(r)) \(key) \(negated ? "nx" : "ex") — \(v.map { "is \(JSONWriter.string($0))" } ?? "missing")\n"
        case .historical(let s, let operand, let op, let value, let r):
            out += "\(pad)\(mark(r)) history (\(s)) = \(operand) \(op.code) \(value)\n"
        case .comparison(let t):
            let resolved = t.resolved.map { JSONWriter.string($0) } ?? "missing (as \"\")"
            let conv = t.converted.map { "\(t.conversion)(…) = \(JSONWriter.string($0))" } ?? "\(t.conversion)(…) failed"
            let why: String =
                switch t.outcome {
                case .match: "match"
                case .noMatch: "no match"
                case .conversionFailed(let m): "error: \(m)"
                case .unsupported(let m): "error: \(m)"
                }
            out +=
                "\(pad)\(mark(t.outcome.isMatch)) \(t.key) \(t.operation.code) \(JSONWriter.string(t.operand)) — \(resolved), \(conv): \(why)\n"
        }
    }
}
