import RuleKitCore
import Testing

@testable import RuleKitRules

/// The Check phase's rules-only checks, each on a rule that has its finding and one that has not.
@Suite struct RuleCheckTests {
    static func findings(_ yaml: String) throws -> [Diagnostic] {
        let set = try #require(try Rules.load(yaml).ruleSet)
        let plan = Planner().plan(set)
        var probe = RuleCheck.ConsequenceProbe(plan)
        var out: [Diagnostic] = []
        for (i, planned) in plan.rules.enumerated() {
            for m in plan.matchers(of: planned) { RuleCheck.matcherTraps(m, rule: planned.label, into: &out) }
            RuleCheck.planFindings(planned, in: plan, label: planned.label, at: planned.rule.location, probe: &probe, into: &out)
            // The shared probe answers as a fresh one does.
            #expect(probe.matches(plan, rule: i) == RuleCheck.canMatchConsequenceEvents(plan, rule: i))
        }
        return out
    }

    @Test func eachCheckFindsItsRuleAndOnlyIt() throws {
        let found = try Self.findings(
            """
            version: 1
            rules:
              - id: trap
                when: {key: page.name, ne: home}
                then: [{add: {a: 1}}]
              - id: ordered-text
                when: {key: n, gt: "5"}
                then: [{add: {a: 1}}]
              - id: never
                when:
                  all:
                    - {key: ~type, eq: a}
                    - {key: ~type, eq: b}
                then: [{add: {a: 1}}]
              - id: loop
                when: {key: ~source, ex: true}
                then: [{type: url, detail: {url: "https://x"}}]
              - id: fine
                when: {key: ~type, eq: com.adobe.eventType.edge}
                then: [{type: url, detail: {url: "https://x"}}]
            """)
        let byCode = Dictionary(grouping: found, by: \.code).mapValues { $0.map(\.message) }
        #expect(byCode[.lintMissingKeyTrap]?.count == 1 && byCode[.lintMissingKeyTrap]?[0].hasPrefix("rule trap:") == true)
        #expect(byCode[.lintNumericString]?.count == 1 && byCode[.lintNumericString]?[0].hasPrefix("rule ordered-text:") == true)
        #expect(byCode[.lintNeverFires] == ["rule never can never fire: its condition is always false"])
        #expect(byCode[.lintSelfTrigger]?.count == 1 && byCode[.lintSelfTrigger]?[0].hasPrefix("rule loop ") == true)
        #expect(found.count == 4)
        // Lint's severities are the Check phase's.
        let errors: Set<DiagnosticCode> = Set(found.map(CheckSeverity.apply).filter { $0.severity == .error }.map(\.code))
        #expect(errors == [.lintNeverFires, .lintNumericString, .lintSelfTrigger])
    }

    @Test func anIDUsedInAnotherFileIsAnErrorAtTheLaterUse() throws {
        let a = try #require(
            try Rules.load("version: 1\nrules:\n  - id: x\n    when: {key: ~type, eq: a}\n    then: [{add: {a: 1}}]\n", file: "a.yaml")
                .ruleSet)
        let b = try #require(
            try Rules.load("version: 1\nrules:\n  - id: x\n    when: {key: ~type, eq: b}\n    then: [{add: {a: 1}}]\n", file: "b.yaml")
                .ruleSet)
        var ids = RuleCheck.IDs()
        #expect(ids.note(a.rules[0], in: "a.yaml") == nil)
        #expect(ids.note(a.rules[0], in: "a.yaml") == nil)
        let noted = ids.note(b.rules[0], in: "b.yaml")
        let again = try #require(noted)
        #expect(again.code == DiagnosticCode.lintDuplicateID && again.severity == .error && again.location?.file == "b.yaml")
        #expect(again.message == "rule id 'x' is also used in a.yaml")
    }

    /// The checker reads the plan: each matcher as the planner read it (data elements resolved, the keys an
    /// enclosing `and` requires), where it is written; a disabled rule, which never runs, gets no finding.
    @Test func theCheckerReadsWhatThePlannerRead() throws {
        let set = try #require(
            try Rules.load(
                """
                version: 1
                dataElements:
                  plan: {path: user.plan}
                rules:
                  - id: element
                    when: {key: '%plan%', ne: free}
                    then: [{add: {a: 1}}]
                  - id: guarded
                    when:
                      all:
                        - {key: user.plan, ex: true}
                        - any:
                            - {key: user.plan, ne: free}
                            - {key: user.tier, ne: gold}
                    then: [{add: {a: 1}}]
                  - id: paused
                    enabled: false
                    when: {key: page, ne: home}
                    then: [{add: {a: 1}}]
                  - when: {key: page, ne: home}
                    then: [{add: {a: 1}}]
                """, file: "r.yaml"
            ).ruleSet)
        let plan = Planner().plan(set)
        let element = try #require(plan.rules.first { $0.rule.id == "element" }.flatMap { plan.matchers(of: $0).first })
        #expect(element.key == "%plan%" && element.path == "user.plan" && element.declaredType == .any)
        #expect(element.location?.line == 6)
        let guarded = try #require(plan.rules.first { $0.rule.id == "guarded" }.map { Array(plan.matchers(of: $0)) })
        #expect(guarded.map(\.guarded) == [["user.plan"], ["user.plan"], ["user.plan"]])

        // Two plans appended keep each rule's matchers.
        let both = plan.appending(plan)
        for (i, r) in both.rules.enumerated() {
            #expect(Array(both.matchers(of: r)) == Array(plan.matchers(of: plan.rules[i % plan.rules.count])))
        }

        let found = RuleChecker(target: .both).check([("r.yaml", set)], plans: [plan])
        let traps = found.filter { $0.code == .lintMissingKeyTrap }.map { "\($0.rule ?? "") \($0.location?.line ?? 0)" }
        // The rule without an id is named by its place in the file, the disabled rule before it counted.
        #expect(traps == ["element 6", "guarded 14", "#3 20"], "\(found)")
        #expect(found.filter { $0.code == .targetMissingKeyNegation }.count == 3)
        #expect(!found.contains { $0.rule == "paused" }, "\(found)")
    }

    /// An `and` whose conditions contradict never fires, however many it has (pair by pair below 17, through
    /// a table above), and one whose equalities agree (whatever their case) may.
    @Test(arguments: [3, 40])
    func anAndThatContradictsItselfNeverFires(_ n: Int) throws {
        func plan(_ last: String) throws -> CompiledRuleSet {
            var yaml = "version: 1\nrules:\n  - id: r\n    when:\n      all:\n"
            for i in 0..<n { yaml += "        - {key: k\(i), eq: v}\n" }
            yaml += "        - {key: k0, eq: \(last)}\n        - {key: k1, ex: true}\n    then: [{add: {a: 1}}]\n"
            return Planner().plan(try #require(try Rules.load(yaml).ruleSet))
        }
        #expect(RuleCheck.neverFires(try plan("w").rules[0].condition))
        #expect(!RuleCheck.neverFires(try plan("V").rules[0].condition))
    }
}
