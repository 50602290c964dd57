import Foundation
import RuleKitCore
import RuleKitYAML

@testable import RuleKitRules

/// Builds engines from YAML text for tests.
enum Rules {
    static func load(_ yaml: String, file: String = "test.yaml") throws -> RulesLoadResult {
        RuleSetLoader.load(try YAMLReader.read(yaml, file: file))
    }

    static func compile(_ yaml: String) throws -> CompiledRuleSet {
        Planner().plan(try load(yaml).get())
    }

    /// Whether rule 0's condition holds for an event (checked through both evaluators, which must agree).
    static func matches(
        _ condition: String, data: Value?, type: String = "t", source: String = "s",
        states: [String: ValueObject] = [:], xdm: [String: ValueObject] = [:]
    ) throws -> Bool {
        let set = try compile("rules:\n  - id: r\n    when: \(condition)\n    then: []\n")
        guard !set.rules.isEmpty else { return false }
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdm)
        let event = Event(name: "e", type: type, source: source, data: data?.objectValue)
        var r1 = Resolver(event: event, runtime: runtime, slotCount: set.slotCount)
        let tree = Evaluator.matches(set.rules[0].condition, &r1)
        var r2 = Resolver(event: event, runtime: runtime, slotCount: set.slotCount)
        let program = ProgramEvaluator.matches(set.program, rule: 0, &r2)
        precondition(tree == program, "tree and program evaluators disagree on \(condition)")
        return tree
    }
}
