// Runs rule tests: each case on a fresh engine with the file's (or the case's) states and history, its
// events in order, expectations checked after every event that has some and for the case as a whole.
internal import Foundation
public import RuleKitCore
internal import RuleKitExtension
internal import RuleKitHistory
internal import RuleKitHub
internal import RuleKitRules
public import RuleKitSources

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

        /// The outcome as `rulekit test` and `rulekit report` print it: `PASS file: name`, or `FAIL file: name`
        /// and each problem on a line of its own, indented.
        public func transcript(file: String) -> String {
            var s = "\(passed ? "PASS" : "FAIL") \(file): \(name)\n"
            for p in problems { s += "    \(p)\n" }
            return s
        }
    }

    /// Runs every case of `file` against `rules`, each on a fresh hub with the rules extension (the same
    /// assembly as `rulekit run` and `rulekit serve`), its states published and its history recorded first.
    public static func run(_ file: RuleTestFile, _ rules: RuleSnapshot) -> [Result] {
        file.cases.map { Result(name: $0.name, problems: run($0, file, rules)) }
    }

    static func run(_ c: RuleTestCase, _ file: RuleTestFile, _ rules: RuleSnapshot) -> [String] {
        let history = InMemoryEventHistory()
        let now = Date()
        for h in c.history ?? file.history {
            let hash = EventHistoryHash.hash(h.data)
            if hash != 0 { _ = history.record(hash: hash, timestamp: now.addingTimeInterval(-h.ageSeconds)) }
        }
        var configuration = RulesHost.Configuration(
            rules: rules.sources, preloaded: rules, states: c.states ?? file.states, xdmStates: c.xdmStates ?? file.xdmStates,
            history: history)
        let matches = Locked<[UUID: [String]]>([:])
        configuration.onRulesMatched = { event, labels in matches.withLock { $0[event.id, default: []] += labels } }
        let host: RulesHost
        do { host = try RulesHost(configuration) } catch { return ["the hub could not start: \(error)"] }
        var problems: [String] = []
        var firedInCase: [String] = []
        var dispatchedInCase: [Event] = []
        var last: Event?
        for (i, e) in c.events.enumerated() {
            let produced = host.processWaiting([e.event])
            let fired = matches.withLock { $0.removeValue(forKey: e.event.id) } ?? []
            for f in fired where !firedInCase.contains(f) { firedInCase.append(f) }
            let processed = produced.first { $0.id == e.event.id } ?? e.event
            let caused = produced.filter { $0.id != e.event.id }
            dispatchedInCase += caused
            last = processed
            if let x = e.expect {
                problems += check(x, fired: fired, data: processed.data, dispatched: caused).map { "event \(i + 1): \($0)" }
            }
        }
        if let x = c.expect {
            problems += check(x, fired: firedInCase, data: last?.data, dispatched: dispatchedInCase)
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
