import RuleKitCore
import RuleKitSources
import Testing

@testable import RuleKitTooling

/// Every finding about a rule names it in `Diagnostic.rule` (issue 36: lint's JSON, SARIF and the report
/// read the field, no longer the message).
@Suite struct LinterRuleFieldTests {
    @Test func findingsOfTheLinterAndThePlannerNameTheirRule() {
        var files = RuleFiles()
        files.add(
            Array(
                """
                rules:
                  - id: trap
                    when: {key: a.b, ne: x}
                    then: [{id: c1, add: {data: {k: 1}}}]
                  - when:
                      all:
                        - {key: n, gt: "5"}
                        - {key: '%missing%', eq: 1}
                    then: [{id: c2, add: {data: {k: 2}}}]
                """.utf8), file: "r.yaml")
        files.add(
            Array("rules:\n  - id: trap\n    when: {key: z, ex: true}\n    then: [{id: c3, add: {data: {k: 3}}}]\n".utf8), file: "s.yaml")
        let found = Linter().lint(RuleSnapshot(sources: ["r.yaml", "s.yaml"], files: files))
        let byCode = Dictionary(grouping: found, by: \.code)
        #expect(byCode[.lintMissingKeyTrap]?.map(\.rule) == ["trap"])
        #expect(byCode[.lintNumericString]?.map(\.rule) == ["#1"])
        #expect(byCode[.rulesUnknownDataElement]?.map(\.rule) == ["#1"], "\(found)")
        // The id repeated in another file: the finding is about that rule, not about a rule named "id".
        #expect(byCode[.lintDuplicateID]?.map(\.rule) == ["trap"])
    }
}
