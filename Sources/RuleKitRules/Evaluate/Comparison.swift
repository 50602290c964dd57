internal import RuleKitCore

/// Why a comparison came out as it did: "no match" and "error" stay apart, even though the Launch
/// semantics make an error behave as false.
public enum ComparisonOutcome: Sendable, Hashable {
    case match
    case noMatch
    /// The left side could not be converted to the operand's type.
    case conversionFailed(String)
    /// The operation does not exist for the operand's type (e.g. `gt` on a string).
    case unsupported(String)

    /// Whether the comparison matched.
    public var isMatch: Bool { self == .match }
}

enum Compare {
    /// The reference's comparison: the operand's type picks the conversion of the left side; a missing
    /// left side is "" first.
    @inline(__always)
    static func evaluate(_ lhs: Value?, _ op: Operation, _ operand: Operand) -> Bool {
        outcome(lhs, op, operand) == .match
    }

    static func outcome(_ lhsRaw: Value?, _ op: Operation, _ operand: Operand) -> ComparisonOutcome {
        let lhs = lhsRaw ?? .string("")
        switch operand {
        case .string(_, let r):
            let l: String
            if case .string(let s) = lhs { l = s } else { l = Conversion.string(lhs) }
            switch op {
            case .equals: return CaseInsensitive.equals(l, r) ? .match : .noMatch
            case .notEquals: return CaseInsensitive.equals(l, r) ? .noMatch : .match
            case .contains: return CaseInsensitive.contains(l, r) ? .match : .noMatch
            case .notContains: return CaseInsensitive.contains(l, r) ? .noMatch : .match
            case .startsWith: return CaseInsensitive.hasPrefix(l, r) ? .match : .noMatch
            case .endsWith: return CaseInsensitive.hasSuffix(l, r) ? .match : .noMatch
            default: return .unsupported("'\(op.rawValue)' does not compare strings")
            }
        case .int(let r):
            guard let l = Conversion.int(lhs) else {
                return .conversionFailed("\(SwiftDescription.debugDescribe(lhs)) is not an integer")
            }
            return ordered(l, r, op)
        case .double(let r):
            guard let l = Conversion.double(lhs) else {
                return .conversionFailed("\(SwiftDescription.debugDescribe(lhs)) is not a number")
            }
            return ordered(l, r, op)
        case .bool(let r):
            let l = Conversion.bool(lhs)
            switch op {
            case .equals: return l == r ? .match : .noMatch
            case .notEquals: return l != r ? .match : .noMatch
            default: return .unsupported("'\(op.rawValue)' does not compare booleans")
            }
        }
    }

    @inline(__always)
    static func ordered<T: Comparable>(_ l: T, _ r: T, _ op: Operation) -> ComparisonOutcome {
        let m: Bool
        switch op {
        case .equals: m = l == r
        case .notEquals: m = l != r
        case .greaterThan: m = l > r
        case .greaterEqual: m = l >= r
        case .lessThan: m = l < r
        case .lessEqual: m = l <= r
        default: return .unsupported("'\(op.rawValue)' does not compare numbers")
        }
        return m ? .match : .noMatch
    }
}

/// The case-insensitive string operators (`lowercased()` on both sides), with an allocation-free path
/// for ASCII text. The right side arrives already lowercased.
enum CaseInsensitive {
    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b &- 0x41 < 26 ? b | 0x20 : b }

    static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }

    static func equals(_ l: String, _ lowered: String) -> Bool {
        var l = l
        var r = lowered
        let fast = l.withUTF8 { lb in
            r.withUTF8 { rb -> Bool? in
                if lb.count != rb.count {
                    if lb.allSatisfy({ $0 < 0x80 }) && rb.allSatisfy({ $0 < 0x80 }) { return false }
                    return nil
                }
                for i in 0..<lb.count {
                    let a = lb[i]
                    let b = rb[i]
                    if a >= 0x80 || b >= 0x80 { return nil }
                    if lower(a) != b { return false }
                }
                return true
            }
        }
        if let fast { return fast }
        return l.lowercased() == lowered
    }

    static func contains(_ l: String, _ lowered: String) -> Bool {
        // Decision (reference ambiguous): every string contains "".
        if lowered.isEmpty { return true }
        var l = l
        var r = lowered
        let fast = l.withUTF8 { lb in
            r.withUTF8 { rb -> Bool? in
                if rb.count > lb.count { return lb.allSatisfy { $0 < 0x80 } && rb.allSatisfy { $0 < 0x80 } ? false : nil }
                var sawNonASCII = false
                let first = rb[0]
                var start = 0
                while start + rb.count <= lb.count {
                    let a = lb[start]
                    if a >= 0x80 {
                        sawNonASCII = true
                        break
                    }
                    if lower(a) == first {
                        var j = 1
                        while j < rb.count {
                            let x = lb[start + j]
                            if x >= 0x80 || rb[j] >= 0x80 {
                                sawNonASCII = true
                                break
                            }
                            if lower(x) != rb[j] { break }
                            j += 1
                        }
                        if sawNonASCII { break }
                        if j == rb.count { return true }
                    }
                    start += 1
                }
                if sawNonASCII || rb.contains(where: { $0 >= 0x80 }) { return nil }
                for i in start..<lb.count where lb[i] >= 0x80 { return nil }
                return false
            }
        }
        if let fast { return fast }
        return l.lowercased().contains(lowered)
    }

    static func hasPrefix(_ l: String, _ lowered: String) -> Bool {
        var l = l
        var r = lowered
        let fast = l.withUTF8 { lb in
            r.withUTF8 { rb -> Bool? in
                guard rb.count <= lb.count else { return nil }
                for i in 0..<rb.count {
                    let a = lb[i]
                    let b = rb[i]
                    if a >= 0x80 || b >= 0x80 { return nil }
                    if lower(a) != b { return false }
                }
                return true
            }
        }
        if let fast { return fast }
        return l.lowercased().hasPrefix(lowered)
    }

    static func hasSuffix(_ l: String, _ lowered: String) -> Bool {
        var l = l
        var r = lowered
        let fast = l.withUTF8 { lb in
            r.withUTF8 { rb -> Bool? in
                guard rb.count <= lb.count else { return nil }
                let off = lb.count - rb.count
                for i in 0..<rb.count {
                    let a = lb[off + i]
                    let b = rb[i]
                    if a >= 0x80 || b >= 0x80 { return nil }
                    if lower(a) != b { return false }
                }
                // No character straddles the cut: the suffix's bytes on the left are all ASCII (checked
                // above), and every string ends with "" (found by the oracle tests: the byte after the end
                // was read here for an empty suffix).
                return true
            }
        }
        if let fast { return fast }
        return l.lowercased().hasSuffix(lowered)
    }
}
