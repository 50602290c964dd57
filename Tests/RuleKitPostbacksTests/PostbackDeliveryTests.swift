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

    func send(_ hit: Postback) async -> PostbackAnswer {
        sent.withLock { $0.append(hit) }
        return answers.withLock { a in
            guard var list = a[hit.url], !list.isEmpty else { return .status(200, retryAfter: nil) }
            let first = list.removeFirst()
            a[hit.url] = list
            return first
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
        try queue.enqueue([
            Self.hit("a1", "http://a.test/1"), Self.hit("a2", "http://a.test/2"), Self.hit("b1", "http://b.test:8080/1"),
        ])
        #expect(try queue.enqueue([Self.hit("a1", "http://a.test/1")]) == 0, "a key already queued is passed over")
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
        try queue.enqueue([
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
        let dead = try queue.deadLetters()
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
}
