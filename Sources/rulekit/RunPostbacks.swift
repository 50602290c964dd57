import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitFetch
import RuleKitPostbacks

/// `rulekit run --send-postbacks`: the `pb` and `pii` consequences among the events written are queued as
/// each block is written (in `--data-dir`'s queue when given, else a queue of this run's own) and sent once
/// the input is done; the run waits for delivery, bounded by `--postbacks-wait`.
struct PostbackOptions: ParsableArguments {
    @Flag(
        name: .customLong("send-postbacks"),
        help: "Send the pb and pii consequences (postbacks) the rules fire, and wait for their delivery before exiting.")
    var send = false

    @Option(
        name: .customLong("postbacks-wait"), parsing: .unconditional,
        help: "Seconds to wait for postbacks to be delivered (default 30); what is left is named on stderr (exit 1).")
    var wait: Double = 30

    @OptionGroup var receivers: PostbackReceiverOptions

    func validate() throws {
        guard wait.isFinite, wait >= 0, wait <= 86_400 else { throw ValidationError("--postbacks-wait takes 0 to 86400 seconds") }
    }
}

/// The postbacks of one run: queued from the written events, then delivered.
final class RunPostbacks: Sendable {
    let queue: PostbackQueue
    /// The queue's folder when it is the run's own (removed at the end when empty).
    let ownFolder: String?
    private let failure = Locked<String?>(nil)
    /// The rules whose outbound stage each hit passes as it is queued (set once the host has booted).
    let outbound = Locked<RulesControl?>(nil)

    init(dataDir: String?) throws {
        let folder = dataDir ?? PathText.join(NSTemporaryDirectory(), "rulekit-postbacks-\(UUID().uuidString)")
        ownFolder = dataDir == nil ? folder : nil
        do { queue = try PostbackQueue(directory: folder) } catch {
            Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
            throw ExitCode(2)
        }
    }

    /// Queues the postbacks among a block's events (a refused one is said on stderr; a `url` consequence too).
    func take(_ events: [Event]) {
        var found = PostbackHits(events)
        if !found.hits.isEmpty, let rules = outbound.withLock({ $0 }) { found = rules.outbound(found) }
        for url in found.urls { Stderr.write("note: a url consequence asks to open \(url.isEmpty ? "(no url)" : url)\n") }
        for refusal in found.refused { Stderr.write("warning: \(refusal)\n") }
        guard !found.hits.isEmpty else { return }
        do { try queue.enqueue(found.hits) } catch { failure.withLock { $0 = "\(error)" } }
    }

    /// Sends the queue, waiting up to `seconds`; exit 1 naming what is left undelivered or dead.
    func deliver(_ options: PostbackOptions) throws {
        if let f = failure.withLock({ $0 }) {
            Stderr.write("error: postbacks could not be queued: \(f)\n")
            throw ExitCode(1)
        }
        let transport = try options.receivers.transport()
        let queue = self.queue
        let wait = options.wait
        var policy = PostbackDelivery.Policy()
        policy.inFlight = options.receivers.inFlight
        let drained: Bool = try BlockingTask.run { [policy] in
            let delivery = PostbackDelivery(queue: queue, transport: transport, policy: policy) { hit, outcome in
                switch outcome {
                case .delivered: break
                case .retried(let why): Stderr.write("note: postback to \(hit.postback.receiver) will be retried: \(why)\n")
                case .dead(let why): Stderr.write("error: postback to \(hit.postback.receiver) not delivered: \(why)\n")
                }
            }
            let drained: Bool
            do { drained = try await delivery.drain(until: .now + .milliseconds(Int(wait * 1000))) } catch {
                Stderr.write("error: the postback queue failed: \(error)\n")
                drained = false
            }
            await transport.shutdown()
            return drained
        }
        let left = (try? queue.waiting()) ?? []
        let dead = (try? queue.deadLetters()) ?? []
        for h in left {
            Stderr.write("error: postback \(h.postback.key) to \(h.postback.receiver) not delivered yet (\(h.lastError ?? "not tried"))\n")
        }
        if let own = ownFolder, left.isEmpty, dead.isEmpty { try? FileManager.default.removeItem(atPath: own) }
        if !left.isEmpty, let own = ownFolder { Stderr.write("note: the undelivered postbacks are kept in \(own)\n") }
        if !drained || !left.isEmpty || !dead.isEmpty { throw ExitCode(1) }
    }
}
