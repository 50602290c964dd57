import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitLSP

/// `rulekit lsp`: the language server, over standard input and output.
struct LSPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "A Language Server Protocol server for rules and rule tests, over standard input and output.",
        discussion: """
            Diagnostics as you type (everything `rulekit lint` finds), completion of keys, matchers, XDM paths and \
            data elements, hover, go to definition, references, the outline and quick fixes. The workspace folder \
            the editor sends is where Rules/, Schemas/ and Examples/ are looked for. docs/editor.md sets it up in \
            Neovim, Helix and VS Code.

            Exit 0 after the client's shutdown and exit; 1 when the client went away without them.
            """
    )

    @Flag(help: "Accepted for editors that pass it: standard input and output are the transport.")
    var stdio = false

    @Option(name: .customLong("debounce-ms"), help: "How long a check waits for the next keystroke, in milliseconds (0-10000).")
    var debounceMilliseconds = 10

    func validate() throws {
        guard (0...10_000).contains(debounceMilliseconds) else {
            throw ValidationError("--debounce-ms must be between 0 and 10000, not \(debounceMilliseconds)")
        }
    }

    func run() throws {
        let output = OutputChannel { bytes in systemWrite(STDOUT_FILENO, bytes) == nil }
        let server = LanguageServer(output: output, debounceMilliseconds: debounceMilliseconds)
        var framer = MessageFramer()
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 16)
        while server.phase != .exited {
            chunk.removeAll(keepingCapacity: true)
            let n = systemRead(STDIN_FILENO, appendingTo: &chunk, count: 1 << 16)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            server.receive(framer.feed(chunk))
        }
        server.close()
        throw ExitCode(server.exitCode)
    }
}
