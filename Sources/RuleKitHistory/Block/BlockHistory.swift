// History per block: a block's identities are read from the store in one round trip before it is
// evaluated, the hubs answer history questions from memory (`HistoryWorkingSet`), and the block's records
// are written in one transaction before it is answered. A circuit breaker keeps an outage from stalling
// blocks; a durable spool keeps their records until the store takes them again.
public import Foundation
internal import Logging
public import RuleKitCore

/// The history of a service (or of `rulekit run --data-dir`), read and written a block at a time.
///
/// ```swift
/// let history = try BlockHistory(backend: store, options: .init())
/// let ticket = await history.begin(identities: ids, questions: rules.historyQuestions)
/// // ... evaluate the block on hubs whose history is `history.workingSet` ...
/// try await history.finish(ticket, causes: produced.map(\.id))   // durable (store or spool) on return
/// ```
///
/// Writes go through a line, up to `concurrentWrites` at once: each finishing block's write takes, as its
/// turn starts, every record made so far (its own and those of blocks still in flight, so writes group
/// under load), and a block is answered only once every write before its own has ended. When the store
/// fails (an error, or no answer within `timeout`) the breaker opens: blocks read no history (questions
/// answer the reference's error value, count -1) and their records go to the spool, which `maintain()`
/// replays in order, once each (records keep their keys), before the breaker closes again.
public final class BlockHistory: Sendable {
    /// Bounds and places.
    public struct Options: Sendable {
        /// Most record times read for one identity and hash asked within a window (the newest): older
        /// records are not seen by windowed questions. Counts without a window are exact whatever the size.
        public var prefetchLimit = 10_000
        /// How long a read or a write may wait for the store before the breaker opens.
        public var timeout: Duration = .seconds(1)
        /// The spool file (nil: memory only, lost at exit).
        public var spoolFile: URL?
        /// Most records the spool keeps; past it a block's history cannot be kept and the block fails.
        public var spoolCapacity = 100_000
        /// Reads of the store under way at once; blocks that start meanwhile are read together in the next.
        public var concurrentReads = 2
        /// How often an open breaker tries the store again.
        public var retryInterval: Duration = .milliseconds(500)
        /// Writes under way at once. Each takes, when its turn to start comes, every record made so far;
        /// blocks are still answered in the order they finished.
        public var concurrentWrites = 2

        /// The defaults.
        public init() {}
    }

    /// What the breaker and the spool look like now (`/readyz`, `/metrics`, the log).
    public struct Status: Sendable, Equatable {
        /// Whether the store is failing (history questions answer the error value).
        public var open = false
        /// Records in the spool.
        public var spooled = 0
        /// Reads of the store (each for one or more blocks).
        public var prefetches = 0
        /// Writes the store took (each one transaction).
        public var writes = 0
        /// Records written to the store (replays included).
        public var recordsWritten = 0
        /// Times a read or write failed or timed out.
        public var failures = 0
        /// Records that went to the spool.
        public var recordsSpooled = 0
        /// Blocks refused because their history could not be kept (spool full or unwritable).
        public var refused = 0
    }

    /// The block's identities, to let go of when it ends.
    public struct Ticket: Sendable {
        let identities: [String]
    }

    /// What the hubs read and record for a store read per block.
    public let workingSet = HistoryWorkingSet()
    /// The index of a store kept in this process (`IndexedHistoryBackend`): the hubs ask and record on it
    /// directly, and a block's records are taken from its journal to be written.
    let index: InMemoryEventHistory?
    let backend: any HistoryBackend
    let options: Options
    let gate: HistoryGate
    let reads: HistoryReads
    let state: Locked<Status>

    /// History over `backend`, with the spool an earlier run left in `options.spoolFile` to replay.
    ///
    /// - Parameters:
    ///   - backend: the store.
    ///   - options: time-outs, the spool, the breaker.
    /// - Throws: a diagnostic when the spool file exists and cannot be read.
    public init(backend: any HistoryBackend, options: Options = Options()) throws(DiagnosticError) {
        self.backend = backend
        self.options = options
        index = (backend as? any IndexedHistoryBackend)?.index
        let spool = try HistorySpool(file: options.spoolFile, capacity: options.spoolCapacity)
        var status = Status()
        status.spooled = spool.count
        status.open = spool.count > 0
        state = Locked(status)
        gate = HistoryGate(
            spool: spool, backend: backend, timeout: options.timeout, concurrency: max(1, options.concurrentWrites), state: state)
        reads = HistoryReads(backend: backend, options: options, state: state, gate: gate)
    }

    /// The breaker and the spool now.
    public var status: Status { state.withLock { $0 } }

    /// What the hubs read and record: give it to them as their history (`EventHub.Options.history`).
    public var hubHistory: any EventHistoryStore { index ?? workingSet }

    /// Whether a block's identities are read before it (`begin`): not for a store indexed in memory.
    public var readsBlocks: Bool { index == nil }

    /// Reads what `questions` need for `identities` not already held by a block in flight: one round
    /// trip, bounded by `timeout`; with the breaker open, nothing (they answer the error value).
    ///
    /// - Parameters:
    ///   - identities: the block's identities.
    ///   - questions: the hashes and windows the rules in force can ask about.
    /// - Returns: the block's ticket, for `finish`.
    public func begin(identities: Set<String>, questions: HistoryQuestions) async -> Ticket {
        guard index == nil, !questions.isEmpty, !identities.isEmpty else { return Ticket(identities: []) }
        let missing = workingSet.hold(identities)
        if !missing.isEmpty {
            if state.withLock({ $0.open }) {
                workingSet.install([], for: missing, failed: true)
            } else if let slices = await reads.read(missing, questions) {
                workingSet.install(slices, for: missing, failed: false)
            } else {
                workingSet.install([], for: missing, failed: true)
            }
        }
        return Ticket(identities: Array(identities))
    }

    /// Makes the records of the blocks so far durable — in the store in one transaction, or in the spool
    /// — then lets go of the block's identities. On return without an error, the block may be answered.
    ///
    /// - Parameters:
    ///   - ticket: `begin`'s answer for the block.
    ///   - causes: the block's events (their record numbers are forgotten).
    /// - Throws: `HistoryUnavailable` when its records could be kept nowhere (the spool full or
    ///   unwritable): they stay pending, and the block must not be answered as done.
    public func finish(_ ticket: Ticket, causes: [UUID]) async throws(HistoryUnavailable) {
        let result: Result<Void, HistoryUnavailable>
        if let index {
            result = await gate.write {
                index.takePending()
            } restore: {
                index.restorePending($0)
            }
            // The causes' numbers go once their records are durable: the same events sent again are
            // numbered as the first time, and their records passed over.
            index.release(causes: causes)
        } else {
            let workingSet = self.workingSet
            result = await gate.write {
                workingSet.takePending()
            } restore: {
                workingSet.restorePending($0)
            }
            workingSet.release(ticket.identities, causes: causes)
        }
        if case .failure(let e) = result {
            state.withLock { $0.refused += 1 }
            throw e
        }
    }

    /// Checks the store (a database's migration runs here) and replays the spool: at start, before
    /// serving.
    public func start() async {
        await gate.recover()
    }

    /// Retries an open breaker every `retryInterval`, replaying the spool, until the task is cancelled.
    public func maintain() async {
        while !Task.isCancelled {
            if state.withLock({ $0.open || $0.spooled > 0 }) {
                let progressed = await gate.recover()
                if progressed && state.withLock({ $0.spooled > 0 }) { continue }
            }
            try? await Task.sleep(for: options.retryInterval)
        }
    }

    /// One last replay of the spool (at shutdown), for up to `time`; what is left stays in the spool file
    /// for the next start. Returns how many records are left.
    ///
    /// - Parameter time: the most time spent.
    /// - Returns: how many records are left in the spool.
    public func flush(within time: Duration) async -> Int {
        let deadline = ContinuousClock.now + time
        while state.withLock({ $0.spooled > 0 }) && ContinuousClock.now < deadline {
            if !(await gate.recover()) { try? await Task.sleep(for: .milliseconds(200)) }
        }
        return state.withLock { $0.spooled }
    }
}

/// The reads of blocks, `concurrentReads` at a time: blocks that start while the reads are under way wait
/// and are read together in the next (one round trip for all of them), so a loaded service reads its store
/// less often than once per block, as its writes group.
final class HistoryReads: Sendable {
    private struct Waiter {
        let identities: [String]
        let questions: HistoryQuestions
        let done: CheckedContinuation<[HistorySlice]?, Never>
    }

    private let waiting = Locked<(queue: [Waiter], running: Int)>(([], 0))

    let backend: any HistoryBackend
    let options: BlockHistory.Options
    let state: Locked<BlockHistory.Status>
    let gate: HistoryGate

    init(backend: any HistoryBackend, options: BlockHistory.Options, state: Locked<BlockHistory.Status>, gate: HistoryGate) {
        self.backend = backend
        self.options = options
        self.state = state
        self.gate = gate
    }

    /// What the store holds for `identities`, read with the other blocks waiting; nil when the read failed
    /// (the breaker is then open).
    func read(_ identities: [String], _ questions: HistoryQuestions) async -> [HistorySlice]? {
        await withCheckedContinuation { (done: CheckedContinuation<[HistorySlice]?, Never>) in
            let lead = waiting.withLock { w -> Bool in
                w.queue.append(Waiter(identities: identities, questions: questions, done: done))
                guard w.running < options.concurrentReads else { return false }
                w.running += 1
                return true
            }
            if lead { Task { await self.drive() } }
        }
    }

    /// Reads for every waiting block, until none waits.
    private func drive() async {
        while true {
            let batch = waiting.withLock { w -> [Waiter] in
                defer { w.queue.removeAll() }
                if w.queue.isEmpty { w.running -= 1 }
                return w.queue
            }
            guard !batch.isEmpty else { return }
            let identities = Array(Set(batch.flatMap(\.identities))).sorted()
            let questions = batch.dropFirst().reduce(batch[0].questions) { $0.union($1.questions) }
            let backend = self.backend
            let limit = options.prefetchLimit
            var result: [HistorySlice]?
            do {
                result = try await withTimeout(options.timeout) {
                    try await backend.prefetch(identities: identities, hashes: questions.prefetched, timed: questions.timed, limit: limit)
                }
                state.withLock { $0.prefetches += 1 }
            } catch {
                await gate.fail("reading history", error)
            }
            for w in batch { w.done.resume(returning: result) }
        }
    }
}

/// The breaker and the spool, behind a line of writes: each write gets a ticket when it is asked for, and
/// starts in ticket order, up to `concurrency` at once. A write takes its records as it starts, on the
/// actor, in ticket order, so the records a block made before asking are taken by its own write or by an
/// earlier one; and a write returns only once every earlier one has ended. So a block answered after its
/// write returned has every one of its records durable, whichever write took them. A replay of the spool
/// starts alone (nothing beside it).
actor HistoryGate {
    let spool: HistorySpool
    let backend: any HistoryBackend
    let timeout: Duration
    let concurrency: Int
    let state: Locked<BlockHistory.Status>
    /// Waits for the end of the last write asked for (and so of every write before it). A closure over
    /// that write's task, not a task of its own: one task fewer to start and wake for each block.
    private var tail: (@Sendable () async -> Void)?
    private var nextTicket = 0
    private var nextToStart = 0
    private var running = 0
    /// Tickets waiting for their turn: whether they go alone, and what starts them (on the actor).
    private var starters: [Int: (exclusive: Bool, start: @Sendable () -> Void)] = [:]
    private let logger = Logger(label: "rulekit.history")

    init(
        spool: HistorySpool, backend: any HistoryBackend, timeout: Duration, concurrency: Int = 1, state: Locked<BlockHistory.Status>
    ) {
        self.spool = spool
        self.backend = backend
        self.timeout = timeout
        self.concurrency = concurrency
        self.state = state
    }

    /// Starts the waiting tickets whose turn has come, in order, while there is room (one that goes alone
    /// only when nothing runs).
    private func admit() {
        while let next = starters[nextToStart] {
            if next.exclusive ? running != 0 : running >= concurrency { return }
            starters[nextToStart] = nil
            nextToStart += 1
            running += next.exclusive ? concurrency : 1
            next.start()
        }
    }

    /// Waits for ticket `n`'s turn; `onStart` runs on the actor as it starts, and its value is returned.
    private func start<S: Sendable>(_ n: Int, exclusive: Bool, _ onStart: @escaping @Sendable () -> S) async -> S {
        await withCheckedContinuation { (go: CheckedContinuation<S, Never>) in
            starters[n] = (exclusive, { go.resume(returning: onStart()) })
            admit()
        }
    }

    private func ended(exclusive: Bool) {
        running -= exclusive ? concurrency : 1
        admit()
    }

    /// Takes a ticket now, runs `body` with what `onStart` gave when the ticket's turn came, and returns
    /// once every earlier ticket has ended too.
    private func inTurn<S: Sendable, T: Sendable>(
        exclusive: Bool, onStart: @escaping @Sendable () -> S, _ body: @escaping @Sendable (S) async -> T
    ) async -> T {
        let n = nextTicket
        nextTicket += 1
        let previous = tail
        let task = Task { () -> T in
            let started = await self.start(n, exclusive: exclusive, onStart)
            let result = await body(started)
            self.ended(exclusive: exclusive)
            await previous?()
            return result
        }
        tail = { _ = await task.value }
        return await task.value
    }

    /// Writes what `take` hands over as its turn starts: to the store while the breaker is closed and the
    /// spool empty, to the spool otherwise. What could be kept nowhere goes back through `restore`.
    func write(
        take: @escaping @Sendable () -> [HistoryRecord], restore: @escaping @Sendable ([HistoryRecord]) -> Void
    ) async -> Result<Void, HistoryUnavailable> {
        await inTurn(exclusive: false, onStart: take) { records in
            guard !records.isEmpty else { return .success(()) }
            return await self.store(records, restore: restore)
        }
    }

    private func store(_ records: [HistoryRecord], restore: ([HistoryRecord]) -> Void) async -> Result<Void, HistoryUnavailable> {
        if !state.withLock({ $0.open }) && spool.count == 0 {
            do {
                let backend = self.backend
                try await withTimeout(timeout) { try await backend.commit(records) }
                state.withLock { s in
                    s.writes += 1
                    s.recordsWritten += records.count
                }
                return .success(())
            } catch {
                opened("writing history", error)
            }
        }
        do throws(HistoryUnavailable) {
            try spool.append(records)
            state.withLock { s in
                s.spooled = spool.count
                s.recordsSpooled += records.count
            }
            return .success(())
        } catch {
            restore(records)
            logger.error("history records kept nowhere: \(error)", metadata: ["records": "\(records.count)"])
            return .failure(error)
        }
    }

    /// A read failed: the breaker opens.
    func fail(_ what: String, _ error: any Error) {
        opened(what, error)
    }

    private func opened(_ what: String, _ error: any Error) {
        let wasOpen = state.withLock { s -> Bool in
            defer {
                s.open = true
                s.failures += 1
            }
            return s.open
        }
        if !wasOpen {
            logger.error(
                "history store failed \(what); breaker open: history questions answer the error value, records go to the spool",
                metadata: ["error": "\(error is HistoryTimeout ? "no answer in time" : String(describing: error))"])
        }
    }

    /// Checks the store (outside the line of writes: blocks do not wait on a store that is down), then
    /// replays up to 5,000 spooled records (one write each 1,000) and closes the breaker when the spool is
    /// empty. Whether it got anywhere.
    @discardableResult
    func recover() async -> Bool {
        let backend = self.backend
        do {
            try await withTimeout(timeout) { try await backend.ready() }
        } catch {
            state.withLock { s in
                s.open = true
                s.failures += 1
            }
            return false
        }
        let nothing: @Sendable () -> Void = {}
        return await inTurn(exclusive: true, onStart: nothing) { _ in
            do {
                let batch = Array(self.spool.records.prefix(5_000))
                var done = 0
                while done < batch.count {
                    let chunk = Array(batch[done..<min(batch.count, done + 1_000)])
                    try await withTimeout(self.timeout) { try await backend.commit(chunk) }
                    done += chunk.count
                }
                if done > 0 { try self.spool.dropFirst(done) }
                let left = self.spool.count
                let closed = self.state.withLock { s -> Bool in
                    s.spooled = left
                    s.recordsWritten += done
                    if done > 0 { s.writes += 1 }
                    let wasOpen = s.open
                    if left == 0 { s.open = false }
                    return wasOpen && left == 0
                }
                if done > 0 { self.logger.info("history spool replayed", metadata: ["records": "\(done)", "left": "\(left)"]) }
                if closed { self.logger.info("history store answers again; breaker closed") }
                return true
            } catch {
                self.state.withLock { s in
                    s.open = true
                    s.failures += 1
                }
                return false
            }
        }
    }
}
