import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitRules

@Suite struct RulesFormatSchemaTests {
    @Test func publishedSchemaEqualsTheEmbeddedOneAndIsJSON() throws {
        let url = SharedCorpus.repositoryRoot.appendingPathComponent("docs/rules-format.schema.json")
        let file = try String(contentsOf: url, encoding: .utf8)
        #expect(file.trimmingCharacters(in: .whitespacesAndNewlines) == RulesFormatSchema.json)
        let schema = try JSONReader.value(RulesFormatSchema.json)
        #expect(schema["definitions"]?["operator"]?["enum"]?.arrayValue?.count == Operation.codes.count)
    }
}
