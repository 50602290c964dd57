import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitXDM

/// `rulekit xdm`: validate payloads against XDM schemas, list a schema's paths.
struct XDMCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xdm",
        abstract: "Validate XDM payloads and list XDM paths.",
        discussion: """
            Example:
              rulekit xdm validate --class https://rulekit.dev/xdm/sdk/experienceevent \\
                --mixin https://rulekit.dev/xdm/sdk/web-details \\
                Schemas/examples/web-details.example.json
              rulekit xdm paths --class https://rulekit.dev/xdm/sdk/experienceevent
            """,
        subcommands: [XDMValidateCommand.self, XDMPathsCommand.self]
    )
}

/// An XDM class with field groups, from the schema folder.
struct XDMClassOptions: ParsableArguments {
    @Option(name: .customLong("class"), help: "The XDM class $id (with --mixin for field groups).")
    var classID: String?

    @Option(name: .customLong("mixin"), help: "A field group $id (repeatable).")
    var mixins: [String] = []

    @Option(help: "The folder of XDM schemas.")
    var schemas: String = "Schemas"

    /// The class composed with its field groups (exit 2 when the folder or a schema cannot be used).
    func compose(_ classID: String) throws -> (JSONSchemaValidator, XDMPathCatalog) {
        try reportingExit2 {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: schemas, isDirectory: &isDir), isDir.boolValue else {
                throw InputError.unreadable("no schema folder '\(schemas)'")
            }
            let composed = try XDMRegistry(folder: URL(fileURLWithPath: schemas)).compose(class: classID, fieldGroups: mixins)
            return (composed.validator, composed.catalog)
        }
    }
}

/// Options naming the schema: a class with field groups from the schema folder, or one schema file.
struct SchemaChoice: ParsableArguments {
    @OptionGroup var xdm: XDMClassOptions

    @Option(help: "Any JSON Schema file (e.g. a bundled one) instead of --class.")
    var schema: String?

    func validate() throws {
        if (xdm.classID == nil) == (schema == nil) { throw ValidationError("give either --class (with --mixin) or --schema") }
        if schema != nil && !xdm.mixins.isEmpty { throw ValidationError("--mixin goes with --class, not --schema") }
    }

    /// The compiled validator (exit 2 when the schemas cannot be read or composed).
    func load() throws -> JSONSchemaValidator {
        if let classID = xdm.classID { return try xdm.compose(classID).0 }
        guard let schema else { throw ExitCode(2) }
        return try reportingExit2 {
            let docs = try InputFiles.documents(schema)
            guard let v = docs.first?.value else { throw InputError.unreadable("'\(schema)' holds no schema") }
            var registry = SchemaRegistry()
            MetaSchemas.register(in: &registry)
            return try JSONSchemaValidator(schema: v, registry: registry)
        }
    }
}

/// Runs `body`; an input, diagnostic or schema error is reported on standard error and exits 2.
func reportingExit2<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as InputError {
        if case .unreadable(let m) = e { Stderr.write("error: \(m)\n") }
        if case .invalid(let d, _) = e { Stderr.write(d.description + "\n") }
        throw ExitCode(2)
    } catch let e as DiagnosticError {
        Stderr.write(DiagnosticRenderer().render(e.diagnostics) + "\n")
        throw ExitCode(2)
    } catch let e as SchemaError {
        Stderr.write("error: \(e.message)\n")
        throw ExitCode(2)
    }
}
