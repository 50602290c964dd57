import Foundation
import RuleKitCore

@testable import RuleKitRules

/// An independent oracle for condition evaluation, written the way the reference works
/// (`launch-rules-reference.md` §2–3) and sharing no lookup, conversion or comparison code with `Sources/`:
/// the event data is flattened into a dictionary of dotted keys, the key is looked up there, the value is
/// converted by the operand's type, and strings are compared through `lowercased()`. It is slow and
/// plain on purpose; the interpreter's fast paths are checked against it.
///
/// It reads the planner's output (which conditions the reference's parser keeps, each matcher value as an
/// operand) — planning is once-per-load code with its own corpus cases; what the oracle checks is what
/// runs per event.
struct ReferenceOracle {
    var event: Event
    var states: [String: ValueObject] = [:]
    var xdmStates: [String: ValueObject] = [:]
    /// Answers history searches (the same store the interpreter's runtime has).
    var history: ([HistoryRequest], Bool) -> [HistoryResult] = { r, _ in r.map { _ in HistoryResult(count: -1) } }
    var now = Date()
    var sdkVersion = RuleKitVersion.current

    /// Whether `c` holds for the event.
    func matches(_ c: PlannedCondition) -> Bool {
        switch c {
        case .and(let cs): return cs.allSatisfy(matches)
        case .or(let cs): return cs.contains(where: matches)
        case .unknownLogic: return false
        case .existence(let key, let negated): return (lookup(key.ref) != nil) != negated
        case .comparison(let key, let op, let operand): return compare(lookup(key.ref) ?? .string(""), op, operand)
        case .historical(let h): return Self.intCompare(historyOperand(h), h.operation, Int(h.value))
        }
    }

    // MARK: lookup (§3)

    /// The flattened event data, as the reference's `flattening()` builds it: only leaves, arrays as
    /// numeric segments. On a collision the path reached through plain (undotted) keys wins, RuleKit's
    /// documented choice where the reference's is unspecified.
    static func flatten(_ o: ValueObject) -> [String: Value] {
        var out: [String: (Value, [Int])] = [:]
        func add(_ v: Value, _ path: String?, _ shape: [Int]) {
            switch v {
            case .object(let o):
                for (k, x) in o {
                    add(x, path.map { $0 + "." + k } ?? k, shape + [k.split(separator: ".", omittingEmptySubsequences: false).count])
                }
            case .array(let a):
                for (i, x) in a.enumerated() { add(x, path.map { $0 + ".\(i)" } ?? "\(i)", shape + [1]) }
            default:
                guard let path else { return }
                if let (_, old) = out[path], old.lexicographicallyPrecedes(shape) { return }
                out[path] = (v, shape)
            }
        }
        add(.object(o), nil, [])
        return out.mapValues(\.0)
    }

    func lookup(_ key: KeyRef) -> Value? {
        switch key {
        case .type: return .string(event.type)
        case .source: return .string(event.source)
        case .timestampU: return .int(Int64(now.timeIntervalSince1970.rounded(.down)))
        case .timestampZ: return .string(Self.format(now, "yyyy-MM-dd'T'HH:mm:ssXX", .current))
        case .timestampP: return .string(Self.format(now, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", TimeZone(identifier: "UTC")!))
        case .sdkVersion: return .string(sdkVersion)
        case .cacheBust: return .string(String(Int.random(in: 1..<100_000_000)))
        case .allURL: return .string(event.data.map(Self.allURL) ?? "")
        case .allJSON:
            guard let data = event.data, let text = try? JSONSerialization.data(withJSONObject: Self.foundation(.object(data)))
            else { return .string("") }
            return .string(String(decoding: text, as: UTF8.self))
        case .nothing: return nil
        case .state(let ext, let path): return Self.state(ext, in: states).flatMap { Self.flatten($0)[path.raw] }
        case .xdm(let ext, let path): return Self.state(ext, in: xdmStates).flatMap { Self.flatten($0)[path.raw] }
        case .data(let path):
            guard let data = event.data else { return .string("") }
            return Self.flatten(data)[path.raw]
        }
    }

    /// `~all_url`: objects flattened (arrays not: their elements joined with ","), each `key=value` pair
    /// percent-encoded whole with the URL-query set, pairs joined with "&".
    static func allURL(_ o: ValueObject) -> String {
        var pairs: [String] = []
        func add(_ v: Value, _ path: String) {
            switch v {
            case .object(let o): for (k, x) in o { add(x, path.isEmpty ? k : path + "." + k) }
            case .array(let a): pairs.append(encode(path + "=" + a.map(string).joined(separator: ",")))
            default: pairs.append(encode(path + "=" + string(v)))
            }
        }
        add(.object(o), "")
        return pairs.joined(separator: "&")
    }

    static func encode(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? s }

    static func foundation(_ v: Value) -> Any {
        switch v {
        case .null: NSNull()
        case .bool(let b): b
        case .int(let i): i
        case .double(let d): d
        case .string(let s): s
        case .array(let a): a.map(foundation)
        case .object(let o): Dictionary(o.map { ($0.key, foundation($0.value)) }, uniquingKeysWith: { $1 })
        }
    }

    /// The state of that extension; names compare case-insensitively, as the hub's do.
    static func state(_ name: String, in states: [String: ValueObject]) -> ValueObject? {
        states[name] ?? states.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    static func format(_ d: Date, _ pattern: String, _ zone: TimeZone) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = pattern
        return f.string(from: d)
    }

    // MARK: conversions (§2.3's table)

    static func string(_ v: Value) -> String {
        switch v {
        case .string(let s): s
        case .int(let i): "\(i)"
        case .double(let d): "\(d)"
        case .bool(let b): b ? "true" : "false"
        case .null: "<null>"
        case .array, .object: "\(v)"
        }
    }

    static func int(_ v: Value) -> Int? {
        switch v {
        case .string(let s): Int(s)
        case .int(let i): Int(i)
        case .double(let d): d.isFinite && d > -9.3e18 && d < 9.3e18 ? Int(d) : nil
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }

    static func double(_ v: Value) -> Double? {
        switch v {
        case .string(let s): Double(s)
        case .int(let i): Double(i)
        case .double(let d): d
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }

    static func bool(_ v: Value) -> Bool {
        switch v {
        case .string(let s): s.lowercased() == "true"
        case .int(let i): i == 1
        case .double(let d): d == 1
        case .bool(let b): b
        default: false
        }
    }

    // MARK: comparisons (§2.3: operators per type, strings case-insensitive)

    func compare(_ lhs: Value, _ op: RuleKitRules.Operation, _ operand: Operand) -> Bool {
        switch operand {
        case .string(let s, _):
            let l = Self.string(lhs).lowercased()
            let r = s.lowercased()
            switch op {
            case .equals: return l == r
            case .notEquals: return l != r
            case .contains: return r.isEmpty || l.contains(r)
            case .notContains: return !(r.isEmpty || l.contains(r))
            case .startsWith: return l.hasPrefix(r)
            case .endsWith: return l.hasSuffix(r)
            default: return false
            }
        case .int(let i):
            guard let l = Self.int(lhs) else { return false }
            return Self.intCompare(l, op, Int(i))
        case .double(let d):
            guard let l = Self.double(lhs) else { return false }
            switch op {
            case .equals: return l == d
            case .notEquals: return l != d
            case .greaterThan: return l > d
            case .greaterEqual: return l >= d
            case .lessThan: return l < d
            case .lessEqual: return l <= d
            default: return false
            }
        case .bool(let b):
            let l = Self.bool(lhs)
            switch op {
            case .equals: return l == b
            case .notEquals: return l != b
            default: return false
            }
        }
    }

    static func intCompare(_ l: Int, _ op: RuleKitRules.Operation, _ r: Int) -> Bool {
        switch op {
        case .equals: l == r
        case .notEquals: l != r
        case .greaterThan: l > r
        case .greaterEqual: l >= r
        case .lessThan: l < r
        case .lessEqual: l <= r
        default: false
        }
    }

    // MARK: history (§2.4)

    func historyOperand(_ h: PlannedCondition.Historical) -> Int {
        let window = (
            h.from.map { Date(timeIntervalSince1970: Double($0) / 1000) }, h.to.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        )
        let requests = h.masks.map { mask in
            HistoryRequest(
                mask: ValueObject(Self.flatten(mask).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }), from: window.0, to: window.1)
        }
        let results = history(requests, h.searchType == .ordered)
        if results.contains(where: { $0.count < 0 }) { return -1 }
        switch h.searchType {
        case .any: return results.reduce(0) { $0 + $1.count }
        case .ordered: return results.allSatisfy { $0.count > 0 } ? 1 : 0
        case .mostRecent:
            var best: (index: Int, date: Date)?
            for (i, r) in results.enumerated() {
                if let d = r.newest, best.map({ d > $0.date }) ?? true { best = (i, d) }
            }
            return best?.index ?? -1
        }
    }
}

/// Compares the interpreter (rule by rule, through the index, and traced) with the oracle.
enum OracleCheck {
    /// Every disagreement for `event`, each with both answers; empty when they agree.
    static func disagreements(
        _ set: CompiledRuleSet, _ event: Event, runtime: any RulesRuntime, states: [String: ValueObject] = [:],
        xdmStates: [String: ValueObject] = [:]
    ) -> [String] {
        var oracle = ReferenceOracle(event: event, states: states, xdmStates: xdmStates)
        oracle.history = { runtime.queryHistory($0, enforceOrder: $1) }
        oracle.now = runtime.now()
        oracle.sdkVersion = runtime.sdkVersion
        var out: [String] = []
        var r = Resolver(event: event, runtime: runtime, slotCount: set.slotCount)
        let indexed = Set(Evaluator.matchingRules(set, &r).map(\.index))
        for rule in set.rules {
            r.reset(event: event)
            let interpreted = Evaluator.matches(set, rule: rule.index, &r)
            r.reset(event: event)
            let traced = Evaluator.trace(set, rule: rule.index, &r).result
            let expected = oracle.matches(rule.condition)
            if interpreted != expected || traced != expected || indexed.contains(rule.index) != expected {
                out.append(
                    "rule \(rule.label) on \(event.data.map { JSONWriter.string(.object($0)) } ?? "no data") (type \(event.type)): "
                        + "oracle \(expected), interpreter \(interpreted), trace \(traced), index \(indexed.contains(rule.index))")
            }
        }
        return out
    }
}
