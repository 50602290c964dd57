import Foundation
import Testing

@testable import RuleKitExtension
@testable import RuleKitHistory
@testable import RuleKitServe

/// The per-rule match counters: counted by each worker apart, summed when the metrics are read, bounded in
/// the rules they name.
@Suite struct ServeMetricsTests {
    static func fired(_ text: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("rulekit_rules_fired_total{") {
            let parts = line.split(separator: " ")
            guard let open = parts[0].range(of: "rule=\""), let n = Int(parts[parts.count - 1]) else { continue }
            let name = parts[0][open.upperBound...].prefix { $0 != "\"" }
            out[String(name)] = n
        }
        return out
    }

    @Test func eachWorkersMatchesAreSummedWhenTheMetricsAreRead() {
        let metrics = ServeMetrics()
        let a = metrics.tally()
        let b = metrics.tally()
        a.add(["r1", "r2"])
        b.add(["r1"])
        a.add(["r1"])
        #expect(Self.fired(metrics.render(history: .init())) == ["r1": 3, "r2": 1])
        // Read again: nothing counted twice, and later matches add on.
        b.add(["r2", "r3"])
        #expect(Self.fired(metrics.render(history: .init())) == ["r1": 3, "r2": 2, "r3": 1])
        #expect(Self.fired(metrics.render(history: .init())) == ["r1": 3, "r2": 2, "r3": 1])
    }

    @Test func rulesPastTheBoundShareOneCounter() {
        let metrics = ServeMetrics()
        let t = metrics.tally()
        let many = (0..<ServeMetrics.maxRuleLabels).map { "rule-\($0)" }
        t.add(many)
        _ = metrics.render(history: .init())
        t.add(["late-1", "late-2", "late-1", "rule-0"])
        let counts = Self.fired(metrics.render(history: .init()))
        #expect(counts.count == ServeMetrics.maxRuleLabels + 1)
        #expect(counts["other"] == 3)
        #expect(counts["rule-0"] == 2)
        #expect(counts["late-1"] == nil)
    }

    @Test func theRulesNamedAreTheFirstToMatch() {
        let metrics = ServeMetrics()
        let t = metrics.tally()
        // In one read: the bound's worth of rules, then two more; the two more share `other`.
        t.add((0..<ServeMetrics.maxRuleLabels).map { "rule-\($0)" })
        t.add(["late-1", "late-2", "rule-5"])
        let counts = Self.fired(metrics.render(history: .init()))
        #expect(counts.count == ServeMetrics.maxRuleLabels + 1)
        #expect(counts["other"] == 2)
        #expect(counts["rule-5"] == 2)
        #expect(counts["late-1"] == nil)
    }
}
