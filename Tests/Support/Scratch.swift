public import Foundation

/// Where tests write their scratch files: one folder per test process, removed when the process exits.
///
/// A test cannot always remove what it wrote when it ends: a hub, a folder watcher or a child process it
/// started may still be winding down. By the process's exit they have all stopped, so the whole folder
/// goes then, instead of a thousand `rk-*` folders piling up in the temporary directory.
///
/// ```swift
/// let dir = Scratch.url("rk-rules-\(UUID())")
/// ```
public enum Scratch {
    /// This process's scratch folder (created on first use).
    public static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rulekit-tests-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: Scratch.root) }
        return url
    }()

    /// A path named `name` inside the scratch folder (nothing is created there).
    public static func url(_ name: String) -> URL { root.appendingPathComponent(name) }
}
