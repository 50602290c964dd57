import Foundation
import RuleKitTestSupport
import Testing

/// Every command's help shows an example, and the example runs as printed (issue 19: the examples
/// named files that did not exist and exited 2).
@Suite struct HelpExampleTests {
    static let commands: [[String]] = [
        ["run"], ["match"], ["test"], ["parse"], ["lint"], ["convert"], ["explain"], ["report"], ["xdm"], ["xdm", "validate"],
        ["xdm", "paths"], ["schema"], ["shared"],
    ]

    /// The example commands of a help text: lines after "Example:", with `\` continuations joined.
    static func examples(_ help: String) -> [[String]] {
        var out: [[String]] = []
        var inExample = false
        var current = ""
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t == "Example:" || t == "Examples:" {
                inExample = true
                continue
            }
            guard inExample else { continue }
            if t.isEmpty || t.hasPrefix("USAGE") {
                inExample = false
                continue
            }
            current += " " + t
            if current.hasSuffix("\\") {
                current.removeLast()
                continue
            }
            // Shell redirections and pipes are the shell's, not the tool's.
            let shellWords: Set<String> = [">", "|", "2>"]
            let all: [String] = current.split(separator: " ").map { String($0) }
            // Single quotes are the shell's too (the examples quote no spaces).
            let words: [String] = all.prefix { !shellWords.contains($0) }.map { $0.replacingOccurrences(of: "'", with: "") }
            if words.first == "rulekit" { out.append(Array(words.dropFirst())) }
            current = ""
        }
        return out
    }

    @Test(arguments: commands)
    func theHelpExampleRuns(_ command: [String]) throws {
        let help = try CLIRunner.run(command + ["--help"])
        #expect(help.status == 0)
        let examples = Self.examples(help.stdout)
        #expect(!examples.isEmpty, "\(command) shows no example")
        let container = Scratch.url("rk-help-\(UUID())").path
        defer {
            try? FileManager.default.removeItem(atPath: container)
            try? FileManager.default.removeItem(atPath: container + ".html")
        }
        for args in examples {
            // `shared` examples name a container folder: run them in a fresh one.
            // Files the examples write go to a fresh folder too.
            let fixed = args.map { $0 == ".rulekit/shared" ? container : $0 == "report.html" ? container + ".html" : $0 }
            let out = try CLIRunner.run(fixed)
            #expect(out.status == 0 || out.status == 1, "rulekit \(args.joined(separator: " ")) exited \(out.status): \(out.stderr)")
        }
    }
}
