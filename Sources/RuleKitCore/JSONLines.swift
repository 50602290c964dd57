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
    /// Each line's value, or the located error that made it unreadable.
    public typealias Element = Result<Value, DiagnosticError>

    let input: ByteInput
    let file: String
    let limits: ReaderLimits
    let chunkSize: Int

    /// Opens `path` (`-` for standard input); a missing file or a folder is an `input.unreadable` error.
    public init(path: String, limits: ReaderLimits = .default, chunkSize: Int = 1 << 20) throws(DiagnosticError) {
        input = try ByteInput(path: path)
        file = input.name
        self.limits = limits
        self.chunkSize = Swift.max(1, chunkSize)
    }

    /// Starts reading the input from its beginning.
    public func makeIterator() -> Iterator {
        Iterator(input: input, file: file, limits: limits, chunkSize: chunkSize)
    }

    /// Reads the input chunk by chunk and yields one record per non-blank line.
    public struct Iterator: IteratorProtocol {
        let input: ByteInput
        let file: String
        let limits: ReaderLimits
        let chunkSize: Int
        /// The size of the largest block of lines `nextBlock` made so far.
        var lastBlockBytes = 0
        var buffer: [UInt8] = []
        var start = 0
        /// Where the search for the next newline resumes: bytes before it (from `start`) hold none, so
        /// a long line is scanned once in all, not once per refill.
        var scanned = 0
        var line = 0
        var eof = false

        init(input: ByteInput, file: String, limits: ReaderLimits, chunkSize: Int) {
            self.input = input
            self.file = file
            self.limits = limits
            self.chunkSize = chunkSize
        }

        /// The 1-based line number of the record last returned.
        public var lineNumber: Int { line }

        /// The next record, or nil at the end of the input (or after an error that ends the stream).
        public mutating func next() -> Result<Value, DiagnosticError>? {
            while let raw = nextRaw() {
                switch raw {
                case .text(let range):
                    if let r = parse(range) { return r }
                case .failure(let e):
                    return .failure(e)
                }
            }
            return nil
        }

        /// One line as read: where its bytes are in `buffer` (until the next call), or the error that
        /// ends the stream.
        enum RawLine {
            case text(Range<Int>)
            case failure(DiagnosticError)
        }

        /// The next line, its blanks at both ends trimmed (possibly empty), counted in `line`.
        mutating func nextRaw() -> RawLine? {
            while true {
                if let nl = buffer.firstIndex(of: 0x0A, from: Swift.max(start, scanned)) {
                    line += 1
                    let range = start..<nl
                    start = nl + 1
                    scanned = start
                    return .text(trimmed(range))
                }
                scanned = buffer.count
                if eof {
                    guard start < buffer.count else { return nil }
                    line += 1
                    let range = start..<buffer.count
                    start = buffer.count
                    return .text(trimmed(range))
                }
                if buffer.count - start > limits.maxRecordBytes {
                    // A record this long is no event: the stream ends here, with the reason (reading on
                    // to the next newline could take forever on a stream that has none, like /dev/zero).
                    line += 1
                    eof = true
                    buffer.removeAll()
                    start = 0
                    scanned = 0
                    return .failure(
                        DiagnosticError(
                            .error(
                                .limitExceeded,
                                "line longer than the limit of \(limits.maxRecordBytes) bytes; the stream stops here",
                                at: SourceLocation(file: file, line: line, column: 1))))
                }
                // Refill: keep the unfinished tail, append the next chunk.
                if start > 0 {
                    buffer.removeSubrange(0..<start)
                    scanned -= start
                    start = 0
                }
                if let e = refill() { return .failure(e) }
            }
        }

        /// Up to `count` non-blank lines, copied out together, for a parser on another thread; nil at the
        /// end of the input. A read error ends the block (and the stream) as its `failure`.
        mutating func nextBlock(count: Int) -> JSONLinesBlock? {
            var block = JSONLinesBlock(file: file)
            // Sized as the last block was: growing a megabyte by doubling costs a score of large
            // allocations, each of which makes the allocator consolidate its free lists.
            block.bytes.reserveCapacity(lastBlockBytes)
            block.lines.reserveCapacity(count)
            defer { lastBlockBytes = Swift.max(lastBlockBytes, block.bytes.count) }
            while block.lines.count < count, let raw = nextRaw() {
                switch raw {
                case .text(let range):
                    guard !range.isEmpty else { continue }
                    let at = block.bytes.count
                    block.bytes.append(bytesOf: buffer, range)
                    block.lines.append((line, at..<block.bytes.count))
                case .failure(let e):
                    block.failure = (line, e)
                    return block
                }
            }
            return block.lines.isEmpty ? nil : block
        }

        func trimmed(_ range: Range<Int>) -> Range<Int> {
            var r = range
            while let f = r.first, buffer[f] == 0x20 || buffer[f] == 0x09 || buffer[f] == 0x0D { r = (f + 1)..<r.upperBound }
            while let l = r.last, buffer[l] == 0x20 || buffer[l] == 0x09 || buffer[l] == 0x0D { r = r.lowerBound..<l }
            return r
        }

        /// Reads the next chunk; at the end or on a read error, marks the end (the error is returned
        /// once, as the stream's last record).
        mutating func refill() -> DiagnosticError? {
            do {
                if try input.read(into: &buffer, count: chunkSize) == 0 { eof = true }
                return nil
            } catch {
                eof = true
                buffer.removeAll()
                start = 0
                scanned = 0
                return error
            }
        }

        /// nil for a blank line.
        func parse(_ r: Range<Int>) -> Result<Value, DiagnosticError>? {
            if r.isEmpty { return nil }
            let file = self.file
            let limits = self.limits
            let line = self.line
            return Result { () throws(DiagnosticError) -> Value in
                try JSONReader.read(buffer[r], file: file, limits: limits, lineOffset: line - 1).value
            }
        }
    }
}
