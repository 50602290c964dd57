public import Foundation

/// Runs the built `rulekit` executable and pins its output against golden files.
public enum CLIRunner {
    /// What one run of the tool produced.
    public struct Output: Sendable {
        // Tests may normalize the streams (run ids) before comparing.
        /// The exit code.
        public var status: Int32
        /// Everything written to standard output.
        public var stdout: String
        /// Everything written to standard error.
        public var stderr: String

        /// The golden-file form: exit code, then both streams.
        public var transcript: String {
            "exit: \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
        }
    }

    /// A built executable of the package (`rulekit` by default) next to the test bundle.
    public static func executable(_ name: String = "rulekit") -> URL? {
        var candidates: [URL] = []
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle.appendingPathComponent(name))
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent(name))
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(argv0.appendingPathComponent(name))
        candidates.append(argv0.deletingLastPathComponent().appendingPathComponent(name))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The built executable, or an error naming it.
    public static func requireExecutable(_ name: String = "rulekit") throws -> URL {
        guard let exe = executable(name) else {
            throw NSError(domain: "CLIRunner", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) binary not found"])
        }
        return exe
    }

    /// Runs `rulekit args...` (or another executable) in `directory` (the repository root by default).
    /// `environment` is added to the test's own; `stdout` replaces the captured pipe (a file such as
    /// `/dev/full`), and the output's `stdout` is then empty.
    public static func run(
        _ args: [String], stdin: String? = nil, in directory: URL? = nil,
        executable name: String = "rulekit", environment: [String: String] = [:], stdout: FileHandle? = nil
    ) throws -> Output {
        guard let exe = executable(name) else {
            throw NSError(domain: "CLIRunner", code: 1, userInfo: [NSLocalizedDescriptionKey: "rulekit binary not found"])
        }
        let p = Process()
        p.executableURL = exe
        p.arguments = args
        p.currentDirectoryURL = directory ?? SharedCorpus.repositoryRoot
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        p.standardOutput = stdout ?? out
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so neither fills up and blocks the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if stdout != nil { try out.fileHandleForWriting.close() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return Output(
            status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Compares `output` with `Golden/<name>.txt` beside `testFile`; with `RULEKIT_UPDATE_GOLDEN=1`
    /// writes it instead. Returns a description of the difference, or nil when equal.
    public static func compare(_ output: Output, golden name: String, testFile: String = #filePath) -> String? {
        let url = URL(fileURLWithPath: testFile).deletingLastPathComponent()
            .appendingPathComponent("Golden").appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["RULEKIT_UPDATE_GOLDEN"] == "1" {
            try? output.transcript.write(to: url, atomically: true, encoding: .utf8)
            return nil
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return "missing golden file \(url.path); run with RULEKIT_UPDATE_GOLDEN=1 to create it"
        }
        return expected == output.transcript ? nil : "golden \(name) differs:\n--- expected\n\(expected)\n--- got\n\(output.transcript)"
    }
}

/// Golden files for text people read (diagnostics, explain output).
public enum Golden {
    /// Compares `text` with `Golden/<name>.txt` beside `testFile` (`RULEKIT_UPDATE_GOLDEN=1` rewrites it);
    /// nil when equal, else the difference.
    public static func compare(_ text: String, name: String, testFile: String = #filePath) -> String? {
        let url = URL(fileURLWithPath: testFile).deletingLastPathComponent()
            .appendingPathComponent("Golden").appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["RULEKIT_UPDATE_GOLDEN"] == "1" {
            try? text.write(to: url, atomically: true, encoding: .utf8)
            return nil
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return "missing golden file \(url.path); run with RULEKIT_UPDATE_GOLDEN=1 to create it"
        }
        return expected == text ? nil : "golden \(name) differs:\n--- expected\n\(expected)\n--- got\n\(text)"
    }
}
