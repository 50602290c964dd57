// Locates the shared benchmark workloads (../shared/bench, or $RULEKIT_SHARED/bench).
public import Foundation

/// Locates the shared benchmark inputs (`../shared/bench`) for every benchmark target.
public enum BenchData {
    /// The `../shared/bench` folder, found from the package directory.
    public static let shared: URL = {
        if let env = ProcessInfo.processInfo.environment["RULEKIT_SHARED"] { return URL(fileURLWithPath: env) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared")
    }()

    /// The bytes of `shared/<relative>`; stops the benchmark with a clear message when absent.
    public static func load(_ relative: String) -> [UInt8] {
        guard let d = FileManager.default.contents(atPath: shared.appendingPathComponent(relative).path) else {
            fatalError("benchmark data \(relative) is missing under \(shared.path) (set RULEKIT_SHARED)")
        }
        return [UInt8](d)
    }
}
