// Payloads checked against a schema as a stream: the driver of `rulekit xdm validate`, as one library call.
// JSON-lines files are read, parsed and validated on worker threads, a block at a time, and handed back in
// input order, so memory does not grow with the stream; a single JSON document is validated in place.
public import RuleKitCore

/// Validates payloads (JSON documents, or JSON-lines streams of them) against one schema.
///
/// ```swift
/// try ValidationStream.run(reader, validator: validator) { verdicts in
///     for v in verdicts where !v.isValid { print(v.line, v.errors) }
/// }
/// ```
public enum ValidationStream {
    /// What the schema said of one payload.
    public struct Verdict: Sendable, Equatable {
        /// The payload's line (1 for a single document; a syntax error's own line).
        public var line: Int
        /// Each error: the JSON pointer of the instance location ("" for the root, or for a payload that is
        /// not JSON) and its message. Empty: valid.
        public var errors: [Problem]

        /// Whether the payload is valid.
        public var isValid: Bool { errors.isEmpty }
    }

    /// One error of a payload.
    public struct Problem: Sendable, Equatable {
        /// The instance location, as a JSON pointer ("" for the root).
        public var path: String
        /// What is wrong.
        public var message: String
    }

    /// Validates every line of `reader`, on `workers` threads (0: all on the calling thread), and hands the
    /// verdicts of each block to `consume`, in input order.
    ///
    /// - Parameters:
    ///   - reader: the JSON lines.
    ///   - validator: the schema each payload is checked against.
    ///   - workers: threads validating blocks (0: the calling thread only).
    ///   - consume: hears each block's verdicts, in input order; its error stops the run.
    /// - Throws: the reader's or `consume`'s error.
    public static func run(
        _ reader: JSONLinesReader, validator: JSONSchemaValidator,
        workers: Int = JSONLinesPipeline.defaultWorkers + 1, consume: ([Verdict]) throws -> Void
    ) throws {
        try JSONLinesPipeline.run(reader, blockSize: 512, workers: workers) {
            { block in
                // An object payload is read into a tape and validated there, as soon as it is read (while in
                // cache); only an invalid one is made into a `Value`, for its errors.
                var verdicts: [Verdict] = []
                block.forEachDocument { document in
                    let errors: [Problem] =
                        switch document.content {
                        case .tape(let t): validator.validate(t).map(Problem.init)
                        case .value(let v): validator.validate(v).map(Problem.init)
                        case .failure(let e): e.diagnostics.map { Problem(path: "", message: "not JSON: \($0.message)") }
                        }
                    verdicts.append(Verdict(line: document.line, errors: errors))
                }
                return verdicts
            }
        } consume: { verdicts in
            try consume(verdicts)
            return nil
        }
    }

    /// The verdict on one JSON document's bytes, named `file` in a syntax error. An object is read into a
    /// tape and validated there, as a JSON-lines payload is; anything the tape does not take is read as a
    /// `Value` (which also gives a syntax error its place).
    ///
    /// - Parameters:
    ///   - bytes: the document.
    ///   - file: its name, for a syntax error.
    ///   - validator: the schema it is checked against.
    /// - Returns: the verdict.
    public static func document(_ bytes: [UInt8], file: String, validator: JSONSchemaValidator) -> Verdict {
        if let tape = JSONReader.tape(bytes[...]) {
            return Verdict(line: 1, errors: validator.validate(tape).map(Problem.init))
        }
        do {
            let value = try JSONReader.read(bytes, file: file).value
            return Verdict(line: 1, errors: validator.validate(value).map(Problem.init))
        } catch {
            return Verdict(
                line: error.diagnostics.first?.location?.line ?? 1,
                errors: error.diagnostics.map { Problem(path: "", message: "not JSON: \($0.message)") })
        }
    }
}

extension ValidationStream.Problem {
    init(_ e: ValidationError) { self.init(path: e.instancePath, message: e.message) }
}
