import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// `rulekit report` end to end: the HTML it writes, as a browser renders it (headless Chromium's DOM) when
/// one is installed (`.ci/run` installs it), else as written.
@Suite struct ReportCommandTests {
    static func temp(_ name: String) -> String {
        Scratch.url("rk-report-\(UUID())-\(name)").path
    }

    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The page as the browser built it, or the file's text when no browser is installed.
    static func dom(_ path: String) throws -> String {
        guard let chromium else {
            print("skipping the browser: no Chromium installed (apt-get install chromium); checking the HTML as written")
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: chromium)
        p.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func theShippedRulesOverTheExampleEvents() throws {
        let out = Self.temp("r.html")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try CLIRunner.run([
            "report", "--events", "Examples/events.jsonl",
            "--state", "com.adobe.module.configuration=Examples/state.json", "--out", out,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: out, encoding: .utf8)
        // Self-contained: nothing is fetched.
        #expect(!html.contains("src=\"http") && !html.contains("href=\"http") && !html.contains("@import"))
        let dom = try Self.dom(out)
        #expect(dom.contains(#"<span id="event-count">4</span>"#))
        #expect(dom.contains(#"<span id="matched-events">4</span>"#))
        #expect(dom.contains(#"<span id="rule-count">6</span>"#))
        #expect(dom.contains(#"<span id="tests-passed">10</span>"#))
        #expect(dom.contains(#"<span id="tests-failed">0</span>"#))
        #expect(dom.contains(#"<tr data-rule="opted-out-strip">"#))
        let row = try #require(dom.range(of: #"<tr data-rule="opted-out-strip">"#))
        #expect(dom[row.upperBound...].prefix(400).contains(#"<span class="n">3</span>"#))
        let never = try #require(dom.range(of: #"<ul id="never-fired">"#))
        #expect(dom[never.upperBound...].prefix(200).contains("loyal-user-offer"))
        #expect(dom.contains(#"<tr data-type="mod"><td>mod</td><td>3</td></tr>"#))
        #expect(dom.contains("Closest miss: event on line"))
    }

    @Test func aBaselineShowsWhatTheChangeDoes() throws {
        let out = Self.temp("b.html")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try CLIRunner.run([
            "report", "--events", "Examples/events.jsonl", "--baseline", "Rules/commerce.yaml",
            "--state", "com.adobe.module.configuration=Examples/state.json", "--out", out,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let dom = try Self.dom(out)
        #expect(dom.contains(#"<span id="rules-added">3</span>"#))
        #expect(dom.contains(#"<span id="rules-removed">0</span>"#))
        // The launch event now matches record-launch and welcome-back.
        #expect(dom.contains(#"<span id="changed-matches">1</span>"#))
    }

    @Test func aReportNeedsWhereToWrite() throws {
        #expect(try CLIRunner.run(["report"]).status == 2)
        let bad = try CLIRunner.run(["report", "--out", "/no/such/folder/r.html"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("cannot write"))
    }
}

/// `report` answers as `lint` and `test` do: exit 1 when the rules have errors, a rule test fails or an event
/// line cannot be read, each named on standard error with its line; the page is written whole or not at all.
@Suite struct ReportExitTests {
    static func folder(_ files: [String: String]) throws -> URL {
        let dir = Scratch.url("rk-report-exit-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    static let rule = "rules:\n  - {id: r, when: {key: x, eq: 1}, then: [{add: {y: 2}}]}\n"

    @Test func lintErrorsFailingTestsAndBadLinesExitOne() throws {
        let dir = try Self.folder([
            "rules.yaml": Self.rule,
            "rules.test.yaml":
                "rules: [rules.yaml]\ncases:\n  - name: wrong\n    events: [{type: t, source: s, data: {x: 1}}]\n    expect: {fired: [nope]}\n",
            "events.jsonl": "{\"type\":\"t\",\"source\":\"s\",\"data\":{\"x\":1}}\nnot json\n[2]\n",
            "bad.yaml": "rules:\n  - {id: b, when: {key: x, eqals: 1}, then: []}\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("r.html").path
        let tests = try CLIRunner.run(["report", "--rules", dir.appendingPathComponent("rules.yaml").path, "--out", page])
        #expect(tests.status == 1)
        #expect(tests.stderr.contains("FAIL \(dir.appendingPathComponent("rules.test.yaml").path): wrong"), "\(tests.stderr)")
        #expect(FileManager.default.fileExists(atPath: page))

        let lines = try CLIRunner.run([
            "report", "--rules", "Rules", "--events", dir.appendingPathComponent("events.jsonl").path, "--out", page,
        ])
        #expect(lines.status == 1)
        #expect(lines.stderr.contains("events.jsonl:2: "), "\(lines.stderr)")
        #expect(lines.stderr.contains("events.jsonl:3: error: an event must be an object"), "\(lines.stderr)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("line 3: an event must be an object"))

        let lint = try CLIRunner.run(["report", "--rules", dir.appendingPathComponent("bad.yaml").path, "--out", page])
        #expect(lint.status == 1)
        #expect(lint.stderr.contains("bad.yaml:2:"), "\(lint.stderr)")

        let clean = try CLIRunner.run(["report", "--out", page])
        #expect(clean.status == 0, "\(clean.stderr)")
    }

    @Test func theOutputIsWholeOrNotThere() throws {
        let dir = try Self.folder(["keep.html": "before"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("keep.html").path
        // `-` is standard output, not a file named "-".
        let stdout = try CLIRunner.run(["report", "--out", "-"])
        #expect(stdout.stdout.hasPrefix("<!DOCTYPE html>"), "\(stdout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: SharedCorpus.repositoryRoot.appendingPathComponent("-").path))
        // Replaced by rename: the new page, and no temporary file left beside it.
        let ok = try CLIRunner.run(["report", "--out", page])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["keep.html"])
        // A device is written in place, never replaced by a file.
        var st = stat()
        if stat("/dev/full", &st) == 0, (st.st_mode & S_IFMT) == S_IFCHR {
            let full = try CLIRunner.run(["report", "--out", "/dev/full"])
            #expect(full.status == 2)
            #expect(full.stderr.contains("cannot write '/dev/full': No space left on device"))
            #expect(stat("/dev/full", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
        }
    }
}

/// Inputs that are not regular files: a FIFO is read as a stream once something is written to it, and
/// refused with `input.unreadable` when nothing is within `RULEKIT_INPUT_WAIT`; process substitution works.
@Suite struct NonRegularInputTests {
    @Test func aFIFOWithAWriterIsReadAndOneWithoutIsRefused() throws {
        let dir = Scratch.url("rk-fifo-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("f").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let silent = try CLIRunner.run(["parse", fifo], environment: ["RULEKIT_INPUT_WAIT": "0.2"])
        #expect(silent.status == 2)
        #expect(silent.stderr.contains("is a FIFO and nothing was written to it within 0.2 s"))
        // A writer that comes a little later, within the wait.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "sleep 0.3; printf '{\"type\":\"t\",\"source\":\"s\",\"data\":{\"x\":1}}\\n' > '\(fifo)'"]
        try writer.run()
        let read = try CLIRunner.run(["match", "--rules", "Rules", fifo], environment: ["RULEKIT_INPUT_WAIT": "5"])
        writer.waitUntilExit()
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains("1 events"), "\(read.stdout)")
    }

    @Test func sharedSetReadsStandardInput() throws {
        let dir = Scratch.url("rk-shared-stdin-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let set = try CLIRunner.run(["shared", "set", dir.path, "c", "-"], stdin: #"{"x":2}"#)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try CLIRunner.run(["shared", "get", dir.path, "c"]).stdout == "{\"x\":2}\n")
        let bad = try CLIRunner.run(["shared", "set", dir.path, "c", "-"], stdin: #"{"x":"#)
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("<stdin>:1:6: error:"), "\(bad.stderr)")
    }
}

/// What a reviewer reads first: findings grouped by code, the keys' XDM types, what a change modified, and
/// shipped examples that fit the shipped schema.
@Suite struct ReportReadingTests {
    @Test func findingsAreGroupedByCodeWithTheRulesLinked() throws {
        let dir = Scratch.url("rk-report-groups-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Five rules with the same trap (a `ne` on a key that may be missing), one with another.
        var yaml = "rules:\n"
        for i in 1...5 { yaml += "  - {id: r\(i), when: {key: xdm.eventType, ne: x\(i)}, then: [{add: {data: {n: \(i)}}}]}\n" }
        yaml += "  - {id: s, when: {key: xdm.commerce.order.priceTotal, gt: '5'}, then: [{add: {data: {s: 1}}}]}\n"
        let rules = dir.appendingPathComponent("r.yaml")
        try yaml.write(to: rules, atomically: true, encoding: .utf8)
        let page = dir.appendingPathComponent("r.html").path
        let run = try CLIRunner.run(["report", "--rules", rules.path, "--out", page])
        #expect(run.status == 1, "\(run.stderr)")  // the numeric matcher with a string is an error
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let trap = try #require(html.range(of: #"data-code="lint.missing-key-trap""#))
        let rest = html[trap.lowerBound...]
        let group = rest[..<(rest.range(of: "</details>")?.lowerBound ?? rest.endIndex)]
        #expect(group.contains(#"<span class="count">5</span> findings in 5 rules"#))
        #expect(!group.hasPrefix(#"data-code="lint.missing-key-trap" open"#))
        for i in 1...5 { #expect(group.contains("<a href=\"#rule-r\(i)\">r\(i)</a>")) }
        // One finding shown with its member, numbered; the other four one line each.
        #expect(group.contains(" | "))
        #expect(group.components(separatedBy: "<li>").count - 1 == 4)
        // Errors come first.
        let numeric = try #require(html.range(of: #"data-code="lint.numeric-matcher-string-value""#))
        #expect(numeric.lowerBound < trap.lowerBound)
        // The keys a rule reads, with their XDM types from the schemas.
        #expect(html.contains("<tr><td><code>xdm.eventType</code></td><td>string</td></tr>"))
        #expect(html.contains("<tr><td><code>xdm.commerce.order.priceTotal</code></td><td>number</td></tr>"))
    }

    @Test func theBaselineNamesTheRulesAChangeModified() throws {
        let dir = Scratch.url("rk-report-changed-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOfFile: "Rules/commerce.yaml", encoding: .utf8)
        let before = dir.appendingPathComponent("before.yaml")
        try text.replacingOccurrences(of: "customerTier: gold", with: "customerTier: platinum").write(
            to: before, atomically: true, encoding: .utf8)
        let page = dir.appendingPathComponent("b.html").path
        let run = try CLIRunner.run(["report", "--events", "Examples/events.jsonl", "--baseline", before.path, "--out", page])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains(##"<span id="rules-changed">1</span> — <a href="#rule-big-order">big-order</a>"##))
        // Rules that only moved are not changed: the same rules, reordered lines above them.
        let moved = dir.appendingPathComponent("moved.yaml")
        try ("# a comment that moves every rule down a line\n" + text).write(to: moved, atomically: true, encoding: .utf8)
        _ = try CLIRunner.run(["report", "--events", "Examples/events.jsonl", "--baseline", moved.path, "--out", page])
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains(#"<span id="rules-changed">0</span>"#))
    }

    @Test func theShippedExamplesFitTheShippedSchema() throws {
        let file = Scratch.url("rk-examples-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Self.xdmPayloads().write(to: file, atomically: true, encoding: .utf8)
        let run = try CLIRunner.run(["xdm", "validate", "--class", "https://rulekit.dev/xdm/sdk/experienceevent", file.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    }

    /// The `data.xdm` of each shipped example event, one per line.
    static func xdmPayloads() throws -> String {
        try String(contentsOfFile: "Examples/events.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let data = o["data"] as? [String: Any], let xdm = data["xdm"]
            else { return nil }
            return String(decoding: try JSONSerialization.data(withJSONObject: xdm), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
    }
}
