// Sending the queue: the head of each receiver's line, one in flight per receiver, in order. An answer in
// 200–299 delivers; the reference's recoverable answers (408, 503, 504), 429 (after its `Retry-After`) and
// transport errors retry with exponential back-off and jitter (about 1 s first, growing to a cap); every
// other answer, and a hit past its attempts or age, goes to the dead letters with its last error.
// Sending is driven by the transport's completions, not by a task per hit: with HTTPPostbackTransport the
// answer arrives on its event loop's thread and the next hit leaves from there, so a postback costs no
// thread hop (a profile of the async version showed most of its CPU in waking threads).
internal import Foundation
internal import Logging
internal import RuleKitCore

/// How a receiver answered one send.
public enum PostbackAnswer: Sendable, Equatable {
    /// An HTTP status, with `Retry-After` in seconds when the receiver gave one.
    case status(Int, retryAfter: Double?)
    /// No answer: the connection failed, was lost, or the time-out passed.
    case transport(String)
}

/// Sends one hit: RuleKit's is `HTTPPostbackTransport` (RuleKitFetch); a host may hand in its own.
public protocol PostbackTransport: Sendable {
    /// Sends `hit` with its method, body, content type, time-out and `Idempotency-Key`, and calls `done`
    /// once with the answer (on any thread, at once or later).
    func send(_ hit: Postback, done: @escaping @Sendable (PostbackAnswer) -> Void)
}

/// What delivery did with each hit (a host's metrics and logs).
public enum PostbackOutcome: Sendable, Equatable {
    case delivered
    case retried(String)
    case dead(String)
}

/// Sends a queue until it is empty or the task is cancelled.
public final class PostbackDelivery: Sendable {
    /// The policy of retries.
    public struct Policy: Sendable {
        /// The first retry's delay, in seconds (jittered ±25%).
        public var firstDelay = 1.0
        /// The longest delay.
        public var maxDelay = 300.0
        /// Sends tried before a hit is dead.
        public var maxAttempts = 20
        /// Seconds after which a hit not delivered is dead.
        public var maxAge = 86_400.0
        /// Hits of one receiver sent at once: 1 keeps its line in order (the reference); more are sent
        /// together, in order of start but not of arrival.
        public var inFlight = 1

        /// The defaults.
        public init() {}
    }

    let queue: PostbackQueue
    let transport: any PostbackTransport
    let policy: Policy
    let observe: @Sendable (QueuedPostback, PostbackOutcome) -> Void

    /// Delivery of `queue` through `transport`.
    ///
    /// - Parameters:
    ///   - queue: the queue.
    ///   - transport: how hits are sent.
    ///   - policy: retries.
    ///   - observe: told each hit's outcome.
    public init(
        queue: PostbackQueue, transport: any PostbackTransport, policy: Policy = Policy(),
        observe: @escaping @Sendable (QueuedPostback, PostbackOutcome) -> Void = { _, _ in }
    ) {
        self.queue = queue
        self.transport = transport
        self.policy = policy
        self.observe = observe
    }

    /// Receivers whose line is to be stepped, and whether a thread is stepping them (`schedule`).
    private let steps = Locked<(names: [String], running: Bool)>(([], false))
    /// Delivery started and not stopped (`run`, `drain`).
    private let started = Locked(false)

    /// Delivers until the queue is empty or `deadline` passes; whether it is empty.
    ///
    /// - Throws: the queue's error.
    public func drain(until deadline: ContinuousClock.Instant) async throws -> Bool {
        start()
        defer { stop() }
        while ContinuousClock.now < deadline, !Task.isCancelled {
            poke()
            queue.checkpoint()
            if queue.isIdle { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try queue.depth() == 0
    }

    /// Delivers until the task is cancelled: each receiver's line is sent as hits are queued, and looked at
    /// again at least every `poll` (retries coming due).
    public func run(poll: Duration = .milliseconds(200)) async {
        start()
        while !Task.isCancelled {
            poke()
            queue.checkpoint()
            try? await Task.sleep(for: poll)
        }
        stop()
    }

    /// Sends each hit as it is queued from now on (`run` and `drain` start with this; a host calls it
    /// itself when it must not wait for `run`'s task to be scheduled). Calling it again changes nothing.
    public func start() {
        started.withLock { $0 = true }
        queue.listener.withLock { $0 = self }
    }

    private func stop() {
        started.withLock { $0 = false }
        // Another delivery of the queue may have started meanwhile (a host opted out and in again).
        queue.listener.withLock { if $0 === self { $0 = nil } }
        try? queue.flush()
    }

    /// Steps every line with a hit due and no sender.
    func poke() {
        for name in queue.claim(now: Date().timeIntervalSince1970) { schedule(name) }
    }

    /// Steps `receiver`'s line on this thread, unless a thread is stepping lines already (it takes this one
    /// too): a transport that answers at once cannot recurse once per hit.
    private func schedule(_ receiver: String) {
        let first = steps.withLock { s in
            s.names.append(receiver)
            if s.running { return false }
            s.running = true
            return true
        }
        guard first else { return }
        while let next = steps.withLock({ s -> String? in
            guard !s.names.isEmpty else {
                s.running = false
                return nil
            }
            return s.names.removeFirst()
        }) {
            step(next)
        }
    }

    /// Sends what `receiver`'s line allows now (up to `policy.inFlight` at once).
    private func step(_ receiver: String) {
        guard started.withLock({ $0 }) else {
            queue.release(receiver)
            return
        }
        let hits: [QueuedPostback]
        do { hits = try queue.take(receiver, now: Date().timeIntervalSince1970, inFlight: max(1, policy.inFlight)) } catch {
            Logger(label: "rulekit.postbacks").error("the postback queue failed", metadata: ["error": "\(error)"])
            queue.release(receiver)
            return
        }
        for hit in hits {
            let now = Date().timeIntervalSince1970
            if now - hit.queuedAt > policy.maxAge {
                record(hit, now: now, .transport("not delivered within \(Int(policy.maxAge)) s"), tooOld: true)
                continue
            }
            transport.send(hit.postback) { answer in
                self.record(hit, now: Date().timeIntervalSince1970, answer, tooOld: false)
                self.schedule(receiver)
            }
        }
    }

    /// Writes what became of `head` and tells the observer.
    private func record(_ head: QueuedPostback, now: Double, _ answer: PostbackAnswer, tooOld: Bool) {
        defer { queue.finish(head.postback.receiver) }
        do {
            if tooOld {
                guard case .transport(let why) = answer else { return }
                try queue.kill(head.seq, error: "\(why) (last: \(head.lastError ?? "none"))")
                observe(head, .dead("too old"))
                return
            }
            try outcome(head, now: now, answer)
        } catch {
            Logger(label: "rulekit.postbacks").error("the postback queue failed", metadata: ["error": "\(error)"])
        }
    }

    private func outcome(_ head: QueuedPostback, now: Double, _ answer: PostbackAnswer) throws {
        let failure: String
        var after: Double?
        switch answer {
        case .status(let code, _) where (200...299).contains(code):
            try queue.delivered(head.seq)
            observe(head, .delivered)
            return
        case .status(let code, let retryAfter) where [408, 429, 503, 504].contains(code):
            failure = "HTTP \(code)"
            if code == 429 || code == 503 { after = retryAfter }
        case .status(let code, _):
            let why = "HTTP \(code): not a status to retry"
            try queue.kill(head.seq, error: why)
            observe(head, .dead(why))
            return
        case .transport(let why):
            failure = why
        }
        guard head.attempts + 1 < policy.maxAttempts else {
            try queue.kill(head.seq, error: "\(failure) (after \(head.attempts + 1) attempts)")
            observe(head, .dead(failure))
            return
        }
        let delay = after.map { min($0, policy.maxDelay) } ?? backoff(attempt: head.attempts)
        try queue.retry(head, error: failure, at: now + delay)
        observe(head, .retried(failure))
    }

    /// The delay before retry `attempt + 1`: the first delay doubled per attempt, capped, jittered ±25%.
    func backoff(attempt: Int) -> Double {
        let base = min(policy.maxDelay, policy.firstDelay * pow(2, Double(min(attempt, 30))))
        return base * Double.random(in: 0.75...1.25)
    }
}
