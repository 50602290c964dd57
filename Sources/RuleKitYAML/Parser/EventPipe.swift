// libyaml's events pulled in batches, each event copied out of libyaml at once; the batches go to the
// builder either on the same thread (small inputs) or from a thread of their own (large inputs, two
// cores), so that the pull (about 60% of reading a large file) and the building overlap.
//
// Invariants:
// 1. An event is copied (type, mark, style, and its scalar, tag and anchor bytes into the batch's byte
//    buffer) and deleted (`yaml_event_delete`) right where libyaml made it, on the pulling thread. No
//    pointer into libyaml's memory outlives that step, so a batch is plain Swift data.
// 2. A batch belongs to one side at a time. The producer fills a batch it took from `free` and hands it
//    over with `send`; the consumer reads a batch it took with `receive` and hands it back with
//    `giveBack`. Every hand-over happens under the pipe's one lock, which orders the writes of one side
//    before the reads of the other (a pthread mutex and condition, which ThreadSanitizer sees); nobody
//    touches a batch it has handed over.
// 3. The input is lent to the producer only while the consumer's `withUnsafeBufferPointer` lasts: the
//    consumer always ends with `finish`, which waits until the producer has deleted its parser and
//    returned; the producer reads the input only through that parser.
// The plain reference is the same batches pulled and built on one thread (`buildSequential`);
// `YAMLPipelineTests` (every yaml-test-suite case, large generated documents, early and late failures)
// and the `yaml` fuzz target require both to give the same documents or the same error.
internal import CYAML
internal import Foundation
internal import RuleKitCore

/// One libyaml event, copied out (invariant 1).
struct PulledEvent {
    var type: yaml_event_type_t
    var mark: yaml_mark_t
    var plain = false
    /// A collection's start in block style (not flow).
    var block = false
    /// The scalar's bytes in the batch's `bytes`.
    var value: Range<Int> = 0..<0
    /// The tag's and the anchor's bytes, when the event has them.
    var tag: Range<Int>?
    var anchor: Range<Int>?
}

/// Events pulled in order, with the bytes they carry; see invariant 2 for who may touch it.
final class EventBatch: @unchecked Sendable {
    let capacity: Int
    var events: [PulledEvent] = []
    var bytes: [UInt8] = []
    /// The stream ends with this batch (its last event is the stream end, or `error` is set).
    var isLast = false
    /// libyaml's error after the batch's events.
    var error: DiagnosticError?

    /// A batch of up to `capacity` events (its arrays grow as they fill, then are reused).
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Pulls up to `capacity` events from `parser`, copying each and deleting it at once.
    func fill(from parser: inout yaml_parser_t, input: UnsafeBufferPointer<UInt8>, file: String) {
        // Filled as locals, moved in and out: appending to a class's stored arrays costs an exclusivity
        // check per access, more than the copy itself.
        var events = self.events
        var bytes = self.bytes
        self.events = []
        self.bytes = []
        events.removeAll(keepingCapacity: true)
        // A batch that carried a huge scalar does not keep its room: with eight batches in flight, that
        // would hold eight times the largest scalar for the rest of the read.
        if bytes.capacity > 1 << 20 { bytes = [] } else { bytes.removeAll(keepingCapacity: true) }
        (isLast, error) = Self.pull(from: &parser, capacity: capacity, into: &events, &bytes, input: input, file: file)
        self.events = events
        self.bytes = bytes
    }

    /// Pulls events into `events` and their bytes into `bytes`: whether the stream ended, and libyaml's
    /// error if it failed.
    private static func pull(
        from parser: inout yaml_parser_t, capacity: Int, into events: inout [PulledEvent], _ bytes: inout [UInt8],
        input: UnsafeBufferPointer<UInt8>, file: String
    ) -> (Bool, DiagnosticError?) {
        func keep(_ b: UnsafeBufferPointer<UInt8>) -> Range<Int> {
            let start = bytes.count
            bytes.append(contentsOf: b)
            return start..<bytes.count
        }
        func keep(_ text: UnsafeMutablePointer<yaml_char_t>?) -> Range<Int>? {
            guard let text else { return nil }
            return keep(UnsafeBufferPointer(start: text, count: strlen(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self))))
        }
        var event = yaml_event_t()
        while events.count < capacity {
            guard yaml_parser_parse(&parser, &event) == 1 else {
                return (true, LibYAMLParser.syntaxError(parser, input: input, file: file))
            }
            defer { yaml_event_delete(&event) }
            var e = PulledEvent(type: event.type, mark: event.start_mark)
            switch event.type {
            case YAML_SCALAR_EVENT:
                let sc = event.data.scalar
                e.plain = sc.style == YAML_PLAIN_SCALAR_STYLE
                e.value = keep(UnsafeBufferPointer(start: sc.value, count: sc.length))
                e.tag = keep(sc.tag)
                e.anchor = keep(sc.anchor)
            case YAML_ALIAS_EVENT: e.anchor = keep(event.data.alias.anchor)
            case YAML_SEQUENCE_START_EVENT:
                e.anchor = keep(event.data.sequence_start.anchor)
                e.block = event.data.sequence_start.style == YAML_BLOCK_SEQUENCE_STYLE
            case YAML_MAPPING_START_EVENT:
                e.anchor = keep(event.data.mapping_start.anchor)
                e.block = event.data.mapping_start.style == YAML_BLOCK_MAPPING_STYLE
            default: break
            }
            events.append(e)
            if event.type == YAML_STREAM_END_EVENT { return (true, nil) }
        }
        return (false, nil)
    }
}

/// The input text, lent to the producer for the parse (invariant 3).
struct LentInput: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<UInt8>
}

/// Batches going from the producer (filled) to the consumer (built) and back.
final class EventPipe: @unchecked Sendable {
    // @unchecked: every stored `var` is read and written with `condition` locked.
    private let condition = NSCondition()
    private var full: [EventBatch] = []
    private var free: [EventBatch]
    private var stopped = false
    private var producerDone = false

    /// A pipe of `depth` batches of `batchSize` events: at most that many events are held at once.
    init(depth: Int, batchSize: Int) {
        free = (0..<depth).map { _ in EventBatch(capacity: batchSize) }
    }

    /// The producer's next empty batch; nil once the consumer has stopped.
    func takeFree() -> EventBatch? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !stopped { condition.wait() }
        return stopped ? nil : free.removeLast()
    }

    /// Hands a filled batch to the consumer.
    func send(_ batch: EventBatch) {
        condition.lock()
        full.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// The producer has left: its parser is deleted and it holds no batch.
    func producerFinished() {
        condition.lock()
        producerDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// The consumer's next filled batch, in order; nil when the producer left without sending more.
    func receive() -> EventBatch? {
        condition.lock()
        defer { condition.unlock() }
        while full.isEmpty && !producerDone { condition.wait() }
        return full.isEmpty ? nil : full.removeFirst()
    }

    /// Returns a built batch to the producer.
    func giveBack(_ batch: EventBatch) {
        condition.lock()
        free.append(batch)
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the producer (if it is still pulling) and waits until it has left (invariant 3).
    func finish() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}

extension LibYAMLParser {
    /// Inputs from this size on are pulled on a second thread when the machine has two cores: below it
    /// a thread's start costs more than the overlap saves.
    static var pipelineThreshold: Int { 128 * 1024 }

    /// Events per batch, and batches in flight on the second thread.
    static var batchSize: Int { 4096 }
    static var pipelineDepth: Int { 8 }

    /// Whether `parse` pulls `size` bytes on a second thread.
    static func pipelines(size: Int) -> Bool {
        size >= pipelineThreshold && ProcessInfo.processInfo.activeProcessorCount > 1
    }

    /// Makes `parser` read `input`; the error when libyaml cannot allocate it (otherwise the caller
    /// deletes it).
    static func start(_ parser: inout yaml_parser_t, reading input: UnsafeBufferPointer<UInt8>) -> DiagnosticError? {
        guard yaml_parser_initialize(&parser) == 1 else {
            return DiagnosticError(.error(.yamlSyntax, "libyaml could not allocate a parser"))
        }
        yaml_parser_set_input_string(&parser, input.baseAddress, input.count)
        return nil
    }

    /// The producer: fills batches until the stream ends, libyaml fails or the consumer stops.
    static func produce(into pipe: EventPipe, input: LentInput, file: String) {
        defer { pipe.producerFinished() }
        var parser = yaml_parser_t()
        let failure = start(&parser, reading: input.buffer)
        defer { if failure == nil { yaml_parser_delete(&parser) } }
        while let batch = pipe.takeFree() {
            if let failure {
                // Sent as the stream's only batch: the consumer reports it as the sequential path would.
                batch.events.removeAll()
                batch.error = failure
                batch.isLast = true
            } else {
                batch.fill(from: &parser, input: input.buffer, file: file)
            }
            let last = batch.isLast
            pipe.send(batch)
            if last { return }
        }
    }
}

/// What libyaml's events are handed to, in order: the document builder (`LibYAMLParser`) or the tape
/// builder (`YAMLTapeBuilder`). Both are fed by the same pull, on one thread or two.
protocol YAMLEventSink: ~Copyable {
    /// The file positions and errors name.
    var file: String { get }
    /// Takes one event; the bytes its ranges point into are lent for the call.
    mutating func handle(_ event: PulledEvent, _ bytes: UnsafeBufferPointer<UInt8>) throws(DiagnosticError)
}

extension LibYAMLParser: YAMLEventSink {}

extension YAMLEventSink where Self: ~Copyable {
    /// Handles the events of batches pulled on this thread: the plain reference for `buildPipelined`.
    mutating func buildSequential(_ input: UnsafeBufferPointer<UInt8>) -> Result<Void, DiagnosticError> {
        var parser = yaml_parser_t()
        if let failure = LibYAMLParser.start(&parser, reading: input) { return .failure(failure) }
        defer { yaml_parser_delete(&parser) }
        // Small batches: on one thread they only spare a call per event, and most inputs are small.
        let batch = EventBatch(capacity: 256)
        while true {
            batch.fill(from: &parser, input: input, file: file)
            if let outcome = build(batch) { return outcome }
        }
    }

    /// Handles the events of batches pulled on a second thread (invariants above).
    mutating func buildPipelined(_ input: UnsafeBufferPointer<UInt8>) -> Result<Void, DiagnosticError> {
        let pipe = EventPipe(depth: LibYAMLParser.pipelineDepth, batchSize: LibYAMLParser.batchSize)
        let lent = LentInput(buffer: input)
        let file = self.file
        let producer = Thread { LibYAMLParser.produce(into: pipe, input: lent, file: file) }
        producer.start()
        var outcome: Result<Void, DiagnosticError> = .failure(
            DiagnosticError(.error(.yamlSyntax, "libyaml's event stream ended without its end")))
        while let batch = pipe.receive() {
            let done = build(batch)
            pipe.giveBack(batch)
            if let done {
                outcome = done
                break
            }
        }
        pipe.finish()
        return outcome
    }

    /// Handles one batch's events; the outcome once the stream has ended or failed, nil to go on.
    mutating func build(_ batch: EventBatch) -> Result<Void, DiagnosticError>? {
        let failed: DiagnosticError? = batch.bytes.withUnsafeBufferPointer { bytes in
            for e in batch.events {
                do throws(DiagnosticError) {
                    try handle(e, bytes)
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failed { return .failure(failed) }
        if let error = batch.error { return .failure(error) }
        return batch.isLast ? .success(()) : nil
    }
}
