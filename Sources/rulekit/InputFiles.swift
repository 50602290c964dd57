import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitYAML

/// How an input file is read: by its extension, or as asked.
enum InputFormat: String, CaseIterable, ExpressibleByArgument {
    case yaml, json

    static func guess(_ path: String) -> InputFormat {
        let lower = path.lowercased()
        return lower.hasSuffix(".json") || lower.hasSuffix(".jsonl") ? .json : .yaml
    }
}

/// Why an input could not be used.
enum InputError: Error {
    /// The file could not be read at all (exit 2).
    case unreadable(String)
    /// The file was read but has errors (exit 1); the source text is kept for rendering.
    case invalid(DiagnosticError, source: String)
}

enum InputFiles {
    /// The bytes of `path` (`-` for standard input), at most the reader's document limit.
    static func bytes(_ path: String) throws(InputError) -> [UInt8] {
        do { return try ByteInput.readAll(path) } catch {
            throw .unreadable(error.diagnostics.first?.message ?? "cannot read '\(path)'")
        }
    }

    /// How diagnostics name the input `path` (`-` is standard input).
    static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// Every document of a YAML or JSON file.
    static func documents(_ path: String, format: InputFormat? = nil) throws(InputError) -> [Document] {
        let raw = try bytes(path)
        let name = displayName(path)
        do {
            switch format ?? (path == "-" ? .yaml : InputFormat.guess(path)) {
            case .json: return [try JSONReader.read(raw, file: name, keepSourceMap: true)]
            case .yaml: return try YAMLReader.readAll(raw, file: name)
            }
        } catch {
            throw .invalid(error, source: String(decoding: raw, as: UTF8.self))
        }
    }
}
