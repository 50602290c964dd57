// The string operators of the interpreter's fast path, on lowercased ASCII bytes.
//
// Invariants:
// 1. Both sides are ranges of arrays lent for the call (the resolver's string-form pool and the program's
//    operand bytes), checked against the arrays' counts before the buffers are made; nothing keeps them.
// 2. Every index read is inside its buffer: `memeq` is called only where `at + r.count <= l.count`.
// The plain reference is `Compare.outcome` on the resolved `Value` (the general path), which the trace
// reports and the oracle tests compare with; debug builds check the two agree on every traced comparison.
internal import RuleKitCore

enum ByteCompare {
    /// `op` between `left[lo..<lo+ln]` and `right[ro..<ro+rn]`.
    @inline(__always)
    static func compare(_ left: [UInt8], _ lo: Int, _ ln: Int, _ right: [UInt8], _ ro: Int, _ rn: Int, _ op: Operation) -> Bool {
        precondition(lo >= 0 && ln >= 0 && lo + ln <= left.count && ro >= 0 && rn >= 0 && ro + rn <= right.count)
        return left.withUnsafeBufferPointer { pool in
            right.withUnsafeBufferPointer { ops in
                bytes(UnsafeBufferPointer(rebasing: pool[lo..<(lo + ln)]), UnsafeBufferPointer(rebasing: ops[ro..<(ro + rn)]), op)
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
