import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitFetch
import RuleKitPostbacks

/// How hits are sent, for run and serve alike: the CA, hits in flight per receiver, and receivers' secrets
/// (`--postbacks-headers`, `--postbacks-secret`), which stay in files, out of rules and logs.
struct PostbackReceiverOptions: ParsableArguments {
    @Option(name: .customLong("postbacks-ca"), help: "A PEM file of the CA certificates receivers are trusted by (default: the system's).")
    var ca: String?

    @Option(
        name: .customLong("postbacks-in-flight"),
        help: "Postbacks sent at once to one receiver (default 1: in order; more are not ordered among themselves).")
    var inFlight = 1

    @Option(
        name: .customLong("postbacks-headers"),
        help: "A file of headers per receiver, one a line: 'host:port Name: value' ('*' for every receiver).")
    var headers: String?

    @Option(
        name: .customLong("postbacks-secret"),
        help: "A file holding the key each hit is signed with (HMAC-SHA256 of 'KEY.BODY', header X-RuleKit-Signature).")
    var secret: String?

    func validate() throws {
        guard (1...64).contains(inFlight) else { throw ValidationError("--postbacks-in-flight takes 1 to 64") }
    }

    /// The transport, with the files read (exit 2 naming what cannot be used).
    func transport() throws -> HTTPPostbackTransport {
        let receivers = try load()
        do { return try HTTPPostbackTransport(caFile: ca, receivers: receivers) } catch {
            Stderr.write("error: \(error)\n")
            throw ExitCode(2)
        }
    }

    /// The files read (exit 2 naming the file and line when one cannot be used).
    func load() throws -> PostbackReceivers {
        var r = PostbackReceivers()
        do throws(DiagnosticError) {
            if let headers {
                r.headers = try PostbackReceivers.headers(
                    parsing: String(decoding: try ByteInput.readAll(headers, limit: 65_536), as: UTF8.self), file: headers)
            }
            if let secret {
                // The key is the file's bytes without the line break an editor adds.
                var key = try ByteInput.readAll(secret, limit: 4_096)
                while let last = key.last, last == 0x0A || last == 0x0D { key.removeLast() }
                guard !key.isEmpty else {
                    throw DiagnosticError(.error("postbacks.secret", "the secret file '\(secret)' is empty"))
                }
                r.secret = key
            }
        } catch {
            Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
            throw ExitCode(2)
        }
        return r
    }
}
