// The `rulekit` command-line tool: what rule authors and CI pipelines run to check rules offline.
// Exit codes are fixed: 0 success, 1 findings or failures, 2 bad usage or unreadable input.
import ArgumentParser
import Foundation
import Logging
import RuleKitCore

@main
struct RuleKitMain {
    static func main() {
        LoggingSystem.bootstrap { StderrLogHandler(label: $0) }
        do {
            var command = try RuleKitCommand.parseAsRoot()
            try command.run()
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = RuleKitCommand.exitCode(for: error)
            let message = RuleKitCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
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
            ExplainCommand.self, ReportCommand.self, XDMCommand.self, SchemaCommand.self, SharedCommand.self, ServeCommand.self,
        ]
    )

    /// `rulekit` alone names no command: bad usage (exit 2), with the help on standard error.
    func run() throws {
        Stderr.write(Self.helpMessage() + "\n")
        throw ExitCode(2)
    }
}

/// Writes to standard error without buffering surprises.
enum Stderr {
    static func write(_ s: String) {
        FileHandle.standardError.write(Data(s.utf8))
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
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }
}
