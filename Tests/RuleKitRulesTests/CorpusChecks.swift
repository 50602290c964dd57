import Foundation
import RuleKitCore

@testable import RuleKitRules

/// The corpus's assertion language (`checks`, `equals`, `type`, ...), evaluated against values.
enum CorpusChecks {
    static func at(_ root: Value?, _ path: [Value]) -> Value? {
        var cur = root
        for seg in path {
            guard let c = cur else { return nil }
            switch seg {
            case .string(let k): cur = c[k]
            case .int(let i): cur = c[Int(i)]
            default: return nil
            }
        }
        return cur
    }

    static func kindName(_ v: Value) -> String {
        switch v {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Deep equality: numbers by numeric value, strings never equal numbers.
    static func deepEquals(_ a: Value, _ b: Value) -> Bool { a.numericallyEquals(b) }

    /// Every failed assertion of `check` against `root`.
    static func failures(_ check: ValueObject, root: Value?, pathOverride: Value?? = nil) -> [String] {
        let path = check["path"]?.arrayValue ?? []
        let v = pathOverride ?? at(root, path)
        return assertions(check, v, label: JSONWriter.string(.array(path)))
    }

    static func assertions(_ check: ValueObject, _ v: Value?, label: String) -> [String] {
        var out: [String] = []
        func fail(_ s: String) { out.append("\(label): \(s) (got \(v.map { JSONWriter.string($0) } ?? "absent"))") }
        for (k, x) in check {
            switch k {
            case "path", "tolerance": break
            case "equals": if v == nil || !deepEquals(v!, x) { fail("expected \(JSONWriter.string(x))") }
            case "type": if v == nil || kindName(v!) != x.stringValue { fail("expected type \(x)") }
            case "notType": if let v, kindName(v) == x.stringValue { fail("expected not type \(x)") }
            case "absent": if v != nil { fail("expected absent") }
            case "present": if v == nil { fail("expected present") }
            case "isNull": if v != nil && v != .null { fail("expected no value") }
            case "count":
                let n: Int? =
                    switch v {
                    case .object(let o)?: o.count
                    case .array(let a)?: a.count
                    default: nil
                    }
                if n != x.intValue.map(Int.init) { fail("expected count \(x)") }
            case "startsWith": if v?.stringValue?.hasPrefix(x.stringValue ?? "\u{0}") != true { fail("expected prefix \(x)") }
            case "contains": if v?.stringValue?.contains(x.stringValue ?? "\u{0}") != true { fail("expected to contain \(x)") }
            case "notEquals": if let v, deepEquals(v, x) { fail("expected not \(x)") }
            case "oneOf": if v == nil || !(x.arrayValue ?? []).contains(where: { deepEquals(v!, $0) }) { fail("expected one of \(x)") }
            case "approx":
                let tol = check["tolerance"]?.numberValue ?? 1e-9
                if let a = v?.numberValue, let b = x.numberValue, abs(a - b) <= tol {} else { fail("expected ≈ \(x)") }
            case "jsonEquals":
                if let s = v?.stringValue, let parsed = try? JSONReader.value(s), deepEquals(parsed, x) {
                } else {
                    fail("expected JSON equal to \(x)")
                }
            case "intStringLessThan":
                if let s = v?.stringValue, let i = Int(s), i >= 0, i < Int(x.intValue ?? 0) {} else { fail("expected int string < \(x)") }
            case "matches":
                if let s = v?.stringValue, s.range(of: x.stringValue ?? "", options: .regularExpression) != nil {
                } else {
                    fail("expected to match \(x)")
                }
            case "percentDecodedPairs":
                out += pairs(x.objectValue ?? [:], v?.stringValue, label: label)
            default:
                out.append("\(label): unknown assertion '\(k)'")
            }
        }
        return out
    }

    static func pairs(_ spec: ValueObject, _ s: String?, label: String) -> [String] {
        guard let s else { return ["\(label): expected a query string"] }
        var map: [String: String] = [:]
        var count = 0
        for part in s.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let k = String(kv[0]).removingPercentEncoding ?? String(kv[0])
            let v = kv.count > 1 ? (String(kv[1]).removingPercentEncoding ?? String(kv[1])) : ""
            map[k] = v
            count += 1
        }
        var out: [String] = []
        if let c = spec["count"]?.intValue, c != count { out.append("\(label): \(count) pairs, expected \(c) in \(s)") }
        for (k, v) in spec["equals"]?.objectValue ?? [:] where map[k] != v.stringValue {
            out.append("\(label): pair \(k)=\(map[k] ?? "absent"), expected \(v)")
        }
        for k in spec["absentKeys"]?.arrayValue ?? [] where map[k.stringValue ?? ""] != nil {
            out.append("\(label): pair \(k) should be absent")
        }
        return out
    }
}
