// Where the library's swift-log messages go in the tool: standard error, as `rulekit: message` for the
// one-shot commands, and as timestamped lines with their level, logger and metadata for `rulekit serve`.
import Foundation
import Logging
import RuleKitCore

/// A log handler writing to standard error.
struct StderrLogHandler: LogHandler {
    /// Whether lines carry a timestamp, level and logger (the service's log) or read as the tool's notes.
    static let serviceFormat = Locked(false)

    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        var line: String
        if Self.serviceFormat.withLock({ $0 }) {
            let time = ISO8601DateFormatter().string(from: Date())
            line = "\(time) \(event.level) \(label): \(event.message)"
            for (k, v) in fields.sorted(by: { $0.key < $1.key }) { line += " \(k)=\(v)" }
        } else {
            line = "rulekit: \(event.message)"
        }
        Stderr.write(line + "\n")
    }
}
