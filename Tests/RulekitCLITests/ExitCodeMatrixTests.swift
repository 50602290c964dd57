import Foundation
import RuleKitTestSupport
import Testing

/// Every command against every kind of mistake — a path that is missing, a folder, an empty file, malformed
/// text, binary bytes, a FIFO nobody writes to, a bad option value, output that cannot be written — with
/// its exit code and first lines of standard error, pinned in `Golden/exit-matrix.txt`. The README's
/// table of exit codes is this file's summary: 2 when the command could not do its work (bad usage, an
/// input it needs missing or unreadable, output it could not write), 1 when it did and found problems.
@Suite(.serialized) struct ExitCodeMatrixTests {
    /// A folder with one file of each kind of mistake, as `$M/<kind>`.
    static func mistakes() throws -> URL {
        let dir = Scratch.url("rk-matrix-\(UUID())")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try Data().write(to: dir.appendingPathComponent("empty"))
        try Data(#"{"rules": [ {"x":"#.utf8).write(to: dir.appendingPathComponent("malformed"))
        try Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: dir.appendingPathComponent("binary"))
        #expect(mkfifo(dir.appendingPathComponent("fifo").path, 0o600) == 0)
        return dir
    }

    static let kinds = ["missing", "folder", "empty", "malformed", "binary", "fifo"]

    /// Each command's argument slots, `F` standing for the mistaken file.
    static let slots: [[String]] = [
        ["parse", "F"],
        ["lint", "F"],
        ["lint", "--examples", "F"],
        ["convert", "F", "--to", "yaml"],
        ["run", "--rules", "F", "Examples/events.jsonl"],
        ["run", "F"],
        ["run", "--state", "s=F", "Examples/events.jsonl"],
        ["match", "--rules", "F", "Examples/events.jsonl"],
        ["match", "F"],
        ["explain", "--event", "F"],
        ["explain", "--rules", "F", "--event", "Examples/purchase-event.json"],
        ["test", "F"],
        ["report", "--rules", "F", "--out", "-"],
        ["report", "--events", "F", "--out", "-"],
        ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "F"],
        ["xdm", "paths", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "--schemas", "F"],
    ]

    /// Options given values they cannot take.
    static let badOptions: [[String]] = [
        ["run", "--threads", "-1"], ["run", "--threads", "x"], ["match", "--threads", "65"],
        ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "--threads", "-3", "Examples/events.jsonl"],
        ["run", "--xdm-policy", "lenient"],
        ["lint", "--format", "xml"], ["convert", "Rules/commerce.yaml", "--to", "toml"], ["report"],
        ["serve", "--workers", "0"], ["serve", "--listen", "nowhere"], ["serve", "--history", "mysql://x"],
        ["serve", "--queue", "-1"], ["shared", "increment", "D", "c", "--times", "-1"], ["shared", "set", "D", "bad/name", "1"],
        ["shared", "set", "D", "c", "{"], ["run", "--identity", ""], ["lsp", "--debounce-ms", "20000"], ["nosuchcommand"],
    ]

    /// Commands whose standard output is `/dev/full`.
    static let fullOutput: [[String]] = [
        ["schema"], ["schema", "--tests"], ["parse", "Examples/state.json"], ["lint"], ["lint", "--format", "json"],
        ["lint", "--format", "sarif"], ["convert", "Rules/commerce.yaml", "--to", "launch-json"],
        ["convert", "Rules/commerce.yaml", "--to", "yaml"], ["run", "Examples/events.jsonl"], ["match", "Examples/events.jsonl"],
        ["explain", "--event", "Examples/purchase-event.json"], ["test"], ["report", "--out", "-"],
        ["xdm", "paths", "--class", "https://rulekit.dev/xdm/sdk/experienceevent"],
        ["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", "Examples/events.jsonl"],
        ["shared", "list", "D"], ["shared", "get", "D", "c"],
    ]

    static func line(_ args: [String], _ out: CLIRunner.Output, replacing: [(String, String)]) -> String {
        // Standard error; a command that reports its findings on standard output (lint) shows those.
        var err = out.stderr.isEmpty ? out.stdout : out.stderr
        for (a, b) in replacing { err = err.replacingOccurrences(of: a, with: b) }
        let first = err.split(separator: "\n", omittingEmptySubsequences: true).prefix(2).map { "    " + $0 }.joined(separator: "\n")
        var shown = args.joined(separator: " ")
        for (a, b) in replacing { shown = shown.replacingOccurrences(of: a, with: b) }
        return "\(shown) -> \(out.status)\n\(first)\n"
    }

    @Test func everyCommandAgainstEveryMistake() throws {
        let m = try Self.mistakes()
        defer { try? FileManager.default.removeItem(at: m) }
        let shared = m.appendingPathComponent("shared")
        let seeded = try CLIRunner.run(["shared", "set", shared.path, "c", "1"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let replacing = [(shared.path, "$D"), (m.path, "$M")]
        let wait = ["RULEKIT_INPUT_WAIT": "0.2"]
        var transcript = "# Each mistake: the command, its exit code, the first lines of standard error.\n\n## Inputs\n"
        for slot in Self.slots {
            for kind in Self.kinds {
                let path = kind == "missing" ? m.appendingPathComponent("no-such-file").path : m.appendingPathComponent(kind).path
                let args = slot.map { $0.replacingOccurrences(of: "F", with: path, options: .anchored) }
                    .map { $0 == "s=F" ? "s=\(path)" : $0 }
                let out = try CLIRunner.run(args, stdin: "", environment: wait)
                transcript += Self.line(args, out, replacing: replacing)
                #expect(out.status == 0 || out.status == 1 || out.status == 2, "\(args): \(out.status)")
                if kind == "missing" || kind == "folder" || kind == "fifo" {
                    #expect(out.status == 2, "\(args) with a \(kind) path exits \(out.status)")
                }
            }
        }
        transcript += "\n## Option values\n"
        for args in Self.badOptions {
            let real = args.map { $0 == "D" ? shared.path : $0 }
            let out = try CLIRunner.run(real, stdin: "")
            transcript += Self.line(real, out, replacing: replacing)
            #expect(out.status == 2, "\(args) exits \(out.status)")
            #expect(!out.stderr.isEmpty, "\(args) says nothing")
        }
        var st = stat()
        if stat("/dev/full", &st) == 0, (st.st_mode & S_IFMT) == S_IFCHR, let full = FileHandle(forWritingAtPath: "/dev/full") {
            transcript += "\n## Output to a full device\n"
            for args in Self.fullOutput {
                let real = args.map { $0 == "D" ? shared.path : $0 }
                let out = try CLIRunner.run(real, stdin: "", stdout: full)
                transcript += Self.line(real, out, replacing: replacing)
                #expect(out.status == 2, "\(args) to /dev/full exits \(out.status)")
                #expect(out.stderr.contains("No space left on device"), "\(args): \(out.stderr)")
            }
        } else {
            Issue.record("no /dev/full character device here: the full-output rows were not run")
        }
        if let problem = Golden.compare(transcript, name: "exit-matrix") { Issue.record(Comment(rawValue: problem)) }
    }
}
