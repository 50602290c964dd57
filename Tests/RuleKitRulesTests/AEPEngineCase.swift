import Foundation
import RuleKitCore

@testable import RuleKitRules

/// A mock reevaluation interceptor: completes at once with a fixed answer, or keeps the completion.
final class MockInterceptor: RuleReevaluationInterceptor {
    let completeImmediately: Bool
    let success: Bool
    struct Seen {
        var called = false
        var ruleCount = 0
        var firstRuleConsequenceCount = 0
        var event: Event?
    }
    let seen = Locked(Seen())

    init(completeImmediately: Bool, success: Bool) {
        self.completeImmediately = completeImmediately
        self.success = success
    }

    func onReevaluationTriggered(
        event: Event, reevaluableRules: [PlannedRule],
        completion: @escaping @Sendable (Bool) -> Void
    ) {
        seen.withLock {
            $0.called = true
            $0.ruleCount = reevaluableRules.count
            $0.firstRuleConsequenceCount = reevaluableRules.first?.consequences.count ?? 0
            $0.event = event
        }
        if completeImmediately { completion(success) }
    }
}

/// An `engine` case of the aep-rules corpus (shape A: events + expect; shape B: steps).
struct EngineCase {
    let c: ValueObject
    let runtime: MockRuntime
    let engine: RulesEngine
    var interceptors: [String: MockInterceptor] = [:]
    var labels: [String: Event] = [:]
    var failures: [String] = []

    init(c: ValueObject) {
        self.c = c
        runtime = MockRuntime(sharedStates: AEPRulesCorpus.sharedStates(c["sharedStates"]))
        engine = RulesEngine(runtime: runtime)
        if let h = c["mockEventHistory"] {
            let results = AEPRulesCorpus.historyResults(h["results"], now: Date())
            let record = h["recordResult"]?.boolValue ?? true
            runtime.state.withLock {
                $0.historyResults = results
                $0.recordResult = record
            }
        }
    }

    func compile(_ rules: Value) -> CompiledRuleSet {
        AEPRulesCorpus.plan(rules).0 ?? .empty
    }

    mutating func run() -> [String] {
        for (id, spec) in c["interceptors"]?.objectValue ?? [:] {
            interceptors[id] = MockInterceptor(
                completeImmediately: spec["completeImmediately"]?.boolValue ?? false,
                success: spec["success"]?.boolValue ?? false)
        }
        for id in c["interceptorSetup"]?.arrayValue ?? [] {
            engine.setReevaluationInterceptor(id.stringValue.flatMap { interceptors[$0] })
        }
        let rules = compile(c["rules"] ?? .null)
        switch c["load"]?.stringValue {
        case "direct": engine.setRules(rules)
        case "replace": engine.replaceRules(with: rules)
        case "add": engine.addRules(rules)
        default: break
        }
        if let steps = c["steps"]?.arrayValue {
            for (n, step) in steps.enumerated() { runStep(step.objectValue ?? [:], number: n) }
        } else {
            var last: (Event, Event)?
            for e in c["events"]?.arrayValue ?? [] {
                let input = AEPRulesCorpus.event(e)
                if let l = e["label"]?.stringValue { labels[l] = input }
                crossCheck(input)
                last = (input, engine.process(input))
            }
            check(c["expect"]?.objectValue ?? [:], dispatched: runtime.dispatched, last: last, prefix: "")
        }
        return failures
    }

    /// The rules in force against `input`: the interpreter must agree with the independent oracle, on a
    /// runtime of its own with the case's states and history (the case's runtime counts queries).
    mutating func crossCheck(_ input: Event) {
        let check = MockRuntime(sharedStates: AEPRulesCorpus.sharedStates(c["sharedStates"]), clock: runtime.clock)
        check.state.withLock { $0.historyResults = runtime.state.withLock { $0.historyResults } }
        failures += OracleCheck.disagreements(
            engine.rules, input, runtime: check, states: AEPRulesCorpus.knownStates(c["sharedStates"]))
    }

    mutating func runStep(_ step: ValueObject, number: Int) {
        let before = runtime.dispatched.count
        var last: (Event, Event)?
        var consequences: [Consequence]??
        switch step["op"]?.stringValue {
        case "process":
            let input: Event
            if let ref = step["eventRef"]?.stringValue, let e = labels[ref] {
                input = e
            } else if let k = step["dispatchedRef"]?.intValue, Int(k) < runtime.dispatched.count {
                input = runtime.dispatched[Int(k)]
            } else {
                input = AEPRulesCorpus.event(step["event"] ?? .null)
                if let l = step["event"]?["label"]?.stringValue { labels[l] = input }
            }
            crossCheck(input)
            last = (input, engine.process(input))
        case "replaceRules":
            let r = step["rules"] == .string("$case") ? c["rules"] ?? .null : step["rules"] ?? .null
            engine.replaceRules(with: compile(r))
        case "addRules":
            let r = step["rules"] == .string("$case") ? c["rules"] ?? .null : step["rules"] ?? .null
            engine.addRules(compile(r))
        case "evaluate":
            consequences = .some(engine.evaluate(AEPRulesCorpus.event(step["event"] ?? .null)))
        case "assert": break
        default: failures.append("step \(number): unknown op")
        }
        let expect = step["expect"]?.objectValue ?? [:]
        check(expect, dispatched: Array(runtime.dispatched[before...]), last: last, prefix: "step \(number): ")
        if let n = expect["ruleCount"]?.intValue, Int(n) != engine.rules.rules.count {
            failures.append("step \(number): \(engine.rules.rules.count) rules, expected \(n)")
        }
        if let spec = expect["consequences"]?.objectValue {
            let got = consequences ?? nil
            if let n = spec["count"]?.intValue, Int(n) != (got?.count ?? 0) {
                failures.append("step \(number): \(got?.count ?? 0) consequences, expected \(n)")
            }
            for item in spec["items"]?.arrayValue ?? [] {
                let i = Int(item["index"]?.intValue ?? 0)
                guard let got, i < got.count else {
                    failures.append("step \(number): no consequence \(i)")
                    continue
                }
                if let t = item["type"]?.stringValue, t != got[i].type { failures.append("consequence \(i) type \(got[i].type)") }
                for chk in item["checks"]?.arrayValue ?? [] {
                    failures += CorpusChecks.failures(chk.objectValue ?? [:], root: got[i].value).map { "step \(number): \($0)" }
                }
            }
        }
    }

    mutating func check(_ expect: ValueObject, dispatched: [Event], last: (Event, Event)?, prefix: String) {
        if let n = expect["dispatchedCount"]?.intValue, Int(n) != dispatched.count {
            failures.append("\(prefix)dispatched \(dispatched.count) (\(dispatched.map(\.name))), expected \(n)")
        }
        for d in expect["dispatched"]?.arrayValue ?? [] {
            let i = Int(d["index"]?.intValue ?? 0)
            guard i < dispatched.count else {
                failures.append("\(prefix)no dispatched event \(i)")
                continue
            }
            failures += eventFailures(d.objectValue ?? [:], dispatched[i]).map { "\(prefix)dispatched[\(i)] \($0)" }
        }
        if let p = expect["processedEvent"]?.objectValue {
            guard let (input, output) = last else {
                failures.append("\(prefix)no processed event")
                return
            }
            if p["sameAsInput"]?.boolValue == true && !(input.id == output.id && input.data == output.data) {
                failures.append("\(prefix)processed event differs from the input")
            }
            for chk in p["checks"]?.arrayValue ?? [] {
                failures += CorpusChecks.failures(chk.objectValue ?? [:], root: output.data.map(Value.object)).map {
                    "\(prefix)processed \($0)"
                }
            }
        }
        if let h = expect["eventHistory"]?.objectValue {
            let s = runtime.state.withLock { $0 }
            if let b = h["recordCalled"]?.boolValue, b != !s.recorded.isEmpty { failures.append("record called \(!s.recorded.isEmpty)") }
            if let r = h["recorded"]?.objectValue {
                if let e = s.recorded.last {
                    failures += eventFailures(r, e).map { "recorded \($0)" }
                } else {
                    failures.append("nothing recorded")
                }
            }
            if let n = h["lastQueryRequestCount"]?.intValue, Int(n) != s.lastQuery?.count {
                failures.append("last query had \(s.lastQuery?.count ?? -1) requests, expected \(n)")
            }
            if let b = h["lastQueryEnforceOrder"]?.boolValue, b != s.lastQuery?.enforceOrder {
                failures.append("last query enforceOrder \(String(describing: s.lastQuery?.enforceOrder))")
            }
        }
        for (id, spec) in expect["interceptors"]?.objectValue ?? [:] {
            guard let m = interceptors[id] else {
                failures.append("no interceptor \(id)")
                continue
            }
            let seen = m.seen.withLock { $0 }
            if let b = spec["called"]?.boolValue, b != seen.called { failures.append("interceptor \(id) called \(seen.called)") }
            if let n = spec["reevaluableRuleCount"]?.intValue, Int(n) != seen.ruleCount {
                failures.append("interceptor \(id) got \(seen.ruleCount) rules")
            }
            if let n = spec["firstRuleConsequenceCount"]?.intValue, Int(n) != seen.firstRuleConsequenceCount {
                failures.append("interceptor \(id) first rule has \(seen.firstRuleConsequenceCount) consequences")
            }
            if let r = spec["receivedEvent"]?.objectValue {
                guard let e = seen.event else {
                    failures.append("interceptor \(id) got no event")
                    continue
                }
                failures += eventFailures(r, e).map { "interceptor \(id) event \($0)" }
            }
        }
    }

    func eventFailures(_ spec: ValueObject, _ e: Event) -> [String] {
        var out: [String] = []
        if let s = spec["name"]?.stringValue, s != e.name { out.append("name \(e.name)") }
        if let s = spec["type"]?.stringValue, s != e.type { out.append("type \(e.type)") }
        if let s = spec["source"]?.stringValue, s != e.source { out.append("source \(e.source)") }
        if let d = spec["data"] {
            let got = e.data.map(Value.object) ?? .null
            if !CorpusChecks.deepEquals(d, got) { out.append("data \(got), expected \(d)") }
        }
        if let p = spec["parent"]?.stringValue, labels[p]?.id != e.parentID { out.append("parent is not '\(p)'") }
        if let p = spec["sameIdAs"]?.stringValue, labels[p]?.id != e.id { out.append("id is not that of '\(p)'") }
        for chk in spec["checks"]?.arrayValue ?? [] {
            out += CorpusChecks.failures(chk.objectValue ?? [:], root: e.data.map(Value.object))
        }
        return out
    }
}
