import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitPostbacks

/// `--postbacks-headers FILE` and `--postbacks-secret FILE` (run and serve): receivers' secrets stay in files,
/// out of rules and logs.
struct PostbackReceiverOptions: ParsableArguments {
    @Option(
        name: .customLong("postbacks-headers"),
        help: "A file of headers per receiver, one a line: 'host:port Name: value' ('*' for every receiver).")
    var headers: String?

    @Option(
        name: .customLong("postbacks-secret"),
        help: "A file holding the key each hit is signed with (HMAC-SHA256 of 'KEY.BODY', header X-RuleKit-Signature).")
    var secret: String?

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
