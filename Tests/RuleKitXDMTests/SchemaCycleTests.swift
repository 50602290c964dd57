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
        let tree =
            ##"{"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "name": {"type": "string"}}}"##
        let v = try Self.compile(tree)
        #expect(v.isValid(try JSONReader.read(##"{"name": "a", "children": [{"name": "b", "children": []}]}"##).value))
        #expect(!v.isValid(try JSONReader.read(##"{"children": [{"name": 3}]}"##).value))
        // A key checked against the whole schema through propertyNames is a string: no cycle.
        _ = try Self.compile(##"{"propertyNames": {"$ref": "#"}, "type": ["object", "string"]}"##)
    }
}

/// Found by fuzz-schema: JSON pointers were split by Characters, and "/" followed by a combining mark
/// is one Character, so a reference to such a key did not resolve.
@Suite struct PointerScalarTests {
    @Test func referencesToKeysStartingWithACombiningMarkResolve() throws {
        let schema = ##"{"definitions": {"\u20e9x": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/\u20e9x"}}}"##
        let v = try JSONSchemaValidator(schema: try JSONReader.read(schema).value)
        #expect(v.isValid(try JSONReader.read(##"{"a": "s"}"##).value))
        #expect(!v.isValid(try JSONReader.read(##"{"a": 1}"##).value))
    }

    @Test func scalarSplittingKeepsCombiningMarksWithTheirPart() {
        #expect("/\u{20E9}a/b".split(ascii: UInt8(ascii: "/")) == ["", "\u{20E9}a", "b"])
        #expect("~1\u{301}~0".unescapedPointerToken == "/\u{301}~")
    }
}

/// Found by fuzz-schema: counts past Int's range trapped when the schema was compiled.
@Suite struct SchemaCountRangeTests {
    @Test(arguments: ["maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"])
    func hugeCountsCompile(_ keyword: String) throws {
        for count in ["22222222222222222222222222222222222222", "-1e300", "1e308"] {
            let v = try JSONSchemaValidator(schema: try JSONReader.value("{\"\(keyword)\": \(count)}"))
            _ = v.isValid(try JSONReader.value("\"abc\""))
            _ = v.validate(try JSONReader.value("[1, 2]"))
        }
        let huge = try JSONSchemaValidator(schema: try JSONReader.value(#"{"maxLength": 1e30}"#))
        #expect(huge.isValid(.string("anything")))
    }
}

/// Found by fuzz-schema (campaign): an error under a key holding "/" followed by a combining mark named
/// a pointer that did not resolve — the escaping replaced characters, and "/⃡" is one character.
@Suite struct ErrorPointerTests {
    @Test func errorPathsEscapeSlashesFollowedByCombiningMarks() throws {
        let key = "a/\u{20E1}b~\u{301}c"
        let v = try JSONSchemaValidator(schema: try JSONReader.value(#"{"additionalProperties": false}"#))
        let errors = v.validate(.object([key: 1]))
        #expect(errors.first?.instancePath == "/a~1\u{20E1}b~0\u{301}c")
        #expect([PathComponent.key(key)].jsonPointer.split(ascii: UInt8(ascii: "/")).last?.unescapedPointerToken == key)
    }
}
