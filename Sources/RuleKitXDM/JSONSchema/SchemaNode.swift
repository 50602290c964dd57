internal import Foundation
internal import RuleKitCore

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
    /// How many references point at this node; only shared targets are worth memoizing.
    var referenceCount = 0

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

    func admits<I: ValidationInstance>(_ v: I) -> Bool {
        switch v.kind {
        case .null: contains(.null)
        case .bool: contains(.boolean)
        case .int: contains(.integer) || contains(.number)
        case .double: contains(.number) || (contains(.integer) && v.number.map { $0.isFinite && $0.rounded() == $0 } == true)
        case .string: contains(.string)
        case .array: contains(.array)
        case .object: contains(.object)
        }
    }

    var names: [String] {
        var out: [String] = []
        for (t, n) in [
            (TypeSet.null, "null"), (.boolean, "boolean"), (.integer, "integer"), (.number, "number"),
            (.string, "string"), (.array, "array"), (.object, "object"),
        ] where contains(t) {
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

    /// `^[class]{n,m}$` with an ASCII class (XDM's currency codes, `^[A-Z]{3}$`): a byte-set test and a
    /// length check instead of a regex.
    struct ClassRun {
        var allowed: [Bool]
        var min: Int
        var max: Int
    }

    // Immutable after init; NSRegularExpression is thread-safe for matching.
    let source: String
    let regex: NSRegularExpression?
    let glob: Glob?
    let classRun: ClassRun?
    let hasWildcard: Bool
    let alwaysMatches: Bool
    private let verdicts = Locked<[String: Bool]>([:])

    /// For `^literal`, `^literal.*` and `^literal.*$`: the literal. Such a pattern matches the keys that
    /// start with it (for the `.*` forms, only when the rest has no line terminator: callers re-check
    /// those rare keys with `matches`).
    var literalPrefix: [UInt8]? {
        guard let g = glob, g.anchoredStart, case .literal(let l)? = g.pieces.first else { return nil }
        let rest = g.pieces.dropFirst()
        if rest.isEmpty && !g.anchoredEnd { return l }
        if rest.count == 1, case .any(min: 0) = rest.first! { return l }
        return nil
    }

    init?(_ source: String) {
        self.source = source
        glob = Pattern.glob(source)
        classRun = glob == nil ? Pattern.classRun(source) : nil
        hasWildcard = glob?.pieces.contains { if case .any = $0 { true } else { false } } ?? false
        if glob != nil || classRun != nil {
            regex = nil
            alwaysMatches = false
        } else {
            guard source.utf8.count <= Pattern.maxSourceLength,
                let r = try? NSRegularExpression(pattern: Pattern.translate(source), options: [])
            else { return nil }
            regex = r
            alwaysMatches = Pattern.matchesEverything(source, r)
        }
    }

    /// Parses a pattern of literals, escaped literals, `.*` and `.+`, or nil.
    static func glob(_ p: String) -> Glob? {
        var b = Array(p.utf8)[...]
        var g = Glob(anchoredStart: false, anchoredEnd: false, pieces: [])
        if b.first == UInt8(ascii: "^") {
            g.anchoredStart = true
            b = b.dropFirst()
        }
        if b.last == UInt8(ascii: "$"), !(b.count >= 2 && b[b.endIndex - 2] == UInt8(ascii: "\\")) {
            g.anchoredEnd = true
            b = b.dropLast()
        }
        let meta = Set("\\.^$|?*+()[]{}".utf8)
        var lit: [UInt8] = []
        func flush() {
            if !lit.isEmpty {
                g.pieces.append(.literal(lit))
                lit = []
            }
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
        s = s.replacingScalars("\\d", with: "[0-9]")
        s = s.replacingScalars("\\D", with: "[^0-9]")
        s = s.replacingScalars("\\w", with: "[A-Za-z0-9_]")
        s = s.replacingScalars("\\W", with: "[^A-Za-z0-9_]")
        let space = "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"
        s = s.replacingScalars("\\s", with: "[\(space)]")
        s = s.replacingScalars("\\S", with: "[^\(space)]")
        return s
    }

    /// Parses `^[...]{n}$`, `^[...]{n,m}$`, `^[...]+$` or `^[...]*$` where the class holds only ASCII letters,
    /// digits and ranges of them (no escapes, no negation), or nil.
    static func classRun(_ p: String) -> ClassRun? {
        let b = Array(p.utf8)
        guard b.count >= 5, b.first == 0x5E, b.last == 0x24, b[1] == 0x5B, let close = b.firstIndex(of: 0x5D) else { return nil }
        func plain(_ c: UInt8) -> Bool { (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) }
        var allowed = [Bool](repeating: false, count: 128)
        var i = 2
        guard i < close else { return nil }
        while i < close {
            guard plain(b[i]) else { return nil }
            if i + 2 < close && b[i + 1] == 0x2D {
                guard plain(b[i + 2]), b[i] <= b[i + 2] else { return nil }
                for c in b[i]...b[i + 2] { allowed[Int(c)] = true }
                i += 3
            } else {
                allowed[Int(b[i])] = true
                i += 1
            }
        }
        let q = Array(b[(close + 1)..<(b.count - 1)])
        switch q {
        case [0x2B]: return ClassRun(allowed: allowed, min: 1, max: Int.max)
        case [0x2A]: return ClassRun(allowed: allowed, min: 0, max: Int.max)
        default:
            guard q.count >= 3, q.first == 0x7B, q.last == 0x7D else { return nil }
            let inner = String(decoding: q.dropFirst().dropLast(), as: UTF8.self)
            let parts = inner.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= 2, let lo = Int(parts[0]) else { return nil }
            let hi = parts.count == 1 ? lo : (parts[1].isEmpty ? Int.max : Int(parts[1]))
            guard let hi, lo <= hi else { return nil }
            return ClassRun(allowed: allowed, min: lo, max: hi)
        }
    }

    func matches(_ s: String) -> Bool {
        if let r = classRun {
            // Every character must be in the (ASCII) class, so characters and bytes count alike.
            let n = s.utf8.count
            return n >= r.min && n <= r.max && s.utf8.allSatisfy { $0 < 128 && r.allowed[Int($0)] }
        }
        if glob != nil { return matches(PatternSubject(s)) }
        if alwaysMatches { return true }
        // Payload values repeat (language tags, region codes): a regex verdict is remembered per string.
        if s.utf8.count <= 64, let known = verdicts.withLock({ $0[s] }) { return known }
        guard let regex else { return false }
        let ok = Pattern.boundedSearch(regex, s)
        if s.utf8.count <= 64 {
            verdicts.withLock { if $0.count < Pattern.verdictCap { $0[s] = ok } }
        }
        return ok
    }

    /// Bound on remembered verdicts per pattern (memory stays small whatever the input).
    static let verdictCap = 4096

    /// An unanchored pattern without assertions that matches the empty string matches every string
    /// (search finds the empty match at offset 0): `([A-Z]{2}-[A-Z0-9]{1,3}|)` in XDM's geo schema.
    static func matchesEverything(_ source: String, _ regex: NSRegularExpression) -> Bool {
        guard !source.utf8.contains(where: { $0 == 0x5E || $0 == 0x24 || $0 == 0x5C }), !source.contains("(?") else {
            return false
        }
        return regex.firstMatch(in: "", options: [], range: NSRange(location: 0, length: 0)) != nil
    }

    /// Matching against a subject prepared once (a property name tried against many patterns).
    func matches(_ subject: PatternSubject) -> Bool {
        guard let glob else { return matches(subject.text) }
        // '.' does not match line terminators in ECMA regexes.
        if hasWildcard, subject.hasLineTerminator { return regexFallback(subject.text) }
        return Pattern.match(glob, subject.text)
    }

    /// LF, CR, U+2028 or U+2029 (E2 80 A8/A9), which '.' does not match.
    static func hasLineTerminator(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { hasLineTerminator($0) }
    }

    private func regexFallback(_ s: String) -> Bool {
        guard let r = try? NSRegularExpression(pattern: Pattern.translate(source)) else { return false }
        return Pattern.boundedSearch(r, s)
    }

    /// Longest pattern compiled, in bytes: a schema's regex is user input too.
    static let maxSourceLength = 4096

    /// How many progress reports a search may take. ICU backtracks, so `^(a+)+$` against thirty `a`s and
    /// a `b` runs for minutes; it reports progress every few thousand steps (about 140 µs here), so
    /// this bounds one search to some 30 ms. A search stopped by the budget counts as no match: the
    /// value fails its `pattern` (fail closed), and the verdict is the same on every run.
    static let maxProgressReports = 200

    /// Whether `regex` finds a match in `s`, within the step budget.
    static func boundedSearch(_ regex: NSRegularExpression, _ s: String) -> Bool {
        var found = false
        var reports = 0
        regex.enumerateMatches(
            in: s, options: [.reportProgress],
            range: NSRange(location: 0, length: (s as NSString).length)
        ) { match, _, stop in
            if match != nil {
                found = true
                stop.pointee = true
                return
            }
            reports += 1
            if reports > maxProgressReports { stop.pointee = true }
        }
        return found
    }
}

/// A string prepared for matching against several patterns: its bytes and whether it has a line
/// terminator, computed once.
struct PatternSubject {
    let text: String
    let hasLineTerminator: Bool

    init(_ text: String) {
        self.text = text
        hasLineTerminator = Pattern.hasLineTerminator(text)
    }
}

/// What a `format` keyword checks.
enum FormatKind: String, Sendable {
    case dateTime = "date-time"
    case date, time, email, hostname, ipv4, ipv6, uri
    case uriReference = "uri-reference"
    case uuid, regex
    case url
    case jsonPointer = "json-pointer"
}

/// Payloads of the checks that carry more than one reference, boxed so that walking a node's checks
/// costs one retain per check (the validator's hot loop).
final class Box<T>: @unchecked Sendable {
    // Immutable after compile.
    let value: T
    init(_ value: T) { self.value = value }
}

struct PropertiesInfo {
    var byName: NameTable
    var byNameEntries: [(String, SchemaNode)] { byName.entries }
    var patterns: [(Pattern, SchemaNode)]
    var additional: SchemaNode?
    /// `^literal.*` patterns in a byte trie: one walk over a key finds every one it matches. XDM's
    /// `@context` guard is 36 such namespace prefixes, tried on every key of every extensible object.
    var prefixes: PrefixTrie
    /// The patterns the trie does not cover, by index into `patterns`.
    var others: [Int]
    /// For each of `others`: the ASCII bytes every match must contain (those of a glob's literals, as a
    /// 128-bit set), so keys without them skip the pattern (`@type`, `@.*`, `.+://.+` on ordinary names).
    var othersNeed: [(UInt64, UInt64)]

    init(byName: [String: SchemaNode], patterns: [(Pattern, SchemaNode)], additional: SchemaNode?) {
        self.byName = NameTable(byName)
        self.patterns = patterns
        self.additional = additional
        var trie = PrefixTrie()
        var others: [Int] = []
        for (i, (p, _)) in patterns.enumerated() {
            if let lit = p.literalPrefix, lit.allSatisfy({ $0 < 128 }) { trie.insert(lit, i) } else { others.append(i) }
        }
        prefixes = trie
        self.others = others
        othersNeed = others.map { i in
            var need = (UInt64(0), UInt64(0))
            guard let g = patterns[i].0.glob else { return need }
            for piece in g.pieces {
                guard case .literal(let l) = piece else { continue }
                for b in l where b < 128 {
                    if b < 64 { need.0 |= 1 << UInt64(b) } else { need.1 |= 1 << UInt64(b - 64) }
                }
            }
            return need
        }
    }
}

struct TupleInfo {
    var items: [SchemaNode]
    var additional: SchemaNode?
}

struct ConditionalInfo {
    var condition: SchemaNode
    var then: SchemaNode?
    var otherwise: SchemaNode?
}

/// One assertion of a compiled schema.
enum Check: @unchecked Sendable {
    case type(TypeSet)
    case enumeration(Box<[Value]>)
    case constant(Box<Value>)
    case multipleOf(Double)
    case maximum(Double, exclusive: Bool)
    case minimum(Double, exclusive: Bool)
    case maxLength(Int)
    case minLength(Int)
    case pattern(Pattern)
    case items(SchemaNode)
    case tupleItems(Box<TupleInfo>)
    case maxItems(Int)
    case minItems(Int)
    case uniqueItems
    case contains(SchemaNode)
    case maxProperties(Int)
    case minProperties(Int)
    case required(Box<[String]>)
    case properties(Box<PropertiesInfo>)
    case dependencies(Box<[(String, [String]?, SchemaNode?)]>)
    case propertyNames(SchemaNode)
    case conditional(Box<ConditionalInfo>)
    case allOf(Box<[SchemaNode]>)
    case anyOf(Box<[SchemaNode]>)
    case oneOf(Box<[SchemaNode]>)
    case not(SchemaNode)
    case format(FormatKind)
    case ref(SchemaNode)
}
