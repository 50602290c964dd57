// A stream of recorded events through a `RulesHost`, block by block, as `rulekit run` drives it: the
// input read and parsed on worker threads (`JSONLinesPipeline`), each block dispatched once the one before
// has been delivered with everything it caused (the output is the same on every run, however the threads
// are timed), and what each block produced written in order.
internal import Foundation
public import RuleKitCore
public import RuleKitHistory

/// Recorded events through a host, block by block.
///
/// ```swift
/// let out = EventLines { bytes in FileHandle.standardOutput.write(Data(bytes)) }
/// let summary = try EventStream.run(reader, name: "events.jsonl", output: out) { try RulesHost(configuration) }
/// ```
public enum EventStream {
    /// How the stream is cut and driven.
    public struct Options: Sendable {
        /// Input events dispatched per block.
        public var blockSize = 1024
        /// Threads that read and parse blocks while the hub runs (0: on the calling thread).
        public var workers = JSONLinesPipeline.defaultWorkers
        /// Blocks in flight when the host reads each block's history from its store: a block's read and the
        /// writes of those before it run while the hub evaluates another, and while a write runs the records
        /// of the blocks evaluated meanwhile wait for the next, so a slow store is written in fewer, larger
        /// transactions (figures: `docs/performance.md`). Without history, one.
        public var historyDepth = 8
        /// Blocks in flight when the host's history is indexed in this process (a SQLite file): no read to
        /// wait for, only the write of the block before, so fewer blocks parsed ahead, and warmer in cache
        /// when the hub reaches them (figures: `docs/performance.md`).
        public var indexedHistoryDepth = 3
        /// Whether the host's observer writes every delivered event itself (then blocks write nothing).
        public var observerWrites = false

        /// The defaults.
        public init() {}
    }

    /// What went through.
    public struct Summary: Sendable {
        /// Events read.
        public var events = 0
        /// Lines that were no event (each reported through `problem`).
        public var bad = 0
        /// Events the hub delivered for them, written or not.
        public var delivered = 0
    }

    /// A block's history could be kept nowhere: the output stops at the last block kept.
    public struct HistoryFailure: Error, CustomStringConvertible {
        /// Why.
        public let reason: HistoryUnavailable
        /// What the tool says.
        public var description: String {
            "event history could not be written (\(reason)); the output stops at the last block kept"
        }
    }

    /// Streams `reader` through the host `boot` makes (made on this thread while the workers read the
    /// first blocks). Each line that is no event goes to `problem`, rendered with its location; `progress`
    /// hears the count of events read after each block.
    ///
    /// - Parameters:
    ///   - reader: the input's JSON lines.
    ///   - name: the input's name, in problems.
    ///   - options: block size, workers, what is written.
    ///   - output: where delivered events are written.
    ///   - problem: hears each line that is no event, rendered.
    ///   - progress: hears the count of events read after each block.
    ///   - boot: makes the host (called once, on this thread).
    /// - Returns: the counts of the run.
    /// - Throws: what `boot` throws; `HistoryFailure` when a block's history could be kept nowhere.
    public static func run(
        _ reader: JSONLinesReader, name: String, options: Options = Options(), output: EventLines,
        problem: (String) -> Void = { _ in }, progress: ((Int) -> Void)? = nil, boot: () throws -> RulesHost
    ) throws -> Summary {
        var booted: RulesHost?
        var summary = Summary()
        var failure: HistoryUnavailable?
        var flights: [Flight] = []
        let observerWrites = options.observerWrites
        func write(_ events: [Event]) {
            // The data stream holds events; XDM alignment findings are diagnostics.
            if !observerWrites { output.write(events) { $0.type != XDMAlignment.diagnosticsEventType } }
        }
        /// Writes what a block that is done delivered (nothing once a block's history could not be kept).
        /// Returns its input, to be freed by the worker that parsed it.
        func land(_ f: Flight) -> Block {
            switch f.outcome() {
            case .success(let events)?:
                if failure == nil {
                    summary.delivered += events.count
                    write(events)
                }
            case .failure(let e)?:
                if failure == nil { failure = e }
            case nil:
                break
            }
            return f.block
        }
        /// Hands `block` to the hub; returns the input of a block landed meanwhile.
        func send(_ block: Block) -> Block? {
            // `booted` is set before the first block comes (the pipeline's setup).
            guard !block.events.isEmpty, let host = booted else { return nil }
            // Without history one block is in flight: the one before is delivered before this one is
            // dispatched, and written while the hub evaluates this one (the hub's thread, the busiest, does
            // no writing). With history the host keeps the blocks' order itself.
            let depth: Int
            if !host.keepsBlockHistory {
                depth = 1
            } else {
                depth = max(1, host.readsBlockHistory ? options.historyDepth : options.indexedHistoryDepth)
            }
            var before: Flight?
            if depth == 1, !flights.isEmpty {
                before = flights.removeFirst()
                _ = before?.outcome()
            }
            let f = Flight(block)
            flights.append(f)
            host.process(block.events) { f.end($0) }
            var landed = before.map(land)
            while flights.count > depth { landed = land(flights.removeFirst()) }
            return landed
        }
        try JSONLinesPipeline.run(reader, blockSize: options.blockSize, workers: options.workers) {
            { lines in
                var out = Block()
                out.endedAtPause = lines.endedAtPause
                out.events.reserveCapacity(options.blockSize)
                // The data of each event is kept as read, in a tape: the engine reads it there, and unchanged
                // data is written out as those bytes.
                for record in lines.records(tapeOf: "data", sharing: EventJSON.knownStrings) {
                    switch EventJSON.checkedEvent(record, file: name) {
                    case .success(let e): out.events.append(e)
                    case .failure(let e): out.problems.append(DiagnosticRenderer().render(e.diagnostics))
                    }
                }
                return out
            }
        } setup: {
            booted = try boot()
        } consume: { block in
            if let failure {
                output.flush()
                throw HistoryFailure(reason: failure)
            }
            for p in block.problems { problem(p) }
            summary.bad += block.problems.count
            summary.events += block.events.count
            progress?(summary.events)
            // A landed block goes back to the worker that parsed it, to be released there: freed on another
            // thread, every node of every event would go back to the worker's allocator under its lock,
            // against the worker's own allocations.
            let landed = send(block)
            guard block.endedAtPause else { return landed }
            // The input paused: what it gave so far is delivered and written now, not when more comes.
            while !flights.isEmpty { _ = land(flights.removeFirst()) }
            output.flush()
            return landed
        }
        while !flights.isEmpty { _ = land(flights.removeFirst()) }
        // What the blocks kept produced is written, even when a later block's history was not kept.
        output.flush()
        if let failure { throw HistoryFailure(reason: failure) }
        return summary
    }

    /// What a worker makes of one block of input.
    struct Block: Sendable {
        /// The events of the block's object lines, in order.
        var events: [Event] = []
        /// The messages of the lines that were no event.
        var problems: [String] = []
        /// The input paused after this block.
        var endedAtPause = false
    }

    /// A block handed to the hub: what it delivered (or why its history could not be kept), once done.
    final class Flight: Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let result = Locked<Result<[Event], HistoryUnavailable>?>(nil)
        let block: Block

        init(_ block: Block) { self.block = block }

        /// Called by the hub's side when the block is done.
        func end(_ r: Result<[Event], HistoryUnavailable>) {
            result.withLock { $0 = r }
            done.signal()
        }

        /// The block's outcome, waited for when it is not done yet (as often as asked: the signal taken is
        /// put back).
        func outcome() -> Result<[Event], HistoryUnavailable>? {
            done.wait()
            done.signal()
            return result.withLock { $0 }
        }
    }
}

/// Events written as JSON lines, buffered: `write` hears the bytes a buffer's worth at a time.
public final class EventLines: Sendable {
    /// The lines not written yet. Written out past `flushBytes` and emptied keeping its memory: one buffer
    /// for the whole run, not a fresh megabyte (fresh pages from the kernel) for every block.
    private let buffer = Locked<[UInt8]>([])
    private static let flushBytes = 1 << 18
    private let sink: @Sendable ([UInt8]) -> Void
    private let tap: (@Sendable ([Event]) -> Void)?

    /// Lines that go to `sink` (standard output, a file) a buffer at a time; `tap` sees each block's events
    /// written, in order, before they are (what a host acts on: `rulekit run --send-postbacks` queues the
    /// postbacks among them).
    ///
    /// - Parameters:
    ///   - sink: hears the lines' bytes, a buffer at a time.
    ///   - tap: sees each block's events before they are written.
    public init(_ sink: @escaping @Sendable ([UInt8]) -> Void, tap: (@Sendable ([Event]) -> Void)? = nil) {
        self.sink = sink
        self.tap = tap
    }

    /// Writes one event.
    ///
    /// - Parameter e: the event.
    public func write(_ e: Event) {
        tap?([e])
        buffer.withLock { b in
            EventJSON.writeLine(e, to: &b)
            flushIfFull(&b)
        }
    }

    /// Writes a block's events, those `include` keeps, in order.
    ///
    /// - Parameters:
    ///   - events: the block's events, in order.
    ///   - include: whether an event is written (all are tapped).
    public func write(_ events: [Event], where include: (Event) -> Bool) {
        tap?(events)
        buffer.withLock { b in
            for e in events where include(e) {
                EventJSON.writeLine(e, to: &b)
                flushIfFull(&b)
            }
        }
    }

    private func flushIfFull(_ b: inout [UInt8]) {
        guard b.count > Self.flushBytes else { return }
        sink(b)
        b.removeAll(keepingCapacity: true)
    }

    /// Writes out what is buffered.
    public func flush() {
        buffer.withLock { b in
            if !b.isEmpty { sink(b) }
            b.removeAll()
        }
    }
}
