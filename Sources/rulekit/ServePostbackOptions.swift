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

    @Option(name: .customLong("postbacks-ca"), help: "A PEM file of the CA certificates receivers are trusted by (default: the system's).")
    var ca: String?

    /// Sets the queue and its transport in `options`; the transport, to be shut down when serving ends.
    func apply(to options: inout ServeOptions) throws -> HTTPPostbackTransport? {
        guard let folder else { return nil }
        let transport: HTTPPostbackTransport
        do { transport = try HTTPPostbackTransport(caFile: ca) } catch {
            Stderr.write("error: \(error)\n")
            throw ExitCode(2)
        }
        options.postbacks = folder
        options.postbackTransport = transport
        return transport
    }
}
