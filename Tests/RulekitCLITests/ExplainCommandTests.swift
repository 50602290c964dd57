import Foundation
import RuleKitTestSupport
import Testing

/// `rulekit explain` reads a JSON event's data as a tape (the engine's borrowed path, as `run` does) and a
/// YAML one as a document: the same event explains the same either way.
@Suite struct ExplainCommandTests {
    func explain(_ text: String, as ext: String) throws -> CLIRunner.Output {
        let path = Scratch.url("rk-explain-\(UUID()).\(ext)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try CLIRunner.run(["explain", "--state", "com.adobe.module.configuration=Examples/state.json", "--event", path])
    }

    @Test func anEventExplainsTheSameReadAsATapeOrAsADocument() throws {
        let examples = try String(
            contentsOfFile: SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl").path, encoding: .utf8)
        var lines = examples.split(separator: "\n").map(String.init).prefix(6).map { $0 }
        // Data the tape does not take (a key with an escape) is read as a document: the same answers.
        lines.append(lines[0].replacingOccurrences(of: #""eventType""#, with: #""event\u0054ype""#))
        for line in lines {
            let tape = try explain(line, as: "json")
            let document = try explain(line, as: "yaml")
            #expect(tape.status == 0, "\(tape.stderr)")
            #expect(tape.stdout.contains("rule "))
            #expect(tape.stdout == document.stdout, "\(line)")
            #expect(tape.stderr == document.stderr)
        }
    }

    @Test func anEventFileThatIsNoObjectOrNoJSONIsAnError() throws {
        let notObject = try explain("[1, 2]", as: "json")
        #expect(notObject.status == 2)
        #expect(notObject.stderr.contains("must hold a JSON object"))
        let broken = try explain("{\"name\": ", as: "json")
        #expect(broken.status == 2)
        #expect(broken.stderr.contains(".json:1:"))
    }
}
