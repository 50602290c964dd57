/// Evaluates the flat `Program` of a rule set: the hot path. Same results as `Evaluator.matches` on the
/// planned tree (a test checks both agree on the corpora), without reference counting or allocation.
enum ProgramEvaluator {
    static func matches(_ p: Program, rule: Int, _ r: inout Resolver) -> Bool {
        run(p, Int(p.roots[rule]), &r)
    }

    static func run(_ p: Program, _ index: Int, _ r: inout Resolver) -> Bool {
        let n = p.nodes[index]
        switch n.kind {
        case .and:
            for i in Int(n.a)..<Int(n.a + n.b) where !run(p, Int(p.children[i]), &r) { return false }
            return true
        case .or:
            for i in Int(n.a)..<Int(n.a + n.b) where run(p, Int(p.children[i]), &r) { return true }
            return false
        case .never:
            return false
        case .exists:
            return r.exists(Int(n.slot), p.slots) != (n.op == 1)
        case .fallback:
            return Evaluator.matches(p.fallbacks[Int(n.a)], &r)
        case .compare:
            return compare(p, n, &r)
        }
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
                // Non-ASCII text: the String path, exactly as the tree evaluator does.
                let lowered = String(decoding: p.bytes[ro..<(ro + rl)], as: UTF8.self)
                return Compare.evaluate(r.resolve(p.slots.keys[slot]), op, .string(lowered, lowered: lowered))
            }
            return r.forms.pool.withUnsafeBufferPointer { pool in
                p.bytes.withUnsafeBufferPointer { ops in
                    bytes(
                        UnsafeBufferPointer(rebasing: pool[off..<(off + len)]),
                        UnsafeBufferPointer(rebasing: ops[ro..<(ro + rl)]), op)
                }
            }
        }
    }

    /// The string operators on lowercased ASCII bytes.
    @inline(__always)
    static func bytes(_ l: UnsafeBufferPointer<UInt8>, _ r: UnsafeBufferPointer<UInt8>, _ op: Operation) -> Bool {
        switch op {
        case .equals: return l.count == r.count && memeq(l, 0, r)
        case .notEquals: return !(l.count == r.count && memeq(l, 0, r))
        case .startsWith: return r.count <= l.count && memeq(l, 0, r)
        case .endsWith: return r.count <= l.count && memeq(l, l.count - r.count, r)
        case .contains: return find(l, r)
        case .notContains: return !find(l, r)
        default: return false
        }
    }

    @inline(__always)
    static func memeq(_ l: UnsafeBufferPointer<UInt8>, _ at: Int, _ r: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < r.count {
            if l[at + i] != r[i] { return false }
            i += 1
        }
        return true
    }

    static func find(_ l: UnsafeBufferPointer<UInt8>, _ r: UnsafeBufferPointer<UInt8>) -> Bool {
        if r.isEmpty { return true }
        guard r.count <= l.count else { return false }
        let first = r[0]
        var i = 0
        let last = l.count - r.count
        while i <= last {
            if l[i] == first && memeq(l, i, r) { return true }
            i += 1
        }
        return false
    }
}
