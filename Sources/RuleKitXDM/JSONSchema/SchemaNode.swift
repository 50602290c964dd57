internal import Foundation
public import RuleKitCore

/// A compiled schema: the checks one (sub)schema applies, decided once. Nodes form a graph (references
/// may be cyclic); they are built by `SchemaCompiler` and never change afterwards.
final class SchemaNode: @unchecked Sendable {
    // Filled by the compiler before the node is used, then only read: safe to share across threads.
    var checks: [Check] = []
    /// A boolean schema, or `{}`: nothing to check.
    var constant: Bool?
    /// The schema location, for error messages (`#/definitions/x/properties/y`).
    let location: String
    /// For references: the node they point to (set after compiling, which allows cycles).
    var target: SchemaNode?

    init(location: String) {
        self.location = location
    }
}

/// The JSON types a `type` keyword names.
struct TypeSet: OptionSet, Sendable {
    let rawValue: UInt8
    static let null = TypeSet(rawValue: 1)
    static let boolean = TypeSet(rawValue: 2)
    static let integer = TypeSet(rawValue: 4)
    static let number = TypeSet(rawValue: 8)
    static let string = TypeSet(rawValue: 16)
    static let array = TypeSet(rawValue: 32)
    static let object = TypeSet(rawValue: 64)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init?(name: String) {
        switch name {
        case "null": self = .null
        case "boolean": self = .boolean
        case "integer": self = .integer
        case "number": self = .number
        case "string": self = .string
        case "array": self = .array
        case "object": self = .object
        default: return nil
        }
    }

    func admits(_ v: Value) -> Bool {
        switch v {
        case .null: contains(.null)
        case .bool: contains(.boolean)
        case .int: contains(.integer) || contains(.number)
        case .double(let d): contains(.number) || (contains(.integer) && d.isFinite && d.rounded() == d)
        case .string: contains(.string)
        case .array: contains(.array)
        case .object: contains(.object)
        }
    }

    var names: [String] {
        var out: [String] = []
        for (t, n) in [(TypeSet.null, "null"), (.boolean, "boolean"), (.integer, "integer"), (.number, "number"),
                       (.string, "string"), (.array, "array"), (.object, "object")] where contains(t) {
            out.append(n)
        }
        return out
    }
}

/// A compiled regular expression (ECMA 262 syntax, as JSON Schema specifies, through ICU), with cheap
/// shortcuts for the literal prefix/suffix patterns XDM uses.
final class Pattern: @unchecked Sendable {
    enum Shortcut {
        case prefix([UInt8]), suffix([UInt8]), any
    }

    // Immutable after init; NSRegularExpression is thread-safe for matching.
    let source: String
    let regex: NSRegularExpression?
    let shortcut: Shortcut?

    init?(_ source: String) {
        self.source = source
        shortcut = Pattern.shortcut(source)
        if shortcut != nil {
            regex = nil
        } else {
            guard let r = try? NSRegularExpression(pattern: Pattern.translate(source), options: []) else { return nil }
            regex = r
        }
    }

    /// `^literal` or `literal$` with no metacharacters: a byte comparison instead of a regex run.
    static func shortcut(_ p: String) -> Shortcut? {
        let meta = Set("\\.^$|?*+()[]{}".utf8)
        if p.isEmpty { return .any }
        if p.hasPrefix("^"), !p.dropFirst().utf8.contains(where: meta.contains) { return .prefix(Array(p.dropFirst().utf8)) }
        if p.hasSuffix("$"), !p.dropLast().utf8.contains(where: meta.contains) { return .suffix(Array(p.dropLast().utf8)) }
        return nil
    }

    /// ECMA escapes ICU reads differently.
    static func translate(_ p: String) -> String {
        var s = p
        s = s.replacingAll("\\d", with: "[0-9]")
        s = s.replacingAll("\\D", with: "[^0-9]")
        s = s.replacingAll("\\w", with: "[A-Za-z0-9_]")
        s = s.replacingAll("\\W", with: "[^A-Za-z0-9_]")
        let space = "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"
        s = s.replacingAll("\\s", with: "[\(space)]")
        s = s.replacingAll("\\S", with: "[^\(space)]")
        return s
    }

    func matches(_ s: String) -> Bool {
        switch shortcut {
        case .any?: return true
        case .prefix(let b)?: return s.utf8.starts(with: b)
        case .suffix(let b)?: return s.utf8.reversed().starts(with: b.reversed())
        case nil:
            let ns = s as NSString
            return regex!.firstMatch(in: s, options: [], range: NSRange(location: 0, length: ns.length)) != nil
        }
    }
}

/// What a `format` keyword checks.
enum FormatKind: Sendable {
    case dateTime, date, time, email, hostname, ipv4, ipv6, uri, uriReference, uuid, regex, url, jsonPointer
}

/// One assertion of a compiled schema.
enum Check: @unchecked Sendable {
    case type(TypeSet)
    case enumeration([Value])
    case constant(Value)
    case multipleOf(Double)
    case maximum(Double, exclusive: Bool)
    case minimum(Double, exclusive: Bool)
    case maxLength(Int), minLength(Int)
    case pattern(Pattern)
    case items(SchemaNode)
    case tupleItems([SchemaNode], additional: SchemaNode?)
    case maxItems(Int), minItems(Int)
    case uniqueItems
    case contains(SchemaNode)
    case maxProperties(Int), minProperties(Int)
    case required([String])
    case properties([String: SchemaNode], patterns: [(Pattern, SchemaNode)], additional: SchemaNode?)
    case dependencies([(String, [String]?, SchemaNode?)])
    case propertyNames(SchemaNode)
    case conditional(SchemaNode, then: SchemaNode?, else: SchemaNode?)
    case allOf([SchemaNode]), anyOf([SchemaNode]), oneOf([SchemaNode])
    case not(SchemaNode)
    case format(FormatKind)
    case ref(SchemaNode)
}
