// The audit trail of the admin routes (a person's history, the postback queue's dead letters): one line per
// call at `notice` on the `rulekit.audit` logger, naming the token by its file and line, never its value.
internal import Foundation
internal import Hummingbird
internal import HummingbirdAuth
internal import Logging

struct AdminAudit: Sendable {
    let admins: AuthTokens?
    let logger = Logger(label: "rulekit.audit")

    /// One audit line: `what`, the token and `metadata`.
    func log(_ what: String, _ request: Request, _ metadata: Logger.Metadata) {
        var metadata = metadata
        let line = admins?.line(of: request.headers.bearer?.token)
        metadata["token"] = "\(admins.map { URL(fileURLWithPath: $0.file).lastPathComponent } ?? "none"):\(line.map(String.init) ?? "?")"
        logger.notice("\(what)", metadata: metadata)
    }
}
