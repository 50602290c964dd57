import Foundation
import RuleKitCore
import RuleKitYAML
import Testing

@testable import RuleKitRules

/// Builds engines from YAML text for tests.
enum Rules {
    static func load(_ yaml: String, file: String = "test.yaml") throws -> RulesLoadResult {
        RuleSetLoader.load(try YAMLReader.read(yaml, file: file))
    }

    static func compile(_ yaml: String) throws -> CompiledRuleSet {
        Planner().plan(try load(yaml).get())
    }

    /// Whether rule 0's condition holds for an event. The interpreter (plain, indexed and traced) and the
    /// independent `ReferenceOracle` must agree; a disagreement is a test failure with both answers.
    static func matches(
        _ condition: String, data: Value?, type: String = "t", source: String = "s",
        states: [String: ValueObject] = [:], xdm: [String: ValueObject] = [:]
    ) throws -> Bool {
        let set = try compile("rules:\n  - id: r\n    when: \(condition)\n    then: []\n")
        guard !set.rules.isEmpty else { return false }
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdm)
        let event = Event(name: "e", type: type, source: source, data: data?.objectValue)
        for d in OracleCheck.disagreements(set, event, runtime: runtime, states: states, xdmStates: xdm) {
            Issue.record("\(condition): \(d)")
        }
        var r = Resolver(event: event, runtime: runtime, slotCount: set.slotCount)
        let result = Evaluator.matches(set, rule: 0, &r)
        // The same event with its data kept as a tape (as read from JSON lines) must match the same.
        if let taped = TapeEvents.taped(event) {
            var t = Resolver(event: taped, runtime: runtime, slotCount: set.slotCount)
            #expect(Evaluator.matches(set, rule: 0, &t) == result, "\(condition): the tape event matches otherwise")
            #expect(taped.document != nil, "\(condition): matching made the tape into a tree")
        }
        return result
    }
}

/// Events with their data kept as a tape, as `rulekit run` reads them.
enum TapeEvents {
    /// `e` with its data read back from its JSON text into a tape, or nil when the tape does not take it
    /// (no data; keys with escapes, non-ASCII keys).
    static func taped(_ e: Event) -> Event? {
        guard let data = e.data, let tape = JSONTape.of(data) else { return nil }
        var out = e
        out.setDocument(tape)
        return out
    }

    /// Every event taped where the tape takes it, and how many it took.
    static func taped(_ events: [Event]) -> ([Event], Int) {
        var n = 0
        let out = events.map { e -> Event in
            guard let t = taped(e) else { return e }
            n += 1
            return t
        }
        return (out, n)
    }
}
