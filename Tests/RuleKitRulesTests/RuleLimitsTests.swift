import RuleKitCore
import Testing

@testable import RuleKitRules

/// A rule set's size is bounded and an excess is a located error (issue 15).
@Suite struct RuleLimitsTests {
    static let yaml = """
        rules:
          - {id: a, when: {all: [{key: x, eq: 1}, {key: y, eq: 2}]}, then: [{type: add, detail: {eventdata: {t: "{%~type%} padding"}}}]}
          - {id: b, when: {key: x, eq: 1}, then: []}
          - {id: c, when: {key: x, eq: 1}, then: []}
        """

    @Test func withinTheLimitsNothingIsSaid() throws {
        #expect(RuleLimits.default.check(try Rules.load(Self.yaml).get()).isEmpty)
    }

    @Test func tooManyRulesIsAnErrorAtTheFirstRuleOver() throws {
        let set = try Rules.load(Self.yaml).get()
        let found = RuleLimits(maxRules: 2).check(set)
        #expect(found.count == 1)
        #expect(found.first?.code == .limitExceeded)
        #expect(found.first?.location?.line == 4)
    }

    @Test func tooManyConditionsAndTooLongTemplatesAreErrors() throws {
        let set = try Rules.load(Self.yaml).get()
        #expect(RuleLimits(maxConditions: 4).check(set).first?.message.contains("more than 4 conditions") == true)
        let long = RuleLimits(maxTemplateBytes: 10).check(set)
        #expect(long.count == 1)
        #expect(long.first?.message.contains("templates are limited to 10 bytes") == true)
    }
}
