import Foundation
import RuleKitCore
import Synchronization

@testable import RuleKitRules

/// Runs one case of `../shared/corpora/aep-rules` (format in its README) and returns what failed.
struct AEPRulesCorpus {
    let c: ValueObject

    var name: String { c["name"]?.stringValue ?? "?" }
    var kind: String { c["kind"]?.stringValue ?? "?" }

    static func plan(_ rules: Value) -> (CompiledRuleSet?, RulesLoadResult) {
        let result = LaunchRulesLoader.load(Document(value: rules))
        return (result.ruleSet.map { Planner().plan($0) }, result)
    }

    static func event(_ v: Value) -> Event {
        let o = v.objectValue ?? [:]
        var e = Event(
            name: o["name"]?.stringValue ?? "", type: o["type"]?.stringValue ?? "",
            source: o["source"]?.stringValue ?? "", data: o["data"]?.objectValue)
        if let m = o["mask"]?.arrayValue { e.mask = m.compactMap(\.stringValue) }
        return e
    }

    static func sharedStates(_ v: Value?) -> [String: ValueObject?] {
        var out: [String: ValueObject?] = [:]
        for (k, x) in v?.objectValue ?? [:] { out[k] = .some(x.objectValue) }
        return out
    }

    /// The shared states that have data, for the oracle.
    static func knownStates(_ v: Value?) -> [String: ValueObject] {
        sharedStates(v).compactMapValues { $0 }
    }

    static func historyResults(_ v: Value?, now: Date) -> [HistoryResult] {
        (v?.arrayValue ?? []).map { r in
            HistoryResult(
                count: Int(r["count"]?.intValue ?? 0), oldest: nil,
                newest: r["newestOffsetSeconds"]?.numberValue.map { now.addingTimeInterval($0) })
        }
    }

    func run() -> [String] {
        switch kind {
        case "engine":
            var e = EngineCase(c: c)
            return e.run()
        case "parse": return parse()
        case "condition": return condition()
        case "replaceToken": return replaceToken()
        case "merge": return merge()
        case "flatten": return flatten()
        case "transform": return transform()
        case "template": return template()
        case "tokenLookup": return tokenLookup()
        case "urlencode": return urlencode()
        case "historyOperand": return historyOperand()
        default: return ["unknown kind \(kind)"]
        }
    }

    func parse() -> [String] {
        let expect = c["expect"]?["parse"]?.objectValue ?? [:]
        var set: CompiledRuleSet?
        if let text = c["rulesText"]?.stringValue {
            if let doc = try? JSONReader.read(text) { set = Self.plan(doc.value).0 }
        } else {
            set = Self.plan(c["rules"] ?? .null).0
        }
        var out: [String] = []
        let ok = expect["ok"]?.boolValue ?? true
        if ok != (set != nil) { return ["parse ok \(set != nil), expected \(ok)"] }
        guard let set else { return [] }
        if let n = expect["ruleCount"]?.intValue, n != set.rules.count { out.append("ruleCount \(set.rules.count), expected \(n)") }
        for r in expect["rules"]?.arrayValue ?? [] {
            let i = Int(r["index"]?.intValue ?? 0)
            guard i < set.rules.count else {
                out.append("no rule \(i)")
                continue
            }
            let rule = set.rules[i]
            if let b = r["reevaluable"]?.boolValue, b != rule.reEvaluate { out.append("rule \(i) reevaluable \(rule.reEvaluate)") }
            if let b = r["hasReevaluableSupportedConsequence"]?.boolValue, b != rule.hasSchemaConsequence {
                out.append("rule \(i) schema consequence \(rule.hasSchemaConsequence)")
            }
            if let types = r["consequenceTypes"]?.arrayValue, types.compactMap(\.stringValue) != rule.consequences.map(\.type) {
                out.append("rule \(i) consequence types \(rule.consequences.map(\.type))")
            }
        }
        for chk in expect["conditionChecks"]?.arrayValue ?? [] {
            let i = Int(chk["rule"]?.intValue ?? 0)
            guard i < set.rules.count else {
                out.append("no rule \(i)")
                continue
            }
            var node = set.rules[i].condition
            var okPath = true
            for p in chk["path"]?.arrayValue ?? [] {
                let children: [PlannedCondition] =
                    switch node {
                    case .and(let cs), .or(let cs), .unknownLogic(_, let cs): cs
                    default: []
                    }
                guard let j = p.intValue.map(Int.init), j < children.count else {
                    okPath = false
                    break
                }
                node = children[j]
            }
            guard okPath else {
                out.append("no condition at \(chk["path"]!)")
                continue
            }
            if let logic = chk["logic"]?.stringValue {
                let got: String? =
                    switch node {
                    case .and: "and"
                    case .or: "or"
                    case .unknownLogic(let l, _): l
                    default: nil
                    }
                if got != logic { out.append("logic \(got ?? "none") at \(chk["path"]!), expected \(logic)") }
            }
            if let comparison = chk["comparison"]?.stringValue {
                switch node {
                case .comparison(_, let op, let operand):
                    if op.rawValue != comparison { out.append("comparison \(op.rawValue), expected \(comparison)") }
                    if let t = chk["rhsType"]?.stringValue, t != operand.typeName { out.append("rhs type \(operand.typeName)") }
                    if let rhs = chk["rhs"], rhs != operand.value { out.append("rhs \(operand.value)") }
                case .existence(_, let negated):
                    if (negated ? "notExist" : "exists") != comparison { out.append("existence, expected \(comparison)") }
                default: out.append("no comparison at \(chk["path"]!)")
                }
            }
        }
        return out
    }

    func condition() -> [String] {
        guard let set = Self.plan(c["rules"] ?? .null).0 else { return ["rules failed to parse"] }
        var out: [String] = []
        if let n = c["expect"]?["parsedRuleCount"]?.intValue, n != set.rules.count {
            out.append("parsed \(set.rules.count) rules, expected \(n)")
        }
        let i = Int(c["ruleIndex"]?.intValue ?? 0)
        guard i < set.rules.count else { return out + ["no rule \(i)"] }
        let runtime = MockRuntime(sharedStates: Self.sharedStates(c["sharedStates"]))
        let event = Self.event(c["event"] ?? .null)
        var r = Resolver(event: event, runtime: runtime)
        let got = Evaluator.matches(set, rule: i, &r)
        if let m = c["expect"]?["matches"]?.boolValue, m != got { out.append("matches \(got), expected \(m)") }
        if let taped = TapeEvents.taped(event) {
            var t = Resolver(event: taped, runtime: runtime)
            let fromTape = Evaluator.matches(set, rule: i, &t)
            if fromTape != got { out.append("matches \(fromTape) with the data in a tape, \(got) without") }
        }
        out += OracleCheck.disagreements(set, event, runtime: runtime, states: Self.knownStates(c["sharedStates"]))
        return out
    }

    func replaceToken() -> [String] {
        let loaded = LaunchRulesLoader.load(
            Document(value: [
                "version": 1,
                "rules": [
                    [
                        "condition": ["type": "matcher", "definition": ["key": "~type", "matcher": "ex"]],
                        "consequences": [c["consequence"] ?? .null],
                    ]
                ],
            ]))
        guard let set = loaded.ruleSet.map({ Planner().plan($0) }), let q = set.rules.first?.consequences.first else {
            return ["consequence did not load: \(loaded.diagnostics)"]
        }
        let runtime = MockRuntime(sharedStates: Self.sharedStates(c["sharedStates"]))
        var r = Resolver(event: Self.event(c["event"] ?? .null), runtime: runtime)
        let rendered = Evaluator.render(q, &r).value
        return (c["expect"]?["checks"]?.arrayValue ?? []).flatMap {
            CorpusChecks.failures($0.objectValue ?? [:], root: rendered)
        }
    }

    func merge() -> [String] {
        let result = Value.object(
            EventDataMerge.merge(
                to: c["to"]?.objectValue ?? [:], from: c["from"]?.objectValue ?? [:],
                overwrite: c["overwrite"]?.boolValue ?? false))
        var out = (c["expect"]?["checks"]?.arrayValue ?? []).flatMap {
            CorpusChecks.failures($0.objectValue ?? [:], root: result)
        }
        if let exact = c["expect"]?["result"], !CorpusChecks.deepEquals(exact, result) {
            out.append("result \(result), expected \(exact)")
        }
        return out
    }

    func flatten() -> [String] {
        let arrays = c["flattenArrays"]?.boolValue ?? true
        let flat: ValueObject =
            switch c["input"] {
            case .array(let a)?: Flatten.array(a, arrays: arrays)
            case .object(let o)?: Flatten.object(o, arrays: arrays)
            default: [:]
            }
        var out: [String] = []
        if let exact = c["expect"]?["result"], !CorpusChecks.deepEquals(exact, .object(flat)) {
            out.append("result \(Value.object(flat)), expected \(exact)")
        }
        for chk in c["expect"]?["checks"]?.arrayValue ?? [] {
            // Paths address keys of the flat map: one segment each, or [] for the map itself.
            let target: Value? = chk["path"]?[0]?.stringValue.map { flat[$0] } ?? .object(flat)
            out += CorpusChecks.failures(chk.objectValue ?? [:], root: nil, pathOverride: target)
        }
        return out
    }

    func transform() -> [String] {
        let f = Template.Function(name: c["function"]?.stringValue ?? "")
        let result = Conversion.apply(f, to: c["input"] ?? .null)
        return CorpusChecks.assertions(c["expect"]?.objectValue ?? [:], result, label: "result")
    }

    func template() -> [String] {
        let delimiters = c["delimiters"]?.arrayValue?.compactMap(\.stringValue) ?? ["{%", "%}"]
        let t = Template.parse(c["template"]?.stringValue ?? "", open: delimiters[0], close: delimiters[1])
        let data = c["data"]?.objectValue ?? [:]
        let noFunctions = c["transformers"]?.stringValue == "none"
        var rendered = ""
        if !t.unclosed {
            for s in t.segments {
                switch s {
                case .text(let x): rendered += x
                case .token(let tok):
                    var v = data[tok.rawKey]
                    if let f = tok.function, !noFunctions { v = Conversion.apply(f, to: v ?? .string("")) }
                    if let v { rendered += SwiftDescription.describe(v) }
                }
            }
        }
        var out: [String] = []
        if let e = c["expect"]?["equals"]?.stringValue, e != rendered { out.append("rendered \"\(rendered)\", expected \"\(e)\"") }
        if let n = c["expect"]?["segmentCount"]?.intValue, Int(n) != t.segments.count {
            out.append("\(t.segments.count) segments, expected \(n)")
        }
        return out
    }

    func tokenLookup() -> [String] {
        let runtime = MockRuntime(sharedStates: Self.sharedStates(c["sharedStates"]))
        var r = Resolver(event: Self.event(c["event"] ?? .null), runtime: runtime)
        if let keys = c["keys"]?.arrayValue?.compactMap(\.stringValue) {
            var out: [String] = []
            var seconds: [Int] = []
            for k in keys {
                let v = r.resolve(KeyRef.parse(k))
                out += CorpusChecks.assertions(c["expect"]?[k]?.objectValue ?? [:], v, label: k)
                switch v {
                case .int(let i)?: seconds.append(Int(i))
                case .string(let s)?:
                    let f = DateFormatter()
                    f.locale = Locale(identifier: "en_US_POSIX")
                    f.dateFormat = s.hasSuffix("Z") && s.contains(".") ? "yyyy-MM-dd'T'HH:mm:ss.SSSX" : "yyyy-MM-dd'T'HH:mm:ssXX"
                    if let d = f.date(from: s) {
                        seconds.append(Int(d.timeIntervalSince1970))
                    } else {
                        out.append("\(k): unparseable \(s)")
                    }
                default: break
                }
            }
            if c["expect"]?["sameSecond"]?.boolValue == true, Set(seconds).count > 1 { out.append("not the same second: \(seconds)") }
            return out
        }
        let v = r.resolve(KeyRef.parse(c["key"]?.stringValue ?? ""))
        return CorpusChecks.assertions(c["expect"]?.objectValue ?? [:], v, label: c["key"]?.stringValue ?? "")
    }

    func urlencode() -> [String] {
        let got = URLEncoding.urlenc(c["input"]?.stringValue ?? "")
        if let e = c["expect"]?["equals"]?.stringValue, e != got { return ["\(got), expected \(e)"] }
        return []
    }

    func historyOperand() -> [String] {
        let results = Self.historyResults(c["results"], now: Date())
        let search = SearchType(rawValue: c["searchType"]?.stringValue ?? "any") ?? .any
        let got =
            c["function"]?.stringValue == "mostRecent"
            ? HistoryOperand.mostRecent(results) : HistoryOperand.count(results, searchType: search)
        if let e = c["expect"]?["value"]?.intValue, Int(e) != got { return ["operand \(got), expected \(e)"] }
        return []
    }
}
