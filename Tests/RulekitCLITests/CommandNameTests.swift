import ArgumentParser
import Testing

@testable import rulekit

/// Every command names itself. Without a `commandName`, ArgumentParser derives the name from the type's
/// name (`String(describing:)`), and each such derivation is a first-time protocol-conformance lookup on a
/// new type: a scan of every conformance record the process has loaded. Four unnamed `shared` subcommands
/// cost every `rulekit` process 7 million instructions (a fifth of `rulekit --version`), whatever it ran.
@Suite struct CommandNameTests {
    @Test func everyCommandNamesItself() {
        var unnamed: [String] = []
        var pending: [any ParsableCommand.Type] = [RuleKitCommand.self]
        while let command = pending.popLast() {
            if command.configuration.commandName == nil { unnamed.append("\(command)") }
            pending += command.configuration.subcommands
        }
        #expect(unnamed.isEmpty, "commands without a commandName: \(unnamed)")
    }
}
