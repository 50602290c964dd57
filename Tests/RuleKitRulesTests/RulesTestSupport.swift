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
        return Evaluator.matches(set, rule: 0, &r)
    }
}
