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
