import RuleKitCore
import Testing

@testable import RuleKitXDM

/// Schemas that would recurse without descending into the instance are refused when compiled
/// (issue 15: `{"$ref":"#"}` crashed the validator with endless recursion).
@Suite struct SchemaCycleTests {
    static func compile(_ json: String) throws -> JSONSchemaValidator {
        try JSONSchemaValidator(schema: try JSONReader.read(json).value)
    }

    static func refusal(_ json: String) -> String? {
        do {
            _ = try compile(json)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        ##"{"$ref": "#"}"##,
        ##"{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}, "$ref": "#/definitions/a"}"##,
        ##"{"anyOf": [{"type": "string"}, {"$ref": "#"}]}"##,
        ##"{"allOf": [{"$ref": "#/definitions/a"}], "definitions": {"a": {"$ref": "#/definitions/a"}}}"##,
        ##"{"not": {"$ref": "#"}}"##,
        ##"{"if": {"$ref": "#"}}"##,
        ##"{"dependencies": {"x": {"$ref": "#"}}}"##,
    ])
    func inPlaceCyclesAreRefused(_ schema: String) {
        let message = Self.refusal(schema)
        #expect(message?.contains("never descends into the instance") == true, "\(schema): \(message ?? "accepted")")
    }

    @Test func longAcyclicChainsAreRefused() {
        var defs: [String] = []
        for i in 0..<500 { defs.append(##""d\##(i)": {"$ref": "#/definitions/d\##(i + 1)"}"##) }
        defs.append(##""d500": {"type": "string"}"##)
        let schema = ##"{"$ref": "#/definitions/d0", "definitions": {\##(defs.joined(separator: ","))}}"##
        #expect(Self.refusal(schema)?.contains("in-place references") == true)
    }

    @Test func recursionThroughTheInstanceIsFine() throws {
        let tree = ##"{"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "name": {"type": "string"}}}"##
        let v = try Self.compile(tree)
        #expect(v.isValid(try JSONReader.read(##"{"name": "a", "children": [{"name": "b", "children": []}]}"##).value))
        #expect(!v.isValid(try JSONReader.read(##"{"children": [{"name": 3}]}"##).value))
        // A key checked against the whole schema through propertyNames is a string: no cycle.
        _ = try Self.compile(##"{"propertyNames": {"$ref": "#"}, "type": ["object", "string"]}"##)
    }
}
