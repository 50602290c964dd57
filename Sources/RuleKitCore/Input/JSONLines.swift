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
    /// How long a stream (a pipe, a terminal) may pause before the block of lines being gathered for a
    /// parser ends where the input paused: 20 ms, too short for a person to notice and long enough that a
    /// producer writing steadily fills whole blocks.
    public var pauseMilliseconds: Int32 = 20

    /// Opens `path` (`-` for standard input); a missing file or a folder is an `input.unreadable` error.
    public init(path: String, limits: ReaderLimits = .default, chunkSize: Int = 1 << 20) throws(DiagnosticError) {
        input = try ByteInput(path: path)
        file = input.name
        self.limits = limits
        self.chunkSize = Swift.max(1, chunkSize)
    }

    /// Starts reading the input from its beginning.
    public func makeIterator() -> Iterator {
        Iterator(input: input, file: file, limits: limits, chunkSize: chunkSize, pauseMilliseconds: pauseMilliseconds)
    }

    /// Reads the input chunk by chunk and yields one record per non-blank line.
    public struct Iterator: IteratorProtocol {
        let input: ByteInput
        let file: String
        let limits: ReaderLimits
        let chunkSize: Int
        var buffer: [UInt8] = []
        var start = 0
        /// Where the search for the next newline resumes: bytes before it (from `start`) hold none, so
        /// a long line is scanned once in all, not once per refill.
        var scanned = 0
        var line = 0
        var eof = false
        /// While `nextBlock` gathers lines: the bytes of `buffer` are the block's, so a refill appends
        /// without dropping the lines already read, and the stream's end drops only the unfinished line.
        var pinned = false
        /// Set by `nextBlock` once its block has a fair share of its lines: `nextRaw` then ends the block
        /// (returns nil) where the bytes read so far end, rather than read more.
        var holdReads = false
        /// Set by `nextBlock` once its block has a line: `nextRaw` then ends the block where the bytes read
        /// so far end when the input pauses for `pauseMilliseconds` (a person typing, a slow producer), so
        /// what was read is evaluated and written now rather than when the block fills.
        var endsAtPause = false
        /// Set when the last block ended because the input paused.
        var paused = false
        /// How long an input may pause before the block being read ends (`JSONLinesReader.pauseMilliseconds`).
        let pauseMilliseconds: Int32

        init(input: ByteInput, file: String, limits: ReaderLimits, chunkSize: Int, pauseMilliseconds: Int32) {
            self.input = input
            self.file = file
            self.limits = limits
            self.chunkSize = chunkSize
            self.pauseMilliseconds = pauseMilliseconds
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
                if holdReads { return nil }
                // Only where a read is due (once a chunk, never per line): a stream that has nothing more
                // to give for a while ends the block here.
                if endsAtPause, !input.readable(within: pauseMilliseconds) {
                    paused = true
                    return nil
                }
                if buffer.count - start > limits.maxRecordBytes {
                    // A record this long is no event: the stream ends here, with the reason (reading on
                    // to the next newline could take forever on a stream that has none, like /dev/zero).
                    line += 1
                    eof = true
                    dropUnread()
                    return .failure(
                        DiagnosticError(
                            .error(
                                .limitExceeded,
                                "line longer than the limit of \(limits.maxRecordBytes) bytes; the stream stops here",
                                at: SourceLocation(file: file, line: line, column: 1))))
                }
                // Refill: keep the unfinished tail (and a block's lines), append the next chunk.
                if start > 0 && !pinned {
                    buffer.removeSubrange(0..<start)
                    scanned -= start
                    start = 0
                }
                if let e = refill() { return .failure(e) }
            }
        }

        /// Up to `count` non-blank lines (and at most about `blockBytes` of them), for a parser on another
        /// thread; nil at the end of the input. A read error ends the block (and the stream) as its `failure`.
        ///
        /// The block takes the read buffer itself, with its lines where they were read (no copy of them):
        /// the buffer starts at the block's first line, grows as the lines come, and what was read past
        /// the block's last line starts the next buffer.
        mutating func nextBlock(count: Int) -> JSONLinesBlock? {
            var block = JSONLinesBlock(file: file)
            block.lines.reserveCapacity(count)
            if start > 0 {
                buffer.removeSubrange(0..<start)
                scanned -= start
                start = 0
            }
            // Room for a read: growing a megabyte by doubling costs a score of large allocations, each of
            // which makes the allocator consolidate its free lists.
            buffer.reserveCapacity(buffer.count + chunkSize)
            pinned = true
            paused = false
            read: while block.lines.count < count && start < Self.blockBytes {
                // Past a quarter of its lines, the block ends where the bytes read so far do: what another
                // read brought past the block's end would be copied into the next buffer. (A pipe hands
                // over 64 KB a read: a block is then a few reads.)
                holdReads = block.lines.count >= count / 4 && !block.lines.isEmpty
                endsAtPause = !block.lines.isEmpty
                guard let raw = nextRaw() else { break }
                switch raw {
                case .text(let range):
                    if !range.isEmpty { block.lines.append((line, range)) }
                case .failure(let e):
                    block.failure = (line, e)
                    break read
                }
            }
            pinned = false
            holdReads = false
            endsAtPause = false
            // Hand the buffer over: the next one starts with what follows the block's last line.
            var next: [UInt8] = []
            next.reserveCapacity(buffer.count - start + chunkSize)
            next.append(bytesOf: buffer, start..<buffer.count)
            block.bytes = buffer
            block.endedAtPause = paused
            buffer = next
            scanned -= start
            start = 0
            return block.lines.isEmpty && block.failure == nil ? nil : block
        }

        /// A block's lines stop at the first line that ends past this many bytes (unless it is the first).
        static let blockBytes = 8 << 20

        /// Drops what is left unread when the stream ends early: the unfinished line (a block's lines stay).
        mutating func dropUnread() {
            if pinned {
                buffer.removeSubrange(start...)
                scanned = start
            } else {
                buffer.removeAll()
                start = 0
                scanned = 0
            }
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
                dropUnread()
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
