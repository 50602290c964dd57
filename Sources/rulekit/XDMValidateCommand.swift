import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitXDM

/// `rulekit xdm validate`: payloads against a class of the schema folder or one schema file.
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
