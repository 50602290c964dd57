// The `rulekit` command-line tool: what rule authors and CI pipelines run to check rules offline.
// Exit codes are fixed: 0 success, 1 findings or failures, 2 bad usage or unreadable input.
import ArgumentParser
import Foundation
import Logging
import RuleKitCore

@main
struct RuleKitMain {
    static func main() async {
        // A reader that goes away (`rulekit run ... | head`) is an end of output, not a reason to die by a
        // signal: writes then fail with EPIPE, and `Stdout` ends the run quietly.
        signal(SIGPIPE, SIG_IGN)
        LoggingSystem.bootstrap { StderrLogHandler(label: $0) }
        do {
            var command = try RuleKitCommand.parseAsRoot()
            // `serve` runs in Swift concurrency (no thread blocked waiting for it); the others are plain
            // functions that return when their work is done.
            if var service = command as? any AsyncParsableCommand {
                try await service.run()
            } else {
                try command.run()
            }
            Stdout.close()
        } catch let exit as ExitCode {
            if exit == .success { Stdout.close() }
            Foundation.exit(exit.rawValue)
        } catch {
            let code = RuleKitCommand.exitCode(for: error)
            let message = RuleKitCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Stdout.print(message) }
                Foundation.exit(0)
            }
            if !message.isEmpty { Stderr.write(message + "\n") }
            // Argument errors are usage errors: 2, not ArgumentParser's 64.
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

struct RuleKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rulekit",
        abstract: "Check, test and run Launch-style rules offline.",
        discussion: """
            Exit codes: 0 success, 1 findings or failures, 2 bad usage or unreadable input.

            Example:
              rulekit parse Rules/commerce.yaml
            """,
        version: RuleKitVersion.current,
        subcommands: [
            RunCommand.self, MatchCommand.self, TestCommand.self, ParseCommand.self, LintCommand.self, ConvertCommand.self,
            PackCommand.self, ExplainCommand.self, ReportCommand.self, XDMCommand.self, SchemaCommand.self, SharedCommand.self,
            ServeCommand.self, HistoryCommand.self, PostbacksCommand.self, LSPCommand.self,
        ]
    )

    /// `rulekit` alone names no command: bad usage (exit 2), with the help on standard error.
    func run() throws {
        Stderr.write(Self.helpMessage() + "\n")
        throw ExitCode(2)
    }
}

/// Writes to standard error without buffering surprises (a closed standard error is ignored).
enum Stderr {
    static func write(_ s: String) {
        _ = systemWrite(STDERR_FILENO, Array(s.utf8))
    }
}

/// What a command built and needs until its end, and that the process's end frees at once: freeing a
/// large rule set or document piece by piece just before exiting costs as much as a tenth of loading it.
/// Only plain data goes here, never anything whose release does work (a hub, a history store).
enum KeptUntilExit {
    private static let kept = Locked<[any Sendable]>([])

    static func keep(_ value: any Sendable) {
        kept.withLock { $0.append(value) }
    }
}

/// Writes to standard output. When the reader has gone away (EPIPE: `rulekit run ... | head`), there is
/// no one left to write for: the tool ends at once, with status 0, as a consumer closing its end is no
/// error of the producer's.
enum Stdout {
    static func write(_ bytes: [UInt8]) {
        guard let error = systemWrite(STDOUT_FILENO, bytes) else { return }
        if error == EPIPE { _exit(0) }
        Stderr.write("error: cannot write to standard output: \(String(cString: strerror(error)))\n")
        _exit(2)
    }
}

/// Standard output, buffered, flushed at exit points.
struct StdoutBuffer {
    private var buffer = ""

    mutating func write(_ s: String) {
        buffer += s
        if buffer.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        Stdout.write(Array(buffer.utf8))
        buffer = ""
    }
}
