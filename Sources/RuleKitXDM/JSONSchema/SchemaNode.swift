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

/// A compiled regular expression (ECMA 262 syntax, as JSON Schema specifies, through ICU). Patterns
/// made only of literals, `.*` and `.+` with optional anchors — XDM's `@context` namespace guard is 40
/// of them, applied to every key — are matched as globs on bytes instead of running a regex.
final class Pattern: @unchecked Sendable {
    enum Piece: Equatable {
        case literal([UInt8])
        case any(min: Int)
    }

    struct Glob {
        var anchoredStart: Bool
        var anchoredEnd: Bool
        var pieces: [Piece]
    }

    // Immutable after init; NSRegularExpression is thread-safe for matching.
    let source: String
    let regex: NSRegularExpression?
    let glob: Glob?

    init?(_ source: String) {
        self.source = source
        glob = Pattern.glob(source)
        if glob != nil {
            regex = nil
        } else {
            guard let r = try? NSRegularExpression(pattern: Pattern.translate(source), options: []) else { return nil }
            regex = r
        }
    }

    /// Parses a pattern of literals, escaped literals, `.*` and `.+`, or nil.
    static func glob(_ p: String) -> Glob? {
        var b = Array(p.utf8)[...]
        var g = Glob(anchoredStart: false, anchoredEnd: false, pieces: [])
        if b.first == UInt8(ascii: "^") { g.anchoredStart = true; b = b.dropFirst() }
        if b.last == UInt8(ascii: "$"), !(b.count >= 2 && b[b.endIndex - 2] == UInt8(ascii: "\\")) {
            g.anchoredEnd = true
            b = b.dropLast()
        }
        let meta = Set("\\.^$|?*+()[]{}".utf8)
        var lit: [UInt8] = []
        func flush() {
            if !lit.isEmpty { g.pieces.append(.literal(lit)); lit = [] }
        }
        while let c = b.first {
            b = b.dropFirst()
            if c == UInt8(ascii: "\\") {
                guard let n = b.first, meta.contains(n) || n == UInt8(ascii: "/") || n == UInt8(ascii: "-") else { return nil }
                lit.append(n)
                b = b.dropFirst()
            } else if c == UInt8(ascii: ".") {
                guard let n = b.first, n == UInt8(ascii: "*") || n == UInt8(ascii: "+") else { return nil }
                flush()
                g.pieces.append(.any(min: n == UInt8(ascii: "+") ? 1 : 0))
                b = b.dropFirst()
            } else if meta.contains(c) {
                return nil
            } else {
                lit.append(c)
            }
        }
        flush()
        return g
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
        if let glob {
            // '.' does not match line terminators in ECMA regexes.
            if glob.pieces.contains(where: { if case .any = $0 { true } else { false } }),
               s.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) || s.contains("\u{2028}") || s.contains("\u{2029}") {
                return regexFallback(s)
            }
            return Pattern.match(glob, Array(s.utf8)[...])
        }
        let ns = s as NSString
        return regex!.firstMatch(in: s, options: [], range: NSRange(location: 0, length: ns.length)) != nil
    }

    private func regexFallback(_ s: String) -> Bool {
        guard let r = try? NSRegularExpression(pattern: Pattern.translate(source)) else { return false }
        return r.firstMatch(in: s, options: [], range: NSRange(location: 0, length: (s as NSString).length)) != nil
    }

    /// Glob matching on bytes: literals in order, gaps of at least `min` characters between them.
    static func match(_ g: Glob, _ text: ArraySlice<UInt8>) -> Bool {
        var pieces = g.pieces[...]
        var t = text
        // Leading literal with ^: must be a prefix.
        if g.anchoredStart, case .literal(let l)? = pieces.first {
            guard t.starts(with: l) else { return false }
            t = t.dropFirst(l.count)
            pieces = pieces.dropFirst()
        }
        // Trailing literal with $: must be a suffix.
        var tailLiteral: [UInt8]?
        if g.anchoredEnd, case .literal(let l)? = pieces.last {
            tailLiteral = l
            pieces = pieces.dropLast()
        }
        var gapMin = 0
        var gapOpen = !g.anchoredStart
        for p in pieces {
            switch p {
            case .any(let m):
                gapMin += m
                gapOpen = true
            case .literal(let l):
                if !gapOpen {
                    guard t.starts(with: l) else { return false }
                    t = t.dropFirst(l.count)
                } else {
                    guard let at = find(l, in: t, from: gapMin) else { return false }
                    t = t[(at + l.count)...]
                }
                gapMin = 0
                gapOpen = false
            }
        }
        if let tail = tailLiteral {
            guard t.count >= tail.count + gapMin else { return false }
            if !gapOpen { return t.elementsEqual(tail) }
            return t.suffix(tail.count).elementsEqual(tail)
        }
        if g.anchoredEnd && !gapOpen { return t.isEmpty }
        return t.count >= gapMin
    }

    static func find(_ l: [UInt8], in t: ArraySlice<UInt8>, from minOffset: Int) -> Int? {
        guard t.count >= l.count + minOffset else { return nil }
        var i = t.startIndex + minOffset
        while i + l.count <= t.endIndex {
            if t[i..<(i + l.count)].elementsEqual(l) { return i }
            i += 1
        }
        return nil
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
