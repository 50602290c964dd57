internal import Foundation
internal import RuleKitCore

/// Watches an evaluation node by node: how `explain` and the report's traces are made. The interpreter
/// calls it at every node; `NoTrace` (the hot path) does nothing and lets every group stop at its first
/// decisive child, while a tracer that `evaluatesAll` sees every child of every group.
protocol ConditionTracer {
    /// Whether groups evaluate every child (for a full trace) instead of stopping early.
    static var evaluatesAll: Bool { get }
    /// A group's children are about to be evaluated.
    mutating func enterGroup()
    /// The group whose children were just evaluated came out `result`.
    mutating func leaveGroup(logic: String, result: Bool)
    /// A comparison, with its general-path reading (only called when `evaluatesAll`).
    mutating func comparison(key: SlotKey, resolved: Value?, operation: Operation, operand: Operand, result: Bool)
    /// An existence test.
    mutating func existence(key: SlotKey, resolved: Value?, negated: Bool, result: Bool)
    /// A historical condition and the operand its searches gave.
    mutating func historical(_ h: PlannedCondition.Historical, operand: Int, result: Bool)
}

/// The tracer of the hot path: records nothing.
struct NoTrace: ConditionTracer {
    static var evaluatesAll: Bool { false }
    @inline(__always) mutating func enterGroup() {}
    @inline(__always) mutating func leaveGroup(logic: String, result: Bool) {}
    @inline(__always) mutating func comparison(key: SlotKey, resolved: Value?, operation: Operation, operand: Operand, result: Bool) {}
    @inline(__always) mutating func existence(key: SlotKey, resolved: Value?, negated: Bool, result: Bool) {}
    @inline(__always) mutating func historical(_ h: PlannedCondition.Historical, operand: Int, result: Bool) {}
}

/// The one evaluator of conditions: runs a rule's `Program` nodes against the resolver's event, with the
/// Launch semantics, without reference counting or allocation on its fast paths. Matching, batch
/// matching, the engine, explain and the report all come through here.
enum Interpreter {
    static func matches(_ p: Program, rule: Int, _ r: inout Resolver) -> Bool {
        var t = NoTrace()
        return run(p, Int(p.roots[rule]), &r, &t)
    }

    static func run<T: ConditionTracer>(_ p: Program, _ index: Int, _ r: inout Resolver, _ t: inout T) -> Bool {
        let n = p.nodes[index]
        switch n.kind {
        case .and, .or, .never:
            t.enterGroup()
            let isAnd = n.kind == .and
            var result = isAnd
            for i in Int(n.a)..<Int(n.a + n.b) {
                let child = run(p, Int(p.children[i]), &r, &t)
                if n.kind == .never { continue }
                if child != isAnd {
                    // `and` fails at its first false child, `or` holds at its first true one.
                    result = !isAnd
                    if !T.evaluatesAll { return result }
                }
            }
            if n.kind == .never { result = false }
            if T.evaluatesAll {
                let logic = n.kind == .never ? p.unknownLogic[Int32(index)] ?? "" : (isAnd ? "and" : "or")
                t.leaveGroup(logic: logic, result: result)
            }
            return result
        case .exists:
            let result = r.exists(Int(n.slot), p.slots) != (n.op == 1)
            if T.evaluatesAll {
                t.existence(
                    key: p.slots.keys[Int(n.slot)], resolved: r.resolve(p.slots.keys[Int(n.slot)]), negated: n.op == 1, result: result)
            }
            return result
        case .compare, .compareValue:
            let result = n.kind == .compare ? compare(p, n, &r) : compareValue(p, n, &r)
            if T.evaluatesAll {
                let key = p.slots.keys[Int(n.slot)]
                t.comparison(
                    key: key, resolved: r.resolve(key), operation: Program.operations[Int(n.op)],
                    operand: p.operandValues[Int(n.a)], result: result)
            }
            return result
        case .history:
            let h = p.historicals[Int(n.a)]
            let operand = Evaluator.historyOperand(h, &r)
            let result = Compare.evaluate(.int(Int64(operand)), h.operation, .int(h.value))
            if T.evaluatesAll { t.historical(h, operand: operand, result: result) }
            return result
        }
    }

    /// A comparison by the general path: the key's value, converted as the operand's type says.
    static func compareValue(_ p: Program, _ n: Program.Node, _ r: inout Resolver) -> Bool {
        Compare.evaluate(r.resolve(p.slots.keys[Int(n.slot)]), Program.operations[Int(n.op)], p.operandValues[Int(n.a)])
    }

    @inline(__always)
    static func compare(_ p: Program, _ n: Program.Node, _ r: inout Resolver) -> Bool {
        let operand = p.operands[Int(n.a)]
        let op = Program.operations[Int(n.op)]
        let slot = Int(n.slot)
        switch operand.kind {
        case .int:
            guard let l = r.intForm(slot, p.slots) else { return false }
            return Compare.ordered(l, operand.int, op) == .match
        case .double:
            guard let l = r.doubleForm(slot, p.slots) else { return false }
            return Compare.ordered(l, operand.double, op) == .match
        case .bool:
            let l = Conversion.bool(r.resolve(p.slots.keys[slot]) ?? .string(""))
            switch op {
            case .equals: return l == operand.bool
            case .notEquals: return l != operand.bool
            default: return false
            }
        case .string:
            let (off, len) = r.stringForm(slot, p.slots)
            let ro = Int(operand.offset)
            let rl = Int(operand.length)
            if len < 0 {
                // Non-ASCII text on the left: the general path decides.
                return compareValue(p, n, &r)
            }
            return ByteCompare.compare(r.forms.pool, off, len, p.bytes, ro, rl, op)
        }
    }
}
