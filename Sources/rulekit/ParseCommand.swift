import ArgumentParser
import RuleKitCore

/// `rulekit parse`: shows how YAML (or JSON) resolved, as JSON.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Read YAML or JSON files and print each document as JSON.",
        discussion: """
            Shows how YAML resolved your scalars (yes stays a string, 0x1F is 31, 22.0 a double). \
            Files ending in .json are read as JSON, everything else as YAML; '-' reads standard input.

            Example:
              rulekit parse Rules/commerce.yaml
              echo 'a: [1, 0x1F, yes, 22.0]' | rulekit parse -
            """
    )

    @Flag(name: .shortAndLong, help: "Only check: print nothing but diagnostics.")
    var quiet = false

    @Flag(help: "Print each document on one line.")
    var compact = false

    @Option(help: "Read every input as this format (yaml or json) instead of guessing by extension.")
    var format: InputFormat?

    @Argument(help: "Files to read ('-' for standard input).")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file ('-' for standard input)") }
    }

    func run() throws {
        var out = StdoutBuffer()
        var failed = false
        var unreadable = false
        for (index, path) in files.enumerated() {
            do {
                let docs = try InputFiles.documents(path, format: format)
                var renderer = DiagnosticRenderer()
                for doc in docs {
                    if !doc.warnings.isEmpty {
                        if let bytes = try? InputFiles.bytes(path), path != "-" {
                            renderer.addSource(String(decoding: bytes, as: UTF8.self), for: path)
                        }
                        Stderr.write(renderer.render(doc.warnings) + "\n")
                    }
                    if !quiet {
                        out.write(JSONWriter.string(doc.value, options: compact ? .compact : .pretty) + "\n")
                    }
                }
                // The last file's documents are left to the process's end (the others are freed as usual:
                // memory stays that of one file).
                if index == files.count - 1 { KeptUntilExit.keep(docs) }
            } catch .unreadable(let message) {
                Stderr.write("error: \(message)\n")
                unreadable = true
            } catch .invalid(let error, let source) {
                var renderer = DiagnosticRenderer()
                renderer.addSource(source, for: InputFiles.displayName(path))
                Stderr.write(renderer.render(error.diagnostics) + "\n")
                failed = true
            }
        }
        out.flush()
        if unreadable { throw ExitCode(2) }
        if failed { throw ExitCode(1) }
    }
}
