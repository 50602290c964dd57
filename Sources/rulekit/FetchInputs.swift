import ArgumentParser
import Dispatch
import Foundation
import RuleKitCore

/// A poll interval: `30s`, `5m`, `500ms`, `1h`, or seconds alone; from 100 ms to a day.
struct PollInterval: ExpressibleByArgument {
    var duration: Duration

    init?(argument: String) {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        var text = Substring(argument)
        var scale: Int64 = 1000
        for (suffix, ms) in units where text.hasSuffix(suffix) && Int64(text.dropLast(suffix.count)) != nil {
            text = text.dropLast(suffix.count)
            scale = ms
            break
        }
        guard let n = Int64(text), n > 0, n <= 86_400_000 / scale, n * scale >= 100 else { return nil }
        duration = .milliseconds(n * scale)
    }
}

/// A file of `Name: value` header lines (blank lines and `#` comments skipped).
enum HeaderFile {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func read(_ path: String) throws -> [(name: String, value: String)] {
        let bytes: [UInt8]
        do { bytes = try ByteInput.readAll(path, limit: 65_536) } catch {
            throw Failure(description: error.diagnostics.first?.message ?? "cannot read '\(path)'")
        }
        var out: [(name: String, value: String)] = []
        for (n, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty || text.hasPrefix("#") { continue }
            switch HeaderLine.parse(text) {
            case .success(let header): out.append(header)
            case .failure(let why): throw Failure(description: "\(path):\(n + 1): \(why)")
            }
        }
        return out
    }
}

/// Runs async work to its end from synchronous command code (the main thread, never a task's).
enum BlockingTask {
    final class Box<T>: @unchecked Sendable {
        var value: T?
    }

    /// Exit 1, with a message, in the one case that cannot happen: the task ended without its value.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) throws -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        guard let value = box.value else {
            Stderr.write("error: internal: a background task ended without its result\n")
            throw ExitCode(1)
        }
        return value
    }
}
