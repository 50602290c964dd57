// The matcher operations: one table of Launch codes, names and the reference's traps. Every list of
// matchers RuleKit shows (the format's JSON Schema, the editor's completion and hover, the loaders'
// suggestions) is read from here, so adding a matcher is a case and a row.

/// Matcher operations of the engine, one per Launch matcher code.
public enum Operation: String, Sendable, Hashable, CaseIterable {
    case equals, notEquals, greaterThan, greaterEqual, lessThan, lessEqual
    case contains, notContains, startsWith, endsWith, exists, notExist

    /// What a rule author is told of one matcher.
    public struct Description: Sendable {
        /// The Launch code (`eq`).
        public let code: String
        /// Its name in words (`equals`).
        public let name: String
        /// What it tests.
        public let meaning: String
        /// How the reference surprises its authors.
        public let trap: String
    }

    /// The operation's Launch code, name, meaning and trap.
    public var description: Description {
        switch self {
        case .equals:
            Description(
                code: "eq", name: "equals", meaning: "true when the key's value equals one of the values (OR).",
                trap: "A missing key reads as \"\": `eq: \"\"` and `eq: false` match a missing key.")
        case .notEquals:
            Description(
                code: "ne", name: "not equals", meaning: "true when the key's value differs from every value (AND).",
                trap: "A missing key reads as \"\", so `ne` is true when the key is missing: add `{key: …, ex: true}` if it must exist.")
        case .greaterThan:
            Description(
                code: "gt", name: "greater than", meaning: "true when the key's value is greater than one of the values.",
                trap: "Ordering exists for numbers only: a string value (`gt: \"2\"`) never matches.")
        case .greaterEqual:
            Description(
                code: "ge", name: "greater or equal", meaning: "true when the key's value is at least one of the values.",
                trap: "Ordering exists for numbers only: a string value never matches.")
        case .lessThan:
            Description(
                code: "lt", name: "less than", meaning: "true when the key's value is less than one of the values.",
                trap: "Ordering exists for numbers only; a missing key converts to no number and is false.")
        case .lessEqual:
            Description(
                code: "le", name: "less or equal", meaning: "true when the key's value is at most one of the values.",
                trap: "Ordering exists for numbers only: a string value never matches.")
        case .contains:
            Description(
                code: "co", name: "contains", meaning: "true when the key's text contains one of the values (case-insensitive).",
                trap: "Strings only: `co: 5` never matches. The event's value is converted to text first (`3.0` reads \"3.0\").")
        case .notContains:
            Description(
                code: "nc", name: "does not contain", meaning: "true when the key's text contains none of the values (AND).",
                trap: "A missing key reads as \"\", which contains nothing: `nc` is true when the key is missing.")
        case .startsWith:
            Description(
                code: "sw", name: "starts with", meaning: "true when the key's text starts with one of the values (case-insensitive).",
                trap: "Strings only; numbers in the event are compared as their text.")
        case .endsWith:
            Description(
                code: "ew", name: "ends with", meaning: "true when the key's text ends with one of the values (case-insensitive).",
                trap: "Strings only; numbers in the event are compared as their text.")
        case .exists:
            Description(
                code: "ex", name: "exists", meaning: "true when the key resolves to a value.",
                trap: "No conversion; the values are ignored. Guards the missing-key trap of `ne`, `nc` and `eq \"\"`.")
        case .notExist:
            Description(
                code: "nx", name: "does not exist", meaning: "true when the key is absent.",
                trap: "No conversion; the values are ignored. `values: [null]` drops the matcher in the reference.")
        }
    }

    /// The Launch matcher codes, in the order of `allCases`.
    public static let codes = allCases.map(\.description.code)

    private static let byCode = Dictionary(uniqueKeysWithValues: allCases.map { ($0.description.code, $0) })

    /// The operation of a Launch matcher code (`eq` → `equals`); nil for a code the reference does not know.
    ///
    /// - Parameter code: the matcher's code.
    public init?(code: String) {
        guard let op = Self.byCode[code] else { return nil }
        self = op
    }

    /// The Launch matcher code (`eq`, `ne`, ...).
    public var code: String { description.code }

    /// Whether the operation orders numbers (`gt`, `ge`, `lt`, `le`).
    public var isOrdering: Bool { self == .greaterThan || self == .greaterEqual || self == .lessThan || self == .lessEqual }

    /// The code a misspelled or spelled-out matcher most likely meant (`equals` → `eq`, `eqals` → `eq`).
    ///
    /// - Parameter code: the code written.
    /// - Returns: the code meant, or nil.
    public static func suggestion(for code: String) -> String? {
        let lowered = code.lowercased()
        let spelled: [String: String] = [
            "==": "eq", "!=": "ne", ">": "gt", ">=": "ge", "<": "lt", "<=": "le", "equal": "eq", "notexists": "nx",
        ]
        if let s = spelled[lowered] { return s }
        // A name spelled out, with or without its spaces (`notequals`, `greater than`).
        let squeezed = lowered.filter { $0 != " " && $0 != "_" && $0 != "-" }
        for op in allCases where op.description.name.filter({ $0 != " " }) == squeezed || op.rawValue.lowercased() == squeezed {
            return op.code
        }
        if codes.contains(lowered) { return lowered }
        if code.count <= 5, let c = closest(code, in: codes) { return c }
        return codes.first { lowered.hasPrefix($0) }
    }

    /// `ne` and `nc` combine several values with AND, the others with OR.
    var combinesWithAnd: Bool { self == .notEquals || self == .notContains }
}

/// The logic of a condition group.
public enum GroupLogic: String, Sendable, Hashable, CaseIterable {
    /// Every condition holds.
    case and
    /// At least one condition holds.
    case or
}

extension Condition.Definition {
    /// The group's logic, nil when absent or not one the reference knows (such a group is always false).
    public var groupLogic: GroupLogic? { logic.flatMap(GroupLogic.init(rawValue:)) }
}
