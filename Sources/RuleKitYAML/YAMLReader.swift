internal import Foundation
// RuleKitYAML turns YAML text into RuleKit's `Value` model, or into a tape. It is the one module that
// talks to libyaml (through the CYAML system library), and only in `Parser/`: libyaml's events are turned
// into values directly (`LibYAMLParser`), with no intermediate node tree, while the position of every node
// is recorded in a flat `SourceMap` so later layers can point diagnostics at the exact field; or they are
// pushed into a `JSONTape` that keeps the same positions (`YAMLTapeBuilder`), which the rules loaders walk
// without a tree.
public import RuleKitCore

/// Reads YAML 1.2 (core schema) into `Value`s with source positions, safely on hostile input.
///
/// - Plain scalars resolve by the YAML 1.2 core schema: `null`/`~`/empty, `true`/`false`, decimal, `0x`
///   and `0o` integers, floats including `.inf`/`.nan`. Quoted scalars are strings.
/// - Explicit tags `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!map`, `!!seq` are honoured; a
///   scalar with any other tag keeps its text.
/// - Anchors, aliases and merge keys (`<<`) work; an alias counts every node it expands to against
///   `ReaderLimits.maxNodes`, so a "billion laughs" document stops early with a clear error.
/// - Duplicate keys and complex (non-scalar) keys are errors.
/// - YAML 1.1 booleans (`yes`, `no`, `on`, `off`, `y`, `n`) stay strings and are reported as warnings.
/// - From 128 KiB of input, on a machine with two or more cores, libyaml's event pull runs on a thread of
///   its own for the length of the call while the calling thread builds the values; the result is the
///   same as on one thread.
///
/// ```swift
/// let docs = try YAMLReader.readAll(Array(text.utf8), file: "Rules/commerce.yaml")
/// let root = docs[0].root          // a ValueCursor with locations
/// ```
public enum YAMLReader {
    /// Reads every document of a stream.
    ///
    /// - Throws: `DiagnosticError` with the first syntax error or limit hit, located.
    public static func readAll(
        _ bytes: [UInt8], file: String = "<input>", limits: ReaderLimits = .default
    ) throws(DiagnosticError) -> [Document] {
        guard bytes.count <= limits.maxDocumentBytes else {
            throw DiagnosticError(
                .error(
                    .limitExceeded,
                    "input is \(bytes.count) bytes, over the limit of \(limits.maxDocumentBytes)",
                    at: SourceLocation(file: file, line: 1, column: 1)))
        }
        return try LibYAMLParser.parse(bytes, file: file, limits: limits)
    }

    /// Reads a stream that holds one document (an empty stream is `null`).
    ///
    /// - Throws: `DiagnosticError` on a syntax error, a limit, or a stream of several documents.
    public static func read(
        _ bytes: [UInt8], file: String = "<input>", limits: ReaderLimits = .default
    ) throws(DiagnosticError) -> Document {
        let docs = try readAll(bytes, file: file, limits: limits)
        if docs.count > 1 {
            throw DiagnosticError(
                .error(
                    .yamlUnsupported,
                    "expected one YAML document, found \(docs.count)",
                    at: docs[1].root.location ?? SourceLocation(file: file, line: 1, column: 1)))
        }
        // An empty stream is a null at its start, so what is said about it names the file.
        return docs.first ?? Document(value: .null, sourceMap: SourceMap(file: file, entries: [.init(line: 1, column: 1)]))
    }

    /// Reads text.
    public static func read(_ text: String, file: String = "<input>", limits: ReaderLimits = .default)
        throws(DiagnosticError) -> Document
    {
        try read(Array(text.utf8), file: file, limits: limits)
    }
}
