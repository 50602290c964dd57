import RuleKitCore
import RuleKitRules
import Testing

@testable import RuleKitLSP

/// The keys completion offers in a Launch `rules.json` are the keys its loader accepts, place by place.
@Suite struct VocabularyTests {
    @Test func launchKeysAreTheLoadersKeys() {
        func names(_ table: [(String, String)]) -> Set<String> { Set(table.map(\.0)) }
        #expect(names(Vocabulary.launchRootKeys) == LaunchRulesLoader.rootKeys)
        #expect(names(Vocabulary.launchRuleKeys) == LaunchRulesLoader.ruleKeys)
        #expect(names(Vocabulary.launchConditionKeys) == LaunchRulesLoader.conditionKeys)
        #expect(names(Vocabulary.launchDefinitionKeys) == LaunchRulesLoader.definitionKeys)
        #expect(names(Vocabulary.launchConsequenceKeys) == LaunchRulesLoader.consequenceKeys)
    }

    @Test func theJSONCursorReadsTheMembersAboveIt() {
        func at(_ text: String) -> (parents: [String], slot: CursorContext.Slot, inString: Bool)? {
            JSONCursor.at(Array(text.utf8)[...], offset: text.utf8.count)
        }
        #expect(at(#"{"rules": [{"#)?.parents == ["rules", "-"])
        #expect(at(#"{"rules": [{"#)?.inString == false)
        #expect(at(##"{"rules": [{"con"##)?.inString == true)
        #expect(at(##"{"rules": [{"con"##)?.parents == ["rules", "-"])
        #expect(at(#"{"a": 1, "#)?.slot == .key(siblings: ["a"]))
        // Brackets and quotes inside strings, and escaped quotes, are text.
        #expect(at(#"{"k{": "x\"]}", "b": {"#)?.parents == ["b"])
        #expect(at(#"{"k": {"m": ["#) != nil)
        #expect(at(#"{"k": {"m": ["#)?.slot == .value(key: "m", siblings: [:]))
        #expect(at(#"{"k": {"m": ["#)?.parents == ["k"])
        #expect(at(#"{"t": "gr"#)?.slot == .value(key: "t", siblings: [:]))
        // Closed containers are left; outside any object there is no context.
        #expect(at(#"{"a": {"b": 1}, "c": "#)?.parents == [])
        #expect(at("[1, 2") == nil)
        #expect(at("") == nil)
    }
}

/// The matcher vocabulary is the engine's enum: the editor's list and the format's schema read it.
@Suite struct MatcherVocabularyTests {
    @Test func theEditorAndTheSchemaListTheEnginesMatchers() throws {
        #expect(Vocabulary.matchers.map(\.code) == Operation.allCases.map(\.code))
        for op in Operation.allCases { #expect(Operation(code: op.code) == op) }
        let schema = try JSONReader.read(Array(RulesFormatSchema.json.utf8), file: "schema").value
        let listed = schema["definitions"]?["operator"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(listed == Operation.codes)
        let shortForms = schema["definitions"]?["matcher"]?["properties"]?.objectValue.map { Set($0.keys) } ?? []
        #expect(Set(Operation.codes).isSubset(of: shortForms))
    }
}
