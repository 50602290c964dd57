// Sending the queue: the head of each receiver's line, one in flight per receiver, in order. An answer in
// 200–299 delivers; the reference's recoverable answers (408, 503, 504), 429 (after its `Retry-After`) and
// transport errors retry with exponential back-off and jitter (about 1 s first, growing to a cap); every
// other answer, and a hit past its attempts or age, goes to the dead letters with its last error.
public import Foundation
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
    /// Sends `hit` with its method, body, content type, time-out and `Idempotency-Key`.
    func send(_ hit: Postback) async -> PostbackAnswer
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

    /// Sends every head due now (the receivers at once, each one hit); how many were sent.
    ///
    /// - Throws: the queue's error.
    @discardableResult
    public func sendDue(now: Double = Date().timeIntervalSince1970) async throws -> Int {
        let heads = try queue.due(now: now)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for head in heads { group.addTask { try await self.deliver(head) } }
            try await group.waitForAll()
        }
        return heads.count
    }

    /// Delivers until the queue is empty or `deadline` passes; whether it is empty.
    ///
    /// - Throws: the queue's error.
    public func drain(until deadline: ContinuousClock.Instant) async throws -> Bool {
        while ContinuousClock.now < deadline, !Task.isCancelled {
            if try await sendDue() > 0 { continue }
            guard let next = try queue.nextDue() else { return true }
            let wait = max(0.02, min(next - Date().timeIntervalSince1970, 1))
            try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
        }
        return try queue.depth() == 0
    }

    /// Delivers until the task is cancelled, waking when a hit is due (at least every `poll`).
    public func run(poll: Duration = .milliseconds(200)) async {
        while !Task.isCancelled {
            let sent = (try? await sendDue()) ?? 0
            if sent == 0 { try? await Task.sleep(for: poll) }
        }
    }

    func deliver(_ head: QueuedPostback) async throws {
        let now = Date().timeIntervalSince1970
        if now - head.queuedAt > policy.maxAge {
            try queue.kill(head.seq, error: "not delivered within \(Int(policy.maxAge)) s (last: \(head.lastError ?? "none"))")
            observe(head, .dead("too old"))
            return
        }
        let answer = await transport.send(head.postback)
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
        try queue.retry(head.seq, error: failure, at: now + delay)
        observe(head, .retried(failure))
    }

    /// The delay before retry `attempt + 1`: the first delay doubled per attempt, capped, jittered ±25%.
    func backoff(attempt: Int) -> Double {
        let base = min(policy.maxDelay, policy.firstDelay * pow(2, Double(min(attempt, 30))))
        return base * Double.random(in: 0.75...1.25)
    }
}
