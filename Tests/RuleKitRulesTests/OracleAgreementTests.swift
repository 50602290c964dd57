import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitRules

/// Generated rule sets against generated events: the interpreter (rule by rule, through the index, and
/// traced) must give what the independent `ReferenceOracle` gives, for every pair.
@Suite struct OracleAgreementTests {
    typealias Generator = SeededGenerator

    static let keys = [
        "a", "b", "s", "n", "flag", "a.b", "a.c", "x.y.z", "list.0", "list.1", "list.2", "missing", "nul", "~type", "~source",
        "~state.ext/k", "~state.ext/deep.v", "~state.other/k", "~xdm.ext/k", "~state.ext", "~sdkver",
    ]
    static let matchers = ["eq", "ne", "gt", "ge", "lt", "le", "co", "nc", "sw", "ew", "ex", "nx"]
    static let ruleValues: [Value] = [
        "abc", "AB", "Abc", "3", "3.0", "", "true", "x", "b", "ärger", "ÄR", "t1", -2, 0, 1, 3, 3.0, 3.9, -0.5, 1.0, true, false,
    ]
    static let leaves: [Value] = [
        "abc", "ABC", "xABy", "3", "3.0", "-2", "", "true", "TRUE", "ärger", "Ärger", "t1", 0, 1, 3, -2, 3.0, 3.9, 1.0, -0.5,
        1e300, true, false, .null,
    ]

    static func condition(_ g: inout Generator, depth: Int) -> Condition {
        if depth < 3 && g.chance(30) {
            let logic = g.chance(5) ? "xor" : g.pick(["and", "or"])
            return .group(logic, (0..<(1 + g.int(3))).map { _ in condition(&g, depth: depth + 1) })
        }
        let values = (0..<g.int(3)).map { _ in g.pick(ruleValues) }
        return .matcher(g.pick(keys), g.pick(matchers), values)
    }

    static func leafOrTree(_ g: inout Generator, depth: Int) -> Value {
        if depth < 2 && g.chance(15) { return .object(object(&g, depth: depth + 1)) }
        if depth < 2 && g.chance(10) { return .array((0..<g.int(3)).map { _ in leafOrTree(&g, depth: depth + 1) }) }
        return g.pick(leaves)
    }

    static func object(_ g: inout Generator, depth: Int) -> ValueObject {
        var o = ValueObject()
        for k in ["a", "b", "s", "n", "flag", "c", "y", "z", "k", "v", "nul"] where g.chance(35) { o[k] = leafOrTree(&g, depth: depth) }
        return o
    }

    static func event(_ g: inout Generator) -> Event {
        var data = object(&g, depth: 0)
        if g.chance(30) { data["list"] = .array((0..<g.int(4)).map { _ in g.pick(leaves) }) }
        if g.chance(20) { data["x"] = ["y": ["z": g.pick(leaves)]] }
        // A dotted key now and then: the reference's flattened map cannot tell it from a nested path.
        if g.chance(10) { data["a.c"] = g.pick(leaves) }
        if g.chance(5) { data["x.y"] = ["z": g.pick(leaves)] }
        return Event(name: "e", type: g.pick(["t1", "T1", "t2"]), source: g.pick(["s", "S"]), data: g.chance(5) ? nil : data)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func interpreterAgreesWithTheOracle(seed: UInt64) {
        var g = Generator(state: seed)
        let rules = (0..<40).map { i in Rule(id: "r\(i)", condition: Self.condition(&g, depth: 0)) }
        let set = Planner().plan(RuleSet(rules: rules))
        let states: [String: ValueObject] = [
            "ext": ["k": g.pick(Self.leaves), "deep": ["v": g.pick(Self.leaves)]], "Other": ["k": "abc"],
        ]
        let xdm: [String: ValueObject] = ["ext": ["k": g.pick(Self.leaves)]]
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdm)
        var failures: [String] = []
        for _ in 0..<150 {
            failures += OracleCheck.disagreements(set, Self.event(&g), runtime: runtime, states: states, xdmStates: xdm)
            if failures.count > 10 { break }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n"))")
    }
}
