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

struct XDMValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate JSON or JSON-lines payloads against an XDM class with field groups, or a schema file.",
        discussion: """
            With --format json, one line per input document: {"line":N,"valid":true|false,"errors":[...]}. \
            Text output lists only the invalid documents. Exit 1 if any is invalid.

            Example:
              rulekit xdm validate --class https://rulekit.dev/xdm/sdk/experienceevent \\
                --mixin https://rulekit.dev/xdm/sdk/commerce-details \\
                Schemas/examples/commerce-details.example.json
            """
    )

    enum Format: String, ExpressibleByArgument { case text, json }

    @OptionGroup var choice: SchemaChoice

    @Option(help: "text or json.")
    var format: Format = .text

    @Argument(help: "JSON or JSON-lines (.jsonl) files.")
    var files: [String]

    @Option(
        parsing: .unconditional,
        help: "Threads that read, parse and validate JSON-lines payloads (0: all on one thread; default: one per processor).")
    var threads: Int?

    func validate() throws {
        if let threads, threads < 0 || threads > 64 { throw ValidationError("--threads must be between 0 and 64") }
    }

    func run() throws {
        let validator = try choice.load()
        var out = StdoutBuffer()
        var invalid = 0
        var unreadable = false
        func report(_ file: String, _ v: ValidationStream.Verdict) {
            if !v.isValid { invalid += 1 }
            switch format {
            case .json:
                let obj: Value = [
                    "line": .int(Int64(v.line)), "valid": .bool(v.isValid),
                    "errors": .array(v.errors.map { ["path": .string($0.path), "message": .string($0.message)] }),
                ]
                out.write(JSONWriter.string(obj) + "\n")
            case .text:
                for e in v.errors { out.write("\(file):\(v.line): \(e.path.isEmpty ? "/" : e.path): \(e.message)\n") }
            }
        }
        for file in files {
            if file.hasSuffix(".jsonl") {
                let reader: JSONLinesReader
                do { reader = try JSONLinesReader(path: file) } catch {
                    Stderr.write("error: cannot read '\(file)'\n")
                    unreadable = true
                    continue
                }
                try ValidationStream.run(reader, validator: validator, workers: threads ?? JSONLinesPipeline.defaultWorkers + 1) {
                    for v in $0 { report(file, v) }
                }
                continue
            }
            let raw: [UInt8]
            do { raw = try InputFiles.bytes(file) } catch {
                let message = if case .unreadable(let m) = error { m } else { "cannot read '\(file)'" }
                Stderr.write("error: \(message)\n")
                unreadable = true
                continue
            }
            report(file, ValidationStream.document(raw, file: InputFiles.displayName(file), validator: validator))
        }
        out.flush()
        if unreadable { throw ExitCode(2) }
        if invalid > 0 { throw ExitCode(1) }
    }
}

struct XDMPathsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "List every leaf path of an XDM class with field groups, with its type.",
        discussion: """
            Example:
              rulekit xdm paths --class https://rulekit.dev/xdm/sdk/experienceevent \\
                --mixin https://rulekit.dev/xdm/sdk/web-details
            """
    )

    @OptionGroup var xdm: XDMClassOptions

    func validate() throws {
        if xdm.classID == nil { throw ValidationError("xdm paths needs --class (with --mixin for field groups)") }
    }

    func run() throws {
        guard let classID = xdm.classID else { throw ExitCode(2) }
        let (_, catalog) = try xdm.compose(classID)
        var out = StdoutBuffer()
        for p in catalog.paths {
            out.write("\(p.path)\t\(p.type)\(p.format.map { " (\($0))" } ?? "")\n")
        }
        out.flush()
    }
}
