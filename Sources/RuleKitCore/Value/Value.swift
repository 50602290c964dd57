// RuleKitCore is the bottom layer of RuleKit: the closed `Value` model that event data, shared states,
// rules and XDM payloads all share, the strict JSON reader and writer, source locations, and the one
// diagnostic format the whole project reports problems in. It depends on nothing but the standard
// library and Foundation, so every other module can stand on it.

/// A JSON-compatible value: the one data model RuleKit uses instead of `Any`.
///
/// Integers and doubles stay apart (`22` is `.int`, `22.0` is `.double`) because the Launch rules
/// semantics render them differently. Object key order is kept.
///
/// ```swift
/// let v: Value = ["type": "commerce", "total": 12.5, "items": [1, 2]]
/// v["total"]        // .double(12.5)
/// v[path: "items.1"] // .int(2)
/// ```
public enum Value: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([Value])
    case object(ValueObject)
}

extension Value {
    /// The kind of a value, as names used in diagnostics and schemas.
    public enum Kind: String, Sendable, CaseIterable {
        case null, bool, int, double, string, array, object
    }

    /// Which case this value is, without its payload.
    public var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// Whether this is `null`.
    @inlinable public var isNull: Bool { if case .null = self { true } else { false } }
    /// The boolean, if this is one.
    @inlinable public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The integer, if this is one (doubles are not converted).
    @inlinable public var intValue: Int64? { if case .int(let i) = self { i } else { nil } }
    /// The double, if this is one (integers are not converted).
    @inlinable public var doubleValue: Double? { if case .double(let d) = self { d } else { nil } }
    /// The string, if this is one.
    @inlinable public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The elements, if this is an array.
    @inlinable public var arrayValue: [Value]? { if case .array(let a) = self { a } else { nil } }
    /// The members, if this is an object.
    @inlinable public var objectValue: ValueObject? { if case .object(let o) = self { o } else { nil } }

    /// The number as a `Double`, for ints and doubles alike.
    public var numberValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The member `key` of an object; `nil` for a missing key or a non-object.
    public subscript(key: String) -> Value? {
        get { objectValue?[key] }
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> Value? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }

    /// Deep equality where numbers compare by numeric value (`3 == 3.0`), as JSON test suites expect.
    public func numericallyEquals(_ other: Value) -> Bool {
        switch (self, other) {
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.numericallyEquals($1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for (k, v) in a {
                guard let w = b[k], v.numericallyEquals(w) else { return false }
            }
            return true
        default: return self == other
        }
    }
}

extension Value: Equatable {
    /// Structural equality: `.int(3) != .double(3)`; object key order is ignored.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }
}

extension Value: Hashable {
    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b):
            hasher.combine(1)
            hasher.combine(b)
        case .int(let i):
            hasher.combine(2)
            hasher.combine(i)
        case .double(let d):
            hasher.combine(3)
            hasher.combine(d.isNaN ? .nan : d)
        case .string(let s):
            hasher.combine(4)
            hasher.combine(s)
        case .array(let a):
            hasher.combine(5)
            hasher.combine(a)
        case .object(let o):
            hasher.combine(6)
            hasher.combine(o)
        }
    }
}

extension Value: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` in a literal is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
    /// A dictionary literal, members kept in the order written.
    public init(dictionaryLiteral elements: (String, Value)...) {
        var o = ValueObject(minimumCapacity: elements.count)
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }
}

extension Value: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String { JSONWriter.string(self) }
}
