// Helpers shared by RuleKit's test targets: locating the external corpora in `../shared` (which a
// user's clone does not have) and reading fixture files. Not part of any product.
public import Foundation

/// Where the external conformance corpora live, if present.
///
/// Looks at `$RULEKIT_SHARED`, then `../shared` beside the repository. Tests that need it skip with a
/// clear message when it is absent.
public enum SharedCorpus {
    /// The repository root (found from this file's path).
    public static let repositoryRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }()

    /// The `../shared` folder (or `$RULEKIT_SHARED`), nil when absent.
    public static let root: URL? = {
        if let env = ProcessInfo.processInfo.environment["RULEKIT_SHARED"], !env.isEmpty {
            // A path that is not there is an absent corpus (`RULEKIT_SHARED=/nonexistent` runs the suite as a
            // clone without ../shared would).
            return FileManager.default.fileExists(atPath: env) ? URL(fileURLWithPath: env) : nil
        }
        let candidate = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// The folder `shared/<relative>`, or nil (and a printed reason) when it is not there.
    public static func folder(_ relative: String) -> URL? {
        guard let root else {
            print("skipping: ../shared is absent (set RULEKIT_SHARED to run the \(relative) corpus)")
            return nil
        }
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("skipping: \(url.path) is absent")
            return nil
        }
        return url
    }

    /// Whether the corpora are present (for `.enabled(if:)` traits).
    public static var isPresent: Bool { root != nil }

    /// The file's bytes, nil when unreadable.
    public static func bytes(_ url: URL) -> [UInt8]? {
        FileManager.default.contents(atPath: url.path).map { [UInt8]($0) }
    }
}

/// A corpus runner's list of cases expected to fail: `id<TAB>reason` lines, `#` comments.
public enum ExpectedFailures {
    /// The list in `name` beside `testFile`.
    public static func load(_ name: String, besides testFile: String = #filePath) -> [String: String] {
        let url = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { out[String(parts[0])] = String(parts[1]) }
        }
        return out
    }
}
