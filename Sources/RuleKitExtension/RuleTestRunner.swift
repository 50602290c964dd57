// Runs rule tests: each case on a fresh engine with the file's (or the case's) states and history, its
// events in order, expectations checked after every event that has some and for the case as a whole.
internal import Foundation
public import RuleKitCore
public import RuleKitRules

/// Runs rule tests: each case on a fresh engine, expectations checked per event and per case.
public enum RuleTestRunner {
    /// One case's outcome: its name and what did not hold (empty: passed).
    public struct Result: Sendable {
        /// The case's name.
        public var name: String
        /// What did not hold, one line each.
        public var problems: [String]
        /// Whether every expectation held.
        public var passed: Bool { problems.isEmpty }
    }

    /// Runs every case of `file` against `compiled`.
    public static func run(_ file: RuleTestFile, _ compiled: CompiledRuleSet) -> [Result] {
        file.cases.map { Result(name: $0.name, problems: run($0, file, compiled)) }
    }

    static func run(_ c: RuleTestCase, _ file: RuleTestFile, _ compiled: CompiledRuleSet) -> [String] {
        let runtime = StaticRulesRuntime(states: c.states ?? file.states, xdmStates: c.xdmStates ?? file.xdmStates)
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(compiled)
        let now = Date()
        for h in c.history ?? file.history {
            _ = runtime.recordHistory(
                Event(
                    name: h.name, type: h.type, source: h.source, data: h.data,
                    timestamp: now.addingTimeInterval(-h.ageSeconds)))
        }
        var problems: [String] = []
        var firedInCase: [String] = []
        var last: Event?
        for (i, e) in c.events.enumerated() {
            var r = Resolver(event: e.event, runtime: runtime, slotCount: compiled.slotCount)
            let fired = Evaluator.matchingRules(compiled, &r).map(\.label)
            for f in fired where !firedInCase.contains(f) { firedInCase.append(f) }
            let before = runtime.dispatched().count
            let processed = engine.process(e.event)
            // As the hub does: an event with a mask goes into history after the rules have seen it.
            if processed.mask != nil { _ = runtime.recordHistory(processed) }
            last = processed
            if let x = e.expect {
                let caused = Array(runtime.dispatched().dropFirst(before))
                problems += check(x, fired: fired, data: processed.data, dispatched: caused).map { "event \(i + 1): \($0)" }
            }
        }
        if let x = c.expect {
            problems += check(x, fired: firedInCase, data: last?.data, dispatched: runtime.dispatched())
        }
        return problems
    }

    static func check(_ x: RuleTestExpectation, fired: [String], data: ValueObject?, dispatched: [Event]) -> [String] {
        var problems: [String] = []
        if let want = x.fired, want != fired { problems.append("fired \(fired), expected \(want)") }
        for id in x.notFired where fired.contains(id) { problems.append("rule \(id) fired") }
        let value = data.map(Value.object) ?? .null
        if let want = x.data, !want.numericallyEquals(value) { problems.append("data \(value), expected \(want)") }
        if let want = x.dataContains, !contains(value, want) { problems.append("data \(value) does not contain \(want)") }
        if let want = x.dispatched {
            if dispatched.count != want.count {
                problems.append("dispatched \(dispatched.count) events (\(dispatched.map(\.type))), expected \(want.count)")
            }
            for (w, g) in zip(want, dispatched) {
                if let t = w.type, t != g.type { problems.append("dispatched type \(g.type), expected \(t)") }
                if let s = w.source, s != g.source { problems.append("dispatched source \(g.source), expected \(s)") }
                if let d = w.data, !contains(g.data.map(Value.object) ?? .null, d) {
                    problems.append("dispatched data \(g.data.map { Value.object($0) } ?? .null) does not contain \(d)")
                }
            }
        }
        return problems
    }

    /// Whether `v` has everything `want` has (objects by key, recursively; other values equal).
    public static func contains(_ v: Value, _ want: Value) -> Bool {
        switch (v, want) {
        case (.object(let a), .object(let b)): return b.allSatisfy { k, x in a[k].map { contains($0, x) } ?? false }
        default: return v.numericallyEquals(want)
        }
    }
}
