// Reading a JSON-lines stream on more than one core: lines are split off the input in order, blocks of them
// are parsed (and turned into whatever the caller needs) on worker threads, and the results come back to
// the calling thread in input order, with a bounded number of blocks in existence at any time.
internal import Dispatch
internal import Foundation

/// Lines read from a JSON-lines input, copied out together for a parser on another thread.
public struct JSONLinesBlock: Sendable {
    /// The file the lines came from, for diagnostics.
    public let file: String
    /// The bytes the lines were read from (blank lines and line ends included).
    var bytes: [UInt8] = []
    /// Each non-blank line: its 1-based number in the input and its range in `bytes`.
    var lines: [(number: Int, range: Range<Int>)] = []
    /// The read error that ended the stream after these lines, at its line.
    var failure: (line: Int, error: DiagnosticError)?
    /// Whether the block ended because its input paused (`JSONLinesReader.pauseMilliseconds`): a consumer
    /// then writes what it made of it at once, as the next lines may be long in coming.
    public internal(set) var endedAtPause = false

    init(file: String) { self.file = file }
}

/// One parsed line of a `JSONLinesBlock`.
public struct JSONLinesRecord: Sendable {
    /// The 1-based line number in the input.
    public let line: Int
    /// The value, or the located error that made the line unreadable.
    public let value: Result<Value, DiagnosticError>
    /// The exact text of the kept member's value (see `records(limits:keepingTextOf:)`).
    public let memberText: [UInt8]?
    /// The kept member read as a tape, and then left out of `value` (see `records(limits:tapeOf:)`).
    public let tape: JSONTape?

    /// A record of line `line`.
    public init(line: Int, value: Result<Value, DiagnosticError>, memberText: [UInt8]? = nil, tape: JSONTape? = nil) {
        self.line = line
        self.value = value
        self.memberText = memberText
        self.tape = tape
    }
}

extension JSONLinesBlock {
    /// Parses every line, as `JSONLinesReader` would; a read error that ended the stream is the last record.
    /// With `member`, each record also keeps the exact text of that top-level member's value (`memberText`).
    public func records(limits: ReaderLimits = .default, keepingTextOf member: String? = nil) -> [JSONLinesRecord] {
        guard let member else {
            var out: [JSONLinesRecord] = []
            out.reserveCapacity(lines.count + 1)
            for (number, range) in lines {
                let r = Result { () throws(DiagnosticError) -> Value in
                    try JSONReader.read(bytes[range], file: file, limits: limits, lineOffset: number - 1).value
                }
                out.append(JSONLinesRecord(line: number, value: r))
            }
            if let (line, error) = failure { out.append(JSONLinesRecord(line: line, value: .failure(error))) }
            return out
        }
        return records(limits: limits, capturing: member, asTape: false, sharing: [])
    }

    /// Parses every line, reading the top-level member `member` of each into a `JSONTape` when the tape
    /// takes it (an object with plain ASCII keys, none repeated): the record's `tape` then holds it and its
    /// `value` leaves it out. Otherwise the member stays in the value with its text kept, as
    /// `records(limits:keepingTextOf:)` does.
    ///
    /// A string value equal to one of `known` is that string: pass literals (event types and sources),
    /// which are never reference counted, so the events carrying them cost no atomic operation each time
    /// they are copied, compared or freed, on whichever thread.
    public func records(limits: ReaderLimits = .default, tapeOf member: String, sharing known: [String] = []) -> [JSONLinesRecord] {
        records(limits: limits, capturing: member, asTape: true, sharing: known)
    }

    /// As `records(limits:tapeOf:)`, handed to `body` a few at a time (`size`, the last group maybe fewer),
    /// in order, as they are read. A caller that reads each group's tapes at once finds them still in the
    /// processor's cache; a whole block's tapes (megabytes) are out of it again by the time they are read.
    public func records(
        limits: ReaderLimits = .default, tapeOf member: String, sharing known: [String] = [], groupsOf size: Int,
        _ body: ([JSONLinesRecord]) -> Void
    ) {
        records(limits: limits, capturing: member, asTape: true, sharing: known, groupsOf: max(1, size), body)
    }

    private func records(limits: ReaderLimits, capturing member: String, asTape: Bool, sharing known: [String])
        -> [JSONLinesRecord]
    {
        var out: [JSONLinesRecord] = []
        records(limits: limits, capturing: member, asTape: asTape, sharing: known, groupsOf: lines.count + 1) { out = $0 }
        return out
    }

    private func records(
        limits: ReaderLimits, capturing member: String, asTape: Bool, sharing known: [String], groupsOf size: Int,
        _ body: ([JSONLinesRecord]) -> Void
    ) {
        var group: [JSONLinesRecord] = []
        group.reserveCapacity(min(size, lines.count + 1))
        // The lines' other strings (name, type, source) repeat: made once per block, then shared.
        var interner: StringInterner? = StringInterner(slotCount: 256)
        interner?.adopt(known)
        // The tapes' nodes too: a few shared chunks for the block, not an allocation (and a free) per line.
        var chunk: TapeNodeChunk? = asTape ? TapeNodeChunk() : nil
        for (number, range) in lines {
            do {
                let r = try JSONReader.read(
                    bytes[range], file: file, limits: limits, lineOffset: number - 1, capturing: member, asTape: asTape,
                    interner: &interner, nodeChunk: &chunk)
                group.append(JSONLinesRecord(line: number, value: .success(r.value), memberText: r.memberText, tape: r.tape))
            } catch {
                group.append(JSONLinesRecord(line: number, value: .failure(error)))
            }
            if group.count == size {
                body(group)
                group.removeAll(keepingCapacity: true)
            }
        }
        if let (line, error) = failure { group.append(JSONLinesRecord(line: line, value: .failure(error))) }
        if !group.isEmpty { body(group) }
    }
}

/// One line of a `JSONLinesBlock` read by `documents(limits:)`.
public struct JSONLinesDocument: Sendable {
    /// What the line held.
    public enum Content: Sendable {
        /// An object the tape took (plain ASCII keys, none repeated).
        case tape(JSONTape)
        /// Any other JSON text.
        case value(Value)
        /// The located error that made the line unreadable.
        case failure(DiagnosticError)
    }

    /// The 1-based line number in the input.
    public let line: Int
    /// The line's tape, value or error.
    public let content: Content
}

extension JSONLinesBlock {
    /// Parses every line, as `records(limits:)` does, but a line that is an object the tape takes is read
    /// into a `JSONTape` instead of a `Value`. A read error that ended the stream is the last document.
    public func documents(limits: ReaderLimits = .default) -> [JSONLinesDocument] {
        var out: [JSONLinesDocument] = []
        out.reserveCapacity(lines.count + 1)
        forEachDocument(limits: limits) { out.append($0) }
        return out
    }

    /// The documents of `documents(limits:)`, each handed to `body` as soon as it is read, while its tape is
    /// still in the processor's cache.
    public func forEachDocument(limits: ReaderLimits = .default, _ body: (JSONLinesDocument) -> Void) {
        for (number, range) in lines {
            if let tape = JSONReader.tape(bytes[range], limits: limits) {
                body(JSONLinesDocument(line: number, content: .tape(tape)))
                continue
            }
            do {
                let v = try JSONReader.read(bytes[range], file: file, limits: limits, lineOffset: number - 1).value
                body(JSONLinesDocument(line: number, content: .value(v)))
            } catch {
                body(JSONLinesDocument(line: number, content: .failure(error)))
            }
        }
        if let (line, error) = failure { body(JSONLinesDocument(line: line, content: .failure(error))) }
    }
}

/// Streams a JSON-lines input through worker threads, keeping input order.
///
/// The input is split into blocks of lines, one block at a time and in order. Each block is handed to a
/// worker, which parses it and turns it into the caller's `Output` (events, match results, validation
/// verdicts). The calling thread receives the outputs in input order. With `workers: 0` everything runs on
/// the calling thread: the plain reference the tests compare the threaded run with.
///
/// Memory is bounded: at most `workers + 2` blocks are read and not yet consumed, however long the
/// stream. What a worker allocates is best released by that worker (freed on another thread, each node
/// goes back under its allocator's lock, against the worker's own allocations): the consumer may hand
/// outputs it is done with back through its return value, and workers drop them before their next block.
///
/// ```swift
/// try JSONLinesPipeline.run(reader, workers: 2, makeTransform: { { block in block.records().count } }) { n in
///     total += n
///     return nil
/// }
/// ```
public enum JSONLinesPipeline {
    /// The number of worker threads that suits this machine for a consumer that also needs a core:
    /// one per active processor beyond the first, at least one.
    public static var defaultWorkers: Int { max(1, ProcessInfo.processInfo.activeProcessorCount - 1) }

    /// Runs the stream through `makeTransform`'s closures and `consume`.
    ///
    /// - Parameters:
    ///   - reader: the input.
    ///   - blockSize: lines per block.
    ///   - workers: worker threads (0: everything on the calling thread).
    ///   - makeTransform: called once on each worker (or once on the calling thread with no workers); the
    ///     closure it returns is used only there, so it may keep state (a resolver, a buffer).
    ///   - setup: called on the calling thread once the workers have started, before the first block is
    ///     consumed: what the consumer needs (and the transform does not) is made while the first blocks
    ///     are read, not before.
    ///   - consume: called on the calling thread with each block's output, in input order. What it
    ///     returns is released by a worker (nil: nothing to give back).
    /// - Throws: what `setup` or `consume` throws; the stream then stops and the workers finish.
    public static func run<Output: Sendable>(
        _ reader: JSONLinesReader, blockSize: Int = 1024, workers: Int,
        makeTransform: @escaping @Sendable () -> (JSONLinesBlock) -> Output,
        setup: () throws -> Void = {},
        consume: (Output) throws -> Output?
    ) throws {
        let size = max(1, blockSize)
        guard workers > 0 else {
            try setup()
            var lines = reader.makeIterator()
            let transform = makeTransform()
            while let block = lines.nextBlock(count: size) {
                _ = try consume(transform(block))
            }
            return
        }
        let shared = Shared<Output>(reader.makeIterator(), depth: workers + 2)
        let done = DispatchGroup()
        for _ in 0..<workers {
            done.enter()
            DispatchQueue.global().async {
                defer { done.leave() }
                shared.work(size: size, transform: makeTransform())
            }
        }
        defer {
            shared.stop()
            done.wait()
        }
        try setup()
        var next = 0
        while let output = shared.take(next) {
            next += 1
            // No reference stays on this thread: `output` goes whole to `consume`, and what it gives back
            // is moved into the retired list under the lock, so a worker makes the last release.
            var giveBack = try consume(consume output)
            shared.retire(&giveBack)
        }
    }

    /// What the workers and the consumer share, under one condition lock.
    private final class Shared<Output: Sendable>: @unchecked Sendable {
        // @unchecked: every stored property is read and written only while `condition` is locked, but for
        // the iterator, which only the worker that set `reading` (under the lock) uses until it clears it.
        private let condition = NSCondition()
        private var lines: JSONLinesReader.Iterator
        private let depth: Int
        /// Blocks read and not yet consumed.
        private var inUse = 0
        /// The number the next block read gets.
        private var nextIndex = 0
        /// The input has ended: no block numbered `nextIndex` or later will exist.
        private var ended = false
        /// The consumer stopped (finished or threw): workers read no more.
        private var stopped = false
        /// A worker is reading a block: the iterator is its own until it sets this back (under the lock).
        private var reading = false
        /// Outputs ready, by block number.
        private var ready: [Int: Output] = [:]
        /// Outputs the consumer is done with, for a worker to release.
        private var retired: [Output] = []

        init(_ lines: JSONLinesReader.Iterator, depth: Int) {
            self.lines = lines
            self.depth = depth
        }

        /// A worker's loop: wait for room, read the next block in order, transform it, post it.
        func work(size: Int, transform: (JSONLinesBlock) -> Output) {
            while true {
                condition.lock()
                while (inUse >= depth || reading) && !stopped && !ended { condition.wait() }
                // What the consumer gave back is released here, with the lock not held, before the next
                // block (or before this worker leaves).
                let old = retired
                retired = []
                if stopped || ended {
                    condition.unlock()
                    _ = consume old
                    return
                }
                // The block is read with the lock released: a read may wait for a slow input, and the
                // consumer must meanwhile take the blocks already made (a block that ended at a pause is
                // written while the input is silent). `reading` keeps the iterator to this worker.
                reading = true
                condition.unlock()
                let next = lines.nextBlock(count: size)
                condition.lock()
                reading = false
                guard let block = next else {
                    ended = true
                    condition.broadcast()
                    condition.unlock()
                    _ = consume old
                    return
                }
                let index = nextIndex
                nextIndex += 1
                inUse += 1
                condition.broadcast()
                condition.unlock()
                _ = consume old
                let output = transform(block)
                condition.lock()
                ready[index] = output
                condition.broadcast()
                condition.unlock()
            }
        }

        /// Block `index`'s output, once ready; nil when the input ended before it.
        func take(_ index: Int) -> Output? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let output = ready.removeValue(forKey: index) { return output }
                if ended && index >= nextIndex { return nil }
                condition.wait()
            }
        }

        /// The consumer is done with a block: room for another, and perhaps something to release (moved out
        /// of `output`, which is left nil).
        func retire(_ output: inout Output?) {
            condition.lock()
            inUse -= 1
            if let o = output { retired.append(o) }
            output = nil
            condition.broadcast()
            condition.unlock()
        }

        func stop() {
            condition.lock()
            stopped = true
            ready = [:]
            condition.broadcast()
            condition.unlock()
        }
    }
}
