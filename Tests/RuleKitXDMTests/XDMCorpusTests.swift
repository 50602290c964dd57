import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitXDM

/// The public XDM schemas (`../shared/corpora/xdm`): every schema loads by `$id`, every example validates
/// against its schema, and mutated examples fail at the mutated instance path.
@Suite struct XDMCorpusTests {
    static func registry() throws -> (XDMRegistry, URL)? {
        guard let root = SharedCorpus.folder("corpora/xdm") else { return nil }
        return (try XDMRegistry(folder: root), root)
    }

    static func examples(_ root: URL) throws -> [(file: String, schemaID: String)] {
        let text = try String(contentsOf: root.appendingPathComponent("examples.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let c = line.split(separator: "\t").map(String.init)
            return (c[0], c[2])
        }
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the XDM corpus is not run"))
    func everySchemaLoadsByIDWithEveryRefResolved() throws {
        let (xdm, _) = try #require(try Self.registry())
        // 49 schemas plus the XDM authoring meta-schema, whose descriptor refs point outside the subset.
        #expect(xdm.documents.count == 50)
        #expect(xdm.unresolved.count == 1)
        #expect(xdm.unresolved.first?.location?.file.hasSuffix("meta.schema.json") == true)
        #expect(xdm.unresolved.first?.message.contains("schemadescriptor") == true)
        #expect(xdm.documents["https://ns.adobe.com/xdm/datatypes/consents-and-preferences"] != nil)
        #expect(xdm.fieldGroups(for: "https://ns.adobe.com/xdm/context/experienceevent").count >= 8)
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent"))
    func everyExampleValidatesAgainstItsSchema() throws {
        let (xdm, root) = try #require(try Self.registry())
        var passed = 0
        let examples = try Self.examples(root)
        for (file, id) in examples {
            let v = try JSONReader.read(try #require(SharedCorpus.bytes(root.appendingPathComponent(file)))).value
            let schema = try xdm.schema(id)
            let errors = schema.validator.validate(v)
            #expect(errors.isEmpty, "\(file): \(errors.prefix(3))")
            #expect(schema.validator.isValid(v) == errors.isEmpty)
            if errors.isEmpty { passed += 1 }
        }
        print("xdm examples: \(passed) passed, \(examples.count - passed) failed")
        #expect(examples.count == 67)
    }

    /// Leaves of an instance with their JSON pointers and catalog paths.
    static func leaves(_ v: Value, pointer: [PathComponent] = [], path: String = "") -> [([PathComponent], String, Value)] {
        switch v {
        case .object(let o):
            return o.flatMap { k, x in leaves(x, pointer: pointer + [.key(k)], path: path.isEmpty ? k : path + "." + k) }
        case .array(let a):
            return a.enumerated().flatMap { i, x in leaves(x, pointer: pointer + [.index(i)], path: path + "[*]") }
        default:
            return [(pointer, path, v)]
        }
    }

    static func setting(_ v: Value, _ p: ArraySlice<PathComponent>, _ new: Value?) -> Value {
        guard let head = p.first else { return new ?? .null }
        switch (v, head) {
        case (.object(var o), .key(let k)):
            if p.count == 1 { o[k] = new } else { o[k] = setting(o[k] ?? .null, p.dropFirst(), new) }
            return .object(o)
        case (.array(var a), .index(let i)):
            a[i] = setting(a[i], p.dropFirst(), new)
            return .array(a)
        default:
            return v
        }
    }

    /// The error is at the mutated location, or at an enclosing `oneOf`/`anyOf` (whose branches report
    /// one error for the combinator, at its own location).
    static func locates(_ e: ValidationError, _ pointer: String) -> Bool {
        if e.instancePath == pointer { return true }
        return (e.schemaPath.hasSuffix("/oneOf") || e.schemaPath.hasSuffix("/anyOf")) && pointer.hasPrefix(e.instancePath + "/")
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent"))
    func mutatedExamplesFailAtTheMutatedPath() throws {
        let (xdm, root) = try #require(try Self.registry())
        var wrongType = 0
        var badEnum = 0
        for (file, id) in try Self.examples(root) {
            let example = try JSONReader.read(try #require(SharedCorpus.bytes(root.appendingPathComponent(file)))).value
            let schema = try xdm.schema(id)
            let catalog = schema.catalog
            for (pointer, path, value) in Self.leaves(example) {
                // Under "@context" the extensible datatype's oneOf accepts anything through its "@.*"
                // namespace guard, so a changed value there is still valid XDM.
                guard !path.hasPrefix("@context"), let leaf = catalog.leaf(path) else { continue }
                if leaf.type == "string", leaf.enumValues == nil {
                    let errors = schema.validator.validate(Self.setting(example, pointer[...], .int(12345)))
                    #expect(errors.contains { Self.locates($0, pointer.jsonPointer) }, "\(file) \(path): \(errors.prefix(2))")
                    wrongType += 1
                } else if let e = leaf.enumValues, !e.isEmpty, case .string = value {
                    let errors = schema.validator.validate(Self.setting(example, pointer[...], "not-a-listed-value"))
                    #expect(errors.contains { Self.locates($0, pointer.jsonPointer) }, "\(file) \(path): \(errors.prefix(2))")
                    badEnum += 1
                }
            }
        }
        // A required field removed is reported at its parent object.
        let event = try JSONReader.read(
            try #require(
                SharedCorpus.bytes(
                    root.appendingPathComponent(
                        "components/classes/experienceevent.example.1.json")))
        ).value
        let schema = try xdm.schema("https://ns.adobe.com/xdm/context/experienceevent")
        let missing = schema.validator.validate(Self.setting(event, [.key("xdm:timestamp")][...], nil))
        #expect(missing.contains { $0.instancePath == "" && $0.message.contains("xdm:timestamp") })
        print("xdm mutations: \(wrongType) wrong-type and \(badEnum) bad-enum mutations checked")
        #expect(wrongType > 50)
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent"))
    func composedExperienceEventHasACatalogOfLeafPaths() throws {
        let (xdm, _) = try #require(try Self.registry())
        let ee = "https://ns.adobe.com/xdm/context/experienceevent"
        let composed = try xdm.compose(class: ee, fieldGroups: ["https://ns.adobe.com/xdm/context/experienceevent-commerce"])
        let catalog = composed.catalog
        #expect(catalog.leaf("xdm:timestamp")?.format == "date-time")
        #expect(catalog.leaf("xdm:productListItems[*].xdm:SKU")?.type == "string")
        #expect(catalog.leaf("xdm:productListItems.0.xdm:quantity")?.type == "integer")
        #expect(!catalog.leaves(withPrefix: "xdm:commerce.").isEmpty)
        #expect(try XDMCoercion.coerce("3", at: "xdm:productListItems.0.xdm:quantity", in: catalog).get() == 3)
        #expect(try XDMCoercion.coerce("12.5", at: "xdm:productListItems[*].xdm:priceTotal", in: catalog).get() == 12.5)
        if case .failure(let f) = XDMCoercion.coerce("many", at: "xdm:productListItems.0.xdm:quantity", in: catalog) {
            #expect(f.description.contains("cannot be converted to integer"))
        } else {
            Issue.record("'many' became an integer")
        }
        #expect(throws: DiagnosticError.self) { try xdm.compose(class: ee, fieldGroups: ["https://ns.adobe.com/xdm/nope"]) }
    }
}
