public import RuleKitCore

/// The reference's conversion functions (`string`, `int`, `double`, `bool`), applied to a resolved
/// value. A missing key arrives as `""` (the reference substitutes it before converting).
public enum Conversion {
    /// `string(x)`.
    ///
    /// - Parameter v: the value.
    /// - Returns: its string.
    public static func string(_ v: Value) -> String {
        SwiftDescription.describe(v)
    }

    /// `int(x)`: nil when the reference's cast fails (the comparison is then false).
    ///
    /// - Parameter v: the value.
    /// - Returns: its integer, or nil.
    public static func int(_ v: Value) -> Int64? {
        switch v {
        case .int(let i): return i
        case .string(let s): return Int64(s)
        case .double(let d):
            // Swift's Int(d) traps on NaN/inf/out of range; the reference would crash, RuleKit says "no value".
            guard d.isFinite, d > -9.223372036854775808e18, d < 9.223372036854775807e18 else { return nil }
            return Int64(d)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// `double(x)`.
    ///
    /// - Parameter v: the value.
    /// - Returns: its double, or nil.
    public static func double(_ v: Value) -> Double? {
        switch v {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .string(let s): return Double(s)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// `bool(x)`: `"true"` (any case) for strings, `== 1` for numbers; everything else false.
    ///
    /// - Parameter v: the value.
    /// - Returns: its boolean.
    public static func bool(_ v: Value) -> Bool {
        switch v {
        case .bool(let b): return b
        case .string(let s): return s.count == 4 && s.lowercased() == "true"
        case .int(let i): return i == 1
        case .double(let d): return d == 1
        default: return false
        }
    }

    /// The token functions: the converted value, or the input unchanged when the conversion fails
    /// (the reference returns its input, so `{%int(abc)%}` renders "abc").
    ///
    /// - Parameters:
    ///   - function: the token function.
    ///   - v: the value.
    /// - Returns: the converted value, or `v`.
    public static func apply(_ function: Template.Function, to v: Value) -> Value {
        switch function {
        case .string: return .string(string(v))
        case .int: return int(v).map(Value.int) ?? v
        case .double: return double(v).map(Value.double) ?? v
        case .bool: return .bool(bool(v))
        case .urlenc:
            if case .string(let s) = v { return .string(URLEncoding.urlenc(s)) }
            return v
        case .unknown: return v
        }
    }
}
