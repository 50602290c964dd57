public import Foundation

/// A local test server: a Python script that binds 127.0.0.1 on a free port, prints the port on its first
/// line and exits when its standard input closes.
public final class LocalServer: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:port`.
    public var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Whether python3 (which runs the servers) is installed.
    public static var isAvailable: Bool {
        ["/usr/bin/python3", "/usr/local/bin/python3"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `script` with python3 (and `arguments` after its own) and waits for its port.
    public init(script: URL, arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // The test keeps its stdin: the server exits when the test closes it (or ends).
        process.arguments = ["python3", script.path, "--until-stdin-closes"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line = Data()
        while let b = try output.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line.append(b) }
        guard let p = Int(String(decoding: line, as: UTF8.self)) else {
            throw NSError(
                domain: "LocalServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(script.lastPathComponent) did not start"])
        }
        port = p
    }

    /// Closes the server's standard input and waits for it to exit.
    public func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
