// RuleKitXDM keeps XDM payloads aligned with known classes and field groups: a JSON Schema (draft-07 and
// draft-06) validator compiled into a graph of checks, a registry that loads a folder of XDM schemas by
// `$id` and composes a class with chosen field groups, the catalog of leaf paths of a composed schema,
// and schema-directed coercion of values (the strings tokens render) to the schema's types.
public import Foundation
public import RuleKitCore
internal import RuleKitYAML

/// The XDM schemas RuleKit knows: a folder (JSON or YAML) indexed by `$id`, offline.
///
/// ```swift
/// let xdm = try XDMRegistry(folder: URL(fileURLWithPath: "Schemas"))
/// let schema = try xdm.compose(class: "https://ns.adobe.com/xdm/context/experienceevent",
///                              fieldGroups: ["https://ns.adobe.com/xdm/context/experienceevent-commerce"])
/// schema.validator.validate(payload)
/// ```
public struct XDMRegistry: Sendable {
    /// Every schema loaded, meta-schemas included.
    public private(set) var schemas = SchemaRegistry()
    /// `$id` → the file it came from.
    public private(set) var files: [String: String] = [:]
    /// `$id` → the schema document.
    public private(set) var documents: [String: Value] = [:]
    /// Schemas whose `$ref`s do not all resolve: each named with its file and the ref. They stay
    /// loaded (other schemas may not need them); composing one of them fails with the same message.
    public private(set) var unresolved: [Diagnostic] = []

    /// A registry holding only the meta-schemas.
    public init() {
        MetaSchemas.register(in: &schemas)
    }

    /// Loads every `*.schema.json`, `*.schema.yaml` and `*.schema.yml` file under `folder` (examples and
    /// other JSON files are not schemas), then checks that every `$ref` resolves.
    ///
    /// - Parameter folder: the schema folder.
    /// - Throws: `DiagnosticError` naming each unreadable file, each file without `$id`, and duplicate ids.
    ///   Unresolvable `$ref`s are listed in `unresolved`.
    public init(folder: URL) throws(DiagnosticError) {
        self.init()
        var diags = Diagnostics()
        let fm = FileManager.default
        // A folder reached through a symbolic link is listed through its target (the enumerator does not
        // descend into a link); files are still named under the folder as given.
        let listed = folder.resolvingSymlinksInPath().path
        let paths = (fm.enumerator(atPath: listed)?.allObjects as? [String] ?? []).sorted()
        for rel in paths where rel.hasSuffix(".schema.json") || rel.hasSuffix(".schema.yaml") || rel.hasSuffix(".schema.yml") {
            let path = folder.appendingPathComponent(rel).path
            do {
                try add(file: path)
            } catch {
                diags.append(contentsOf: error.diagnostics)
            }
        }
        if diags.hasErrors { throw DiagnosticError(diags.sorted) }
        unresolved = checkReferences()
    }

    /// Adds one schema file.
    ///
    /// - Parameter path: the schema file.
    /// - Throws: `DiagnosticError` naming the file when it cannot be read or has no `$id`.
    public mutating func add(file path: String) throws(DiagnosticError) {
        let bytes = try ByteInput.readAll(path)
        let doc: Document =
            path.hasSuffix(".json")
            ? try JSONReader.read(bytes, file: path, keepSourceMap: true)
            : try YAMLReader.read(bytes, file: path)
        try add(schema: doc.value, file: path, location: doc.root.location)
    }

    /// Adds one schema document (it must have an `$id`).
    ///
    /// - Parameters:
    ///   - schema: the document.
    ///   - file: where it was read from, for messages.
    ///   - location: where in that file (nil: its start).
    /// - Throws: `DiagnosticError` when it has no `$id` or its `$id` is taken.
    public mutating func add(schema: Value, file: String, location: SourceLocation? = nil) throws(DiagnosticError) {
        guard case .string(let id)? = schema["$id"] else {
            throw DiagnosticError(.error("xdm.no-id", "schema in '\(file)' has no $id", at: location))
        }
        let canonical = URIReference(id).withoutFragment.text
        if let other = files[canonical], other != file {
            throw DiagnosticError(.error("xdm.duplicate-id", "$id '\(canonical)' is in both '\(other)' and '\(file)'", at: location))
        }
        files[canonical] = file
        documents[canonical] = schema
        schemas.add(schema, uri: canonical, origin: file)
    }

    /// Every `$ref` of every document that does not resolve.
    func checkReferences() -> [Diagnostic] {
        var out: [Diagnostic] = []
        for (id, file) in files.sorted(by: { $0.key < $1.key }) {
            var compiler = SchemaCompiler(registry: schemas)
            do {
                _ = try compiler.compile(uri: id)
            } catch {
                out.append(
                    .error("xdm.unresolved-ref", "\(error.message) (schema \(id))", at: SourceLocation(file: file, line: 1, column: 1)))
            }
        }
        return out
    }

    /// A class composed with field groups into one schema (`allOf` of them all), compiled.
    ///
    /// - Parameters:
    ///   - classID: the class's `$id`.
    ///   - fieldGroups: the field groups' `$id`s.
    /// - Returns: the composed schema.
    /// - Throws: `DiagnosticError` naming an id not loaded, or a schema that does not compile.
    public func compose(class classID: String, fieldGroups: [String] = []) throws(DiagnosticError) -> XDMSchema {
        for id in [classID] + fieldGroups where documents[URIReference(id).withoutFragment.text] == nil {
            let hint = closestID(id).map { " (did you mean '\($0)'?)" } ?? ""
            throw DiagnosticError(.error("xdm.unknown-schema", "no schema with $id '\(id)' is loaded\(hint)"))
        }
        var r = schemas
        let all: [Value] = ([classID] + fieldGroups).map { ["$ref": .string($0)] }
        let uri = "urn:rulekit:xdm:" + ([classID] + fieldGroups).joined(separator: "+")
        r.add(["$id": .string(uri), "allOf": .array(all)], uri: uri)
        do {
            let validator = try JSONSchemaValidator(registry: r, uri: uri)
            return XDMSchema(uri: uri, registry: r, validator: validator)
        } catch {
            throw DiagnosticError(.error("xdm.unresolved-ref", error.message))
        }
    }

    /// A compiled schema for one loaded `$id` on its own.
    ///
    /// - Parameter id: the schema's `$id`.
    /// - Returns: the compiled schema.
    /// - Throws: `DiagnosticError` naming an id not loaded, or a schema that does not compile.
    public func schema(_ id: String) throws(DiagnosticError) -> XDMSchema {
        try compose(class: id)
    }

    func closestID(_ id: String) -> String? {
        let last = id.split(ascii: UInt8(ascii: "/"), omittingEmpty: true).last ?? id
        // Sorted: of several that fit, the same one every run (a dictionary's order changes between runs).
        let ids = documents.keys.sorted()
        return ids.first { $0.hasSuffix("/" + last) } ?? ids.first { $0.lowercased() == id.lowercased() }
    }

    /// The ExperienceEvent class of the folder: the first `$id` in order that ends in `/experienceevent`
    /// (nil: none). Every consumer of events (run, lint, the report, serve) takes this one.
    public var experienceEventClass: String? {
        documents.keys.sorted().first { $0.hasSuffix("/experienceevent") }
    }

    /// The ExperienceEvent class composed with every field group that extends it (nil: the folder has no
    /// such class).
    public func experienceEvent() throws(DiagnosticError) -> XDMSchema? {
        guard let cls = experienceEventClass else { return nil }
        return try compose(class: cls, fieldGroups: fieldGroups(for: cls))
    }

    /// The field groups (`meta:intendedToExtend` contains `classID`) loaded for a class.
    ///
    /// - Parameter classID: the class's `$id`.
    /// - Returns: the field groups' `$id`s.
    public func fieldGroups(for classID: String) -> [String] {
        documents.filter { _, doc in
            doc["meta:intendedToExtend"]?.arrayValue?.contains(.string(classID)) == true
        }.keys.sorted()
    }
}

/// A composed, compiled XDM schema.
public struct XDMSchema: Sendable {
    /// The class's `$id`.
    public let uri: String
    let registry: SchemaRegistry
    /// The compiled validator of the composed schema.
    public let validator: JSONSchemaValidator

    /// Every leaf path of the schema with its type (see `XDMPathCatalog`).
    public var catalog: XDMPathCatalog { XDMPathCatalog(registry: registry, rootURI: uri) }
}
