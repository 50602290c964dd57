// Postbacks in the service (`--postbacks DIR`): the hits a batch's rules fired are written to the queue
// before the batch is answered (a full queue answers 503, and the client's retry makes the same keys), and
// a service of the group delivers the queue until shutdown. A batch whose configuration is opted out
// (`global.privacy` = `optedout`, in the batch's states or the start's) queues nothing.
internal import Foundation
internal import Logging
internal import RuleKitCore
internal import RuleKitPostbacks
internal import ServiceLifecycle

/// Delivery's tallies since start (`/metrics`).
struct PostbackCounts: Sendable {
    var delivered = 0
    var retried = 0
    var dead = 0
    var refused = 0
}

extension EnrichmentService {
    static let configuration = "com.adobe.module.configuration"

    /// Whether the batch's configuration (else the one published at start) is opted out.
    func optedOut(_ states: [String: ValueObject]) -> Bool {
        let config = states[Self.configuration] ?? options.states[Self.configuration]
        return config?["global.privacy"]?.stringValue == "optedout"
    }

    /// Queues the postbacks among a batch's delivered events.
    func queuePostbacks(_ out: [Event], states: [String: ValueObject]) async throws(ServeError) {
        guard let postbacks, !optedOut(states) else { return }
        let path = options.identityPath
        var byID: [UUID: Event] = [:]
        var found = PostbackHits(out) { consequence in
            guard let path, let parent = consequence.parentID else { return "" }
            if byID.isEmpty { byID = Dictionary(out.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
            return HistoryIdentity.value(at: path, in: byID[parent]?.data) ?? ""
        }
        // The outbound rules see each hit once, as it is queued (every host holds the same rules).
        if !found.hits.isEmpty, let rules = hosts.first?.rules { found = rules.outbound(found) }
        if !found.refused.isEmpty {
            postbackCounts.withLock { $0.refused += found.refused.count }
            for r in found.refused { Logger(label: "rulekit.postbacks").warning("\(r)") }
        }
        guard !found.hits.isEmpty else { return }
        do { try await postbacks.enqueue(found.hits) } catch is PostbackQueue.Full {
            throw .postbacksFull
        } catch {
            throw .historyUnavailable("the postback queue cannot be written: \(error)")
        }
    }

    /// The queue's figures for `/metrics` and `/readyz` (nil when not sending).
    var postbackFigures: PostbackFigures? {
        guard let postbacks else { return nil }
        let counts = postbackCounts.withLock { $0 }
        let oldest = (try? postbacks.oldestQueuedAt()).flatMap { $0 }
        return PostbackFigures(
            depth: (try? postbacks.depth()) ?? -1, dead: (try? postbacks.deadCount()) ?? -1, delivered: counts.delivered,
            retried: counts.retried, deadLettered: counts.dead, refused: counts.refused,
            oldestAge: oldest.map { max(0, Date().timeIntervalSince1970 - $0) } ?? 0)
    }
}

/// The postback queue as `/metrics` and `/readyz` show it.
struct PostbackFigures: Sendable {
    var depth: Int
    var dead: Int
    var delivered: Int
    var retried: Int
    var deadLettered: Int
    var refused: Int
    var oldestAge: Double
}

/// Delivers the postback queue from start until the graceful shutdown (what is left stays queued).
struct PostbackService: Service {
    let service: EnrichmentService
    let queue: PostbackQueue
    let transport: any PostbackTransport
    let policy: PostbackDelivery.Policy

    func run() async throws {
        let counts = service.postbackCounts
        let logger = Logger(label: "rulekit.postbacks")
        let delivery = PostbackDelivery(queue: queue, transport: transport, policy: policy) { hit, outcome in
            switch outcome {
            case .delivered: counts.withLock { $0.delivered += 1 }
            case .retried: counts.withLock { $0.retried += 1 }
            case .dead(let why):
                counts.withLock { $0.dead += 1 }
                logger.warning("a postback is a dead letter", metadata: ["receiver": "\(hit.postback.receiver)", "why": "\(why)"])
            }
        }
        await cancelWhenGracefulShutdown { await delivery.run(poll: .milliseconds(100)) }
    }
}
