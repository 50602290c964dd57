import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitPostbacks

/// A receiver that answers from a script, per URL, and records what it was sent.
final class ScriptedTransport: PostbackTransport, @unchecked Sendable {
    let answers: Locked<[String: [PostbackAnswer]]>
    let sent = Locked<[Postback]>([])

    init(_ answers: [String: [PostbackAnswer]]) { self.answers = Locked(answers) }

    func send(_ hit: Postback, done: @escaping @Sendable (PostbackAnswer) -> Void) {
        sent.withLock { $0.append(hit) }
        done(
            answers.withLock { a in
                guard var list = a[hit.url], !list.isEmpty else { return .status(200, retryAfter: nil) }
                let first = list.removeFirst()
                a[hit.url] = list
                return first
            })
    }
}

/// A receiver that answers 200 a few milliseconds later, from another task, counting the hits it holds.
final class SlowTransport: PostbackTransport, Sendable {
    let state = Locked<(now: Int, most: Int, keys: [String])>((0, 0, []))

    func send(_ hit: Postback, done: @escaping @Sendable (PostbackAnswer) -> Void) {
        state.withLock { s in
            s.now += 1
            s.most = max(s.most, s.now)
            s.keys.append(hit.key)
        }
        Task {
            try? await Task.sleep(for: .milliseconds(3))
            state.withLock { $0.now -= 1 }
            done(.status(200, retryAfter: nil))
        }
    }
}

/// The queue and its delivery: in order per receiver, retried on the recoverable answers, dead-lettered on
/// the rest, keys kept across retries, bounded in bytes.
@Suite struct PostbackDeliveryTests {
    static func folder() -> String { Scratch.url("rk-pb-\(UUID())").path }

    static func hit(_ key: String, _ url: String, identity: String = "") -> Postback {
        Postback(key: key, kind: .pb, url: url, body: #"{"k":"\#(key)"}"#, identity: identity)
    }

    @Test func eachReceiverIsSentInOrderAndRetriedWithItsKey() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queue = try PostbackQueue(directory: dir)
        try await queue.enqueue([
            Self.hit("a1", "http://a.test/1"), Self.hit("a2", "http://a.test/2"), Self.hit("b1", "http://b.test:8080/1"),
        ])
        #expect(try await queue.enqueue([Self.hit("a1", "http://a.test/1")]) == 0, "a key already queued is passed over")
        let transport = ScriptedTransport([
            "http://a.test/1": [.status(503, retryAfter: nil), .transport("connection refused")],
            "http://b.test:8080/1": [.status(429, retryAfter: 0)],
        ])
        var policy = PostbackDelivery.Policy()
        policy.firstDelay = 0.01
        let delivery = PostbackDelivery(queue: queue, transport: transport, policy: policy)
        #expect(try await delivery.drain(until: .now + .seconds(900)))
        let sent = transport.sent.withLock { $0 }.map(\.key)
        // a2 never before a1 is delivered; b's line goes on beside a's.
        #expect(sent.filter { $0.hasPrefix("a") } == ["a1", "a1", "a1", "a2"])
        #expect(sent.filter { $0.hasPrefix("b") } == ["b1", "b1"])
        #expect(try queue.depth() == 0 && queue.deadLetters().isEmpty)
    }

    @Test func whatCannotBeDeliveredIsADeadLetterNeverDropped() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queue = try PostbackQueue(directory: dir)
        try await queue.enqueue([
            Self.hit("bad", "http://a.test/400"), Self.hit("tired", "http://b.test/down"), Self.hit("next", "http://a.test/ok"),
        ])
        let transport = ScriptedTransport([
            "http://a.test/400": [.status(400, retryAfter: nil)],
            "http://b.test/down": Array(repeating: .transport("refused"), count: 10),
        ])
        var policy = PostbackDelivery.Policy()
        policy.firstDelay = 0.001
        policy.maxAttempts = 3
        let delivery = PostbackDelivery(queue: queue, transport: transport, policy: policy)
        // Generous: other suites hold the cooperative threads for minutes at a time on two cores (their
        // synchronous waits on child processes); the drain only needs milliseconds of them.
        #expect(try await delivery.drain(until: .now + .seconds(900)))
        // Dead letters come in the order they died; the two lines race, so which died first is not fixed.
        let dead = try queue.deadLetters().sorted { $0.postback.key < $1.postback.key }
        try #require(dead.map(\.postback.key) == ["bad", "tired"])
        #expect(dead[0].lastError?.contains("HTTP 400") == true && dead[1].attempts == 3)
        #expect(transport.sent.withLock { $0 }.map(\.key).contains("next"), "a dead head does not hold its line")
        // Retried by hand: back in the queue, attempts from 0.
        #expect(try queue.retryDeadLetters() == 2)
        #expect(try queue.waiting().map(\.attempts) == [0, 0] && queue.deadLetters().isEmpty)
        #expect(try queue.purge(identity: "") == 2)
    }

    @Test func aPersonsHitsArePurgedAndTheBoundRefuses() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queue = try PostbackQueue(directory: dir, maxBytes: 64 << 10)
        try queue.enqueue([Self.hit("x1", "http://a.test/1", identity: "ada"), Self.hit("x2", "http://a.test/2", identity: "bob")])
        #expect(try queue.purge(identity: "ada") == 1)
        #expect(try queue.waiting().map(\.postback.identity) == ["bob"])
        var refused = false
        for i in 0..<2_000 where !refused {
            do {
                try queue.enqueue([Postback(key: "big\(i)", kind: .pb, url: "http://a.test/", body: String(repeating: "x", count: 4_000))])
            } catch is PostbackQueue.Full { refused = true }
        }
        #expect(refused, "past 64 KiB the queue refuses")
    }

    /// The lines in memory agree with the file: a window of 3 makes every line refill from the file while
    /// hits keep arriving; each hit is sent once, in order per receiver, and nothing is left.
    @Test func linesLargerThanTheirWindowAreReadFromTheFileInOrder() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queue = try PostbackQueue(directory: dir, maxBytes: 256 << 20, window: 3)
        let transport = ScriptedTransport(["http://a.test/a4": [.status(503, retryAfter: 0)]])
        var policy = PostbackDelivery.Policy()
        policy.firstDelay = 0.001
        let delivery = PostbackDelivery(queue: queue, transport: transport, policy: policy)
        try await queue.enqueue((0..<10).map { Self.hit("a\($0)", "http://a.test/a\($0)") })
        let runner = Task { await delivery.run(poll: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(20))
        for batch in 0..<5 {
            try await queue.enqueue((0..<4).map { Self.hit("b\(batch * 4 + $0)", "http://b.test/b\(batch * 4 + $0)") })
            try await queue.enqueue([Self.hit("a\(10 + batch)", "http://a.test/a\(10 + batch)")])
            try await Task.sleep(for: .milliseconds(5))
        }
        let deadline = ContinuousClock.now + .seconds(900)
        while try queue.depth() > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        runner.cancel()
        await runner.value
        let sent = transport.sent.withLock { $0 }.map(\.key)
        #expect(sent.filter { $0.hasPrefix("a") } == (0..<15).flatMap { $0 == 4 ? ["a4", "a4"] : ["a\($0)"] })
        #expect(sent.filter { $0.hasPrefix("b") } == (0..<20).map { "b\($0)" })
        #expect(try queue.depth() == 0 && queue.deadLetters().isEmpty)
    }

    /// One hit in flight per receiver keeps its order; `inFlight` lets more go at once, never more.
    @Test(arguments: [1, 4]) func hitsInFlightPerReceiverAreBounded(inFlight: Int) async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queue = try PostbackQueue(directory: dir)
        try await queue.enqueue((0..<24).map { Self.hit("h\($0)", "http://a.test/\($0)") })
        var policy = PostbackDelivery.Policy()
        policy.inFlight = inFlight
        let transport = SlowTransport()
        #expect(try await PostbackDelivery(queue: queue, transport: transport, policy: policy).drain(until: .now + .seconds(900)))
        let (most, keys) = transport.state.withLock { ($0.most, $0.keys) }
        #expect(keys == (0..<24).map { "h\($0)" }, "sent in the order queued, each once")
        #expect(inFlight == 1 ? most == 1 : (2...inFlight).contains(most))
        #expect(try queue.depth() == 0)
    }

    /// Batches queued at once share commits (group commit): each is told its own count, a key is queued
    /// once however many batches carry it, and a full queue refuses without leaving a hit in memory.
    @Test func concurrentBatchesShareCommitsAndKeepTheirCounts() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queue = try PostbackQueue(directory: dir)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for b in 0..<40 {
                group.addTask { try await queue.enqueue([Self.hit("b\(b)", "http://a.test/\(b)"), Self.hit("shared", "http://a.test/s")]) }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.reduce(0, +) == 41 && counts.filter { $0 == 2 }.count == 1)
        #expect(try queue.depth() == 41 && Set(queue.waiting().map(\.postback.key)).count == 41)
        let smallDir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: smallDir) }
        let small = try PostbackQueue(directory: smallDir, maxBytes: 1)
        await #expect(throws: PostbackQueue.Full.self) { try await small.enqueue([Self.hit("x", "http://a.test/x")]) }
        #expect(small.isIdle, "nothing refused reaches the lines")
    }

    /// Delivered hits leave the file in groups; a queue reopened before its group was written sends those
    /// again under the same keys (at least once), and a purge while a line is loaded sends nothing purged.
    @Test func deliveriesNotYetWrittenAreSentAgainAndPurgesReachTheLines() async throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let queue = try PostbackQueue(directory: dir)
            try await queue.enqueue([Self.hit("k1", "http://a.test/1"), Self.hit("k2", "http://a.test/2")])
            let name = try #require(queue.claim(now: 0).first)
            let first = try queue.take(name, now: Date().timeIntervalSince1970, inFlight: 1)
            try queue.delivered(try #require(first.first).seq)
            queue.release(name)
            // No flush: the queue goes away as a killed process would leave it.
        }
        let queue = try PostbackQueue(directory: dir)
        #expect(try queue.waiting().map(\.postback.key) == ["k1", "k2"], "an unwritten delivery is sent again")
        try await queue.enqueue([Self.hit("p1", "http://b.test/1", identity: "ada"), Self.hit("p2", "http://b.test/2", identity: "bob")])
        #expect(try queue.due().map(\.postback.key) == ["p1"], "a line mirrored as it is queued")
        #expect(try queue.nextDue(now: 42) == 42, "a line still in the file only is due now")
        #expect(try queue.purge(identity: "ada") == 1)
        #expect(try queue.clear() == 3)
        try await queue.enqueue([Self.hit("z1", "http://b.test/z")])
        let transport = ScriptedTransport([:])
        #expect(try await PostbackDelivery(queue: queue, transport: transport).drain(until: .now + .seconds(900)))
        #expect(transport.sent.withLock { $0 }.map(\.key) == ["z1"], "nothing purged or cleared is sent")
    }

    @Test func aConsequenceEventMakesAHitWithAStableKey() throws {
        let cause = UUID()
        func consequence(_ type: String, _ detail: ValueObject, id: String = "c1") -> Event {
            var e = Event(
                name: "Rules Consequence Event", type: "com.adobe.eventType.rulesEngine", source: "com.adobe.eventSource.responseContent",
                data: ["triggeredconsequence": ["id": .string(id), "type": .string(type), "detail": .object(detail)]])
            e.parentID = cause
            return e
        }
        let a = try #require(Postback.from(consequence: consequence("pb", ["templateurl": "http://r.test/x", "timeout": 0]), ordinal: 0))
            .get()
        let again = try #require(Postback.from(consequence: consequence("pb", ["templateurl": "http://r.test/x"]), ordinal: 0)).get()
        #expect(a.key == again.key && a.method == "GET" && a.timeout == 2 && a.receiver == "r.test:80")
        let second = try #require(Postback.from(consequence: consequence("pb", ["templateurl": "http://r.test/x"]), ordinal: 1)).get()
        #expect(second.key != a.key)
        let post = try #require(
            Postback.from(
                consequence: consequence("pb", ["templateurl": "https://r.test/x", "templatebody": ["n": 1], "contenttype": "text/plain"]),
                ordinal: 0)
        ).get()
        #expect(post.method == "POST" && post.body == #"{"n":1}"# && post.contentType == "text/plain" && post.receiver == "r.test:443")
        #expect(Postback.from(consequence: consequence("iam", [:]), ordinal: 0) == nil)
        for (type, detail) in [("pii", ["templateurl": "http://r.test/x"]), ("pb", [:]), ("pb", ["templateurl": "ftp://r.test/x"])]
            as [(String, ValueObject)]
        {
            guard case .failure? = Postback.from(consequence: consequence(type, detail), ordinal: 0) else {
                Issue.record("\(type) \(detail) should be refused")
                continue
            }
        }
    }

    @Test func ordinalsCountPerTriggerAndConsequenceAcrossTwoGenerations() {
        func consequence(_ cause: UUID, _ id: String) -> Event {
            var e = Event(
                name: "Rules Consequence Event", type: "com.adobe.eventType.rulesEngine", source: "com.adobe.eventSource.responseContent",
                data: ["triggeredconsequence": ["id": .string(id), "type": "pb", "detail": [:]]])
            e.parentID = cause
            return e
        }
        var ordinals = PostbackOrdinals(capacity: 2)
        let (a, b, c) = (UUID(), UUID(), UUID())
        #expect(ordinals.next(consequence(a, "x")) == 0)
        #expect(ordinals.next(consequence(a, "x")) == 1, "the same trigger and consequence again")
        #expect(ordinals.next(consequence(a, "y")) == 0, "another consequence of the same trigger")
        #expect(ordinals.next(consequence(b, "x")) == 0, "another trigger; a new generation begins")
        #expect(ordinals.next(consequence(a, "x")) == 2, "the generation before is still remembered")
        #expect(ordinals.next(consequence(c, "x")) == 0)
        #expect(ordinals.next(consequence(c, "z")) == 0)
        #expect(ordinals.next(consequence(a, "y")) == 0, "two generations on, a slot is forgotten (bounded memory)")
    }
}
