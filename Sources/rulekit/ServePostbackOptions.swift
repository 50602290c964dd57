import ArgumentParser
import Foundation
import RuleKitFetch
import RuleKitServe

/// `serve --postbacks DIR`: the `pb` and `pii` consequences batches fire are queued in DIR before the batch is
/// answered, and delivered by the server (docs/postbacks.md).
struct ServePostbackOptions: ParsableArguments {
    @Option(
        name: .customLong("postbacks"),
        help: "Send the pb and pii consequences the rules fire: a durable queue in DIR, delivered in order per receiver, retried.")
    var folder: String?

    @Option(
        name: .customLong("postbacks-max-mb"),
        help: "The bound of the postback queue on disk, in MiB (default 256); when full, batches that add postbacks get 503.")
    var maxMB = 256

    @OptionGroup var receivers: PostbackReceiverOptions

    func validate() throws {
        guard (1...1_048_576).contains(maxMB) else { throw ValidationError("--postbacks-max-mb takes 1 to 1048576") }
    }

    /// Sets the queue and its transport in `options`; the transport, to be shut down when serving ends.
    func apply(to options: inout ServeOptions) throws -> HTTPPostbackTransport? {
        guard let folder else { return nil }
        let transport = try receivers.transport()
        options.postbacks = folder
        options.postbackTransport = transport
        options.postbackPolicy.inFlight = receivers.inFlight
        options.postbackMaxBytes = maxMB << 20
        return transport
    }
}
