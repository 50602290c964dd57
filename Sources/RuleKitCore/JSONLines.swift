internal import Foundation

/// Streams a JSON-lines input (one JSON text per line) without holding the whole file.
///
/// Blank lines are skipped. Each record is parsed on its own, so one broken line yields a diagnostic for
/// that line and the stream goes on.
///
/// ```swift
/// for record in try JSONLinesReader(path: "events.jsonl") {
///     let event = try record.get()
/// }
/// ```
public struct JSONLinesReader: Sequence {
    public typealias Element = Result<Value, DiagnosticError>

    let handle: FileHandle
    let file: String
    let limits: ReaderLimits
    let chunkSize: Int

    /// Opens `path` (`-` for standard input).
    public init(path: String, limits: ReaderLimits = .default, chunkSize: Int = 1 << 20) throws(DiagnosticError) {
        if path == "-" {
            handle = FileHandle.standardInput
            file = "<stdin>"
        } else {
            guard let h = FileHandle(forReadingAtPath: path) else {
                throw DiagnosticError(.error(.unreadable, "cannot open '\(path)'"))
            }
            handle = h
            file = path
        }
        self.limits = limits
        self.chunkSize = chunkSize
    }

    public func makeIterator() -> Iterator {
        Iterator(handle: handle, file: file, limits: limits, chunkSize: chunkSize)
    }

    public struct Iterator: IteratorProtocol {
        let handle: FileHandle
        let file: String
        let limits: ReaderLimits
        let chunkSize: Int
        var buffer: [UInt8] = []
        var start = 0
        var line = 0
        var eof = false

        init(handle: FileHandle, file: String, limits: ReaderLimits, chunkSize: Int) {
            self.handle = handle
            self.file = file
            self.limits = limits
            self.chunkSize = chunkSize
        }

        /// The 1-based line number of the record last returned.
        public var lineNumber: Int { line }

        public mutating func next() -> Result<Value, DiagnosticError>? {
            while true {
                if let nl = buffer[start...].firstIndex(of: 0x0A) {
                    line += 1
                    let range = start..<nl
                    start = nl + 1
                    if let r = parse(range) { return r }
                    continue
                }
                if eof {
                    guard start < buffer.count else { return nil }
                    line += 1
                    let range = start..<buffer.count
                    start = buffer.count
                    return parse(range)
                }
                if buffer.count - start > limits.maxDocumentBytes {
                    eof = true
                    start = buffer.count
                    line += 1
                    return .failure(DiagnosticError(.error(.limitExceeded,
                        "line longer than \(limits.maxDocumentBytes) bytes",
                        at: SourceLocation(file: file, line: line, column: 1))))
                }
                // Refill: keep the unfinished tail, append the next chunk.
                buffer.removeSubrange(0..<start)
                start = 0
                let data = handle.readData(ofLength: chunkSize)
                if data.isEmpty { eof = true } else { buffer.append(contentsOf: data) }
            }
        }

        /// nil for a blank line.
        func parse(_ range: Range<Int>) -> Result<Value, DiagnosticError>? {
            var r = range
            while let f = r.first, buffer[f] == 0x20 || buffer[f] == 0x09 || buffer[f] == 0x0D { r = (f + 1)..<r.upperBound }
            while let l = r.last, buffer[l] == 0x20 || buffer[l] == 0x09 || buffer[l] == 0x0D { r = r.lowerBound..<l }
            if r.isEmpty { return nil }
            let file = self.file, limits = self.limits, line = self.line
            return buffer.withUnsafeBufferPointer { all in
                Result { () throws(DiagnosticError) -> Value in
                    try JSONReader.read(buffer: UnsafeBufferPointer(rebasing: all[r]), file: file, limits: limits,
                                        lineOffset: line - 1).value
                }
            }
        }
    }
}
