// The report as one self-contained HTML file: styles and the one script inline, no network, readable
// opened from disk. Numbers a test or a reader looks for carry ids (`#event-count`) or data attributes
// (`tr[data-rule]`).
internal import Foundation
internal import RuleKitCore
internal import RuleKitRules

/// Renders a `RuleReport` as one self-contained HTML page (styles, chart and scripts inline).
public enum RuleReportHTML {
    /// The whole page, as text.
    public static func render(_ r: RuleReport) -> String {
        var h = ""
        h.reserveCapacity(64 * 1024 + r.rules.count * 2048)
        let errors = r.findings.count { $0.severity == .error }
        let warnings = r.findings.count { $0.severity == .warning }
        let passed = r.tests.reduce(0) { $0 + $1.results.count { $0.passed } }
        let failed = r.tests.reduce(0) { $0 + $1.results.count { !$0.passed } + ($1.error == nil ? 0 : 1) }
        h += """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>RuleKit report</title>
            <style>\(style)</style></head><body>
            <header><h1>RuleKit report</h1>
            <p class="meta">rulekit \(esc(r.version)) · rules: \(esc(r.ruleFiles.joined(separator: ", ")))\(r.eventsFile.map { " · events: " + esc($0) } ?? "")</p>
            <div class="cards">
            \(card("rules", "rule-count", r.rules.count))
            \(card("lint errors", "lint-errors", errors, bad: errors > 0))
            \(card("lint warnings", "lint-warnings", warnings))
            \(card("tests passed", "tests-passed", passed))
            \(card("tests failed", "tests-failed", failed, bad: failed > 0))
            \(r.eventsFile != nil ? card("events", "event-count", r.eventCount) + card("events matched", "matched-events", r.matchedEvents) : "")
            </div></header>
            <nav><a href="#lint">Lint</a><a href="#tests">Tests</a>\(r.eventsFile != nil ? "<a href=\"#stream\">Stream</a>" : "")\(r.baseline != nil ? "<a href=\"#baseline\">Change</a>" : "")<a href="#rules">Rules</a></nav>
            <main>

            """
        lint(r, &h)
        tests(r, &h)
        if r.eventsFile != nil { stream(r, &h) }
        if let b = r.baseline { baseline(b, &h) }
        rules(r, &h)
        h += "</main><script>\(script)</script></body></html>\n"
        return h
    }

    static func card(_ label: String, _ id: String, _ n: Int, bad: Bool = false) -> String {
        "<div class=\"card\(bad ? " bad" : "")\"><span id=\"\(id)\">\(n)</span><small>\(esc(label))</small></div>"
    }

    /// Findings grouped by code, errors first: each group says how many, links the rules, shows one finding
    /// with the member it is about, and lists the rest one line each; groups of more than three start closed.
    static func lint(_ r: RuleReport, _ h: inout String) {
        h += "<section id=\"lint\"><h2>Lint</h2>"
        if r.findings.isEmpty {
            h += "<p class=\"ok\">No findings.</p></section>\n"
            return
        }
        var order: [DiagnosticCode] = []
        var byCode: [DiagnosticCode: [Diagnostic]] = [:]
        for d in r.findings {
            if byCode[d.code] == nil { order.append(d.code) }
            byCode[d.code, default: []].append(d)
        }
        func rank(_ c: DiagnosticCode) -> Int { byCode[c]!.contains { $0.severity == .error } ? 0 : 1 }
        order.sort { (rank($0), $0.rawValue) < (rank($1), $1.rawValue) }
        let lines = Dictionary(uniqueKeysWithValues: r.sources.map { ($0.key, lineSplit($0.value)) })
        for code in order {
            let ds = byCode[code]!
            let severity = rank(code) == 0 ? "error" : ds[0].severity.rawValue
            let rules = uniqued(ds.compactMap(RuleReportBuilder.ruleLabel(of:)))
            h += "<details class=\"group \(severity)\" data-code=\"\(esc(code.rawValue))\"\(ds.count <= 3 ? " open" : "")>"
            h += "<summary><b>\(severity)</b> <code>\(esc(code.rawValue))</code> — <span class=\"count\">\(ds.count)</span> finding"
            h += "\(ds.count == 1 ? "" : "s")\(rules.isEmpty ? "" : " in \(rules.count) rule\(rules.count == 1 ? "" : "s")")</summary>"
            if !rules.isEmpty {
                h += "<p class=\"rules\">"
                h += rules.prefix(200).map { "<a href=\"#rule-\(anchor($0))\">\(esc($0))</a>" }.joined(separator: " ")
                if rules.count > 200 { h += " and \(rules.count - 200) more" }
                h += "</p>"
            }
            h += "<pre class=\"finding \(ds[0].severity.rawValue)\">\(esc(first(ds[0], lines)))</pre>"
            if ds.count > 1 {
                h += "<ul class=\"more\">"
                for d in ds.dropFirst().prefix(500) {
                    h += "<li>\(esc(d.location.map { "\($0.line):\($0.column)" } ?? "")) \(esc(DiagnosticRenderer.escaped(d.message)))</li>"
                }
                if ds.count > 501 { h += "<li>and \(ds.count - 501) more</li>" }
                h += "</ul>"
            }
            h += "</details>"
        }
        h += "</section>\n"
    }

    /// A finding with the member it is about: its line and those that follow while they are indented deeper
    /// (the rest of the object or list that opens there, up to eight lines), numbered, the column marked.
    static func first(_ d: Diagnostic, _ sources: [String: [Substring]]) -> String {
        var out = DiagnosticRenderer.headline(d)
        guard let l = d.location, let lines = sources[l.file], l.line >= 1, l.line <= lines.count else { return out }
        func indent(_ s: Substring) -> Int { s.prefix { $0 == " " || $0 == "\t" }.count }
        let start = l.line - 1
        let base = indent(lines[start])
        var end = start + 1
        while end < lines.count, end - start < 8 {
            let line = lines[end]
            let blank = line.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
            if !blank, indent(line) <= base {
                // The line that closes what the first opened belongs to it.
                if let c = line.dropFirst(indent(line)).first, "}])".contains(c) { end += 1 }
                break
            }
            end += 1
        }
        let width = String(end).count
        for n in start..<end {
            let number = String(n + 1)
            out += "\n" + String(repeating: " ", count: width - number.count) + number + " | "
            // The renderer's excerpt: the same window, escapes and caret as on a terminal.
            let (text, caret) = DiagnosticRenderer.excerpt(lines[n], column: n == start ? l.column : 1)
            out += text
            if n == start { out += "\n" + String(repeating: " ", count: width) + " | " + String(repeating: " ", count: caret) + "^" }
        }
        return out
    }

    static func lineSplit(_ text: String) -> [Substring] {
        text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    static func uniqued(_ xs: [String]) -> [String] {
        var seen = Set<String>()
        return xs.filter { seen.insert($0).inserted }
    }

    static func tests(_ r: RuleReport, _ h: inout String) {
        h += "<section id=\"tests\"><h2>Rule tests</h2>"
        if r.tests.isEmpty {
            h += "<p>No rule test files (<code>*.test.yaml</code>).</p></section>\n"
            return
        }
        h += "<table><tr><th>file</th><th>case</th><th>result</th></tr>"
        for t in r.tests {
            if let e = t.error {
                h += "<tr class=\"fail\"><td>\(esc(t.file))</td><td></td><td><pre>\(esc(e))</pre></td></tr>"
            }
            for c in t.results {
                h += "<tr class=\"\(c.passed ? "pass" : "fail")\"><td>\(esc(t.file))</td><td>\(esc(c.name))</td><td>"
                h += c.passed ? "PASS" : "FAIL<pre>\(esc(c.problems.joined(separator: "\n")))</pre>"
                h += "</td></tr>"
            }
        }
        h += "</table></section>\n"
    }

    static func stream(_ r: RuleReport, _ h: inout String) {
        h += "<section id=\"stream\"><h2>On the recorded stream</h2>"
        h +=
            "<p>\(r.eventCount) events\(r.badEvents > 0 ? " (\(r.badEvents) unreadable lines skipped)" : ""), \(r.matchedEvents) matched by at least one rule.</p>"
        if !r.badEventLines.isEmpty {
            h += "<details class=\"bad-lines\" open><summary>Unreadable lines</summary><ul>"
            for (line, message) in r.badEventLines { h += "<li>line \(line): \(esc(message))</li>" }
            if r.badEvents > r.badEventLines.count { h += "<li>and \(r.badEvents - r.badEventLines.count) more</li>" }
            h += "</ul></details>"
        }
        // The chart: the 40 rules that matched most.
        let top = r.rules.filter { $0.matches > 0 }.sorted { $0.matches > $1.matches }.prefix(40)
        if let most = top.first?.matches, most > 0 {
            let rowH = 18
            let width = 640
            let labelW = 200
            h +=
                "<h3>Matches per rule (top \(top.count))</h3><svg class=\"chart\" role=\"img\" aria-label=\"matches per rule\" width=\"\(width)\" height=\"\(top.count * rowH + 4)\">"
            for (i, e) in top.enumerated() {
                let w = max(1, (width - labelW - 60) * e.matches / most)
                let y = i * rowH
                h += "<text x=\"\(labelW - 6)\" y=\"\(y + 13)\" text-anchor=\"end\">\(esc(String(e.label.prefix(28))))</text>"
                h += "<rect x=\"\(labelW)\" y=\"\(y + 3)\" width=\"\(w)\" height=\"\(rowH - 6)\"></rect>"
                h += "<text x=\"\(labelW + w + 4)\" y=\"\(y + 13)\">\(e.matches)</text>"
            }
            h += "</svg>"
        }
        let never = r.rules.filter { $0.matches == 0 }
        h += "<h3>Rules that never matched (\(never.count))</h3><ul id=\"never-fired\">"
        for e in never { h += "<li><a href=\"#rule-\(anchor(e.label))\">\(esc(e.label))</a></li>" }
        h += "</ul>"
        h += "<h3>Consequences run, by type</h3><table id=\"consequence-types\"><tr><th>type</th><th>count</th></tr>"
        for (t, n) in r.consequencesByType.sorted(by: { $0.key < $1.key }) {
            h += "<tr data-type=\"\(esc(t))\"><td>\(esc(t))</td><td>\(n)</td></tr>"
        }
        h += "</table>"
        h += "<h3>XDM alignment</h3>"
        if r.xdmChecked == 0 {
            h += "<p>No XDM payloads were checked (no <code>xdm</code> in the events, or no ExperienceEvent schema).</p>"
        } else {
            h +=
                "<p>\(r.xdmChecked) payloads checked (the first \(RuleReport.xdmSample) at most); <span id=\"xdm-findings\">\(r.xdmFindings.count)</span> do not fit the schema\(r.xdmFindings.count >= RuleReport.listed ? " (first \(RuleReport.listed) listed)" : "").</p>"
            for f in r.xdmFindings { h += "<pre class=\"finding warning\">line \(f.line): \(esc(f.errors.joined(separator: "\n")))</pre>" }
        }
        h += "</section>\n"
    }

    static func baseline(_ b: RuleReport.BaselineDiff, _ h: inout String) {
        h += "<section id=\"baseline\"><h2>What the change does</h2>"
        h +=
            "<p>Rules added: <span id=\"rules-added\">\(b.added.count)</span>\(b.added.isEmpty ? "" : " — " + esc(b.added.joined(separator: ", "))). "
        h +=
            "Rules removed: <span id=\"rules-removed\">\(b.removed.count)</span>\(b.removed.isEmpty ? "" : " — " + esc(b.removed.joined(separator: ", "))). "
        h +=
            "Rules changed: <span id=\"rules-changed\">\(b.changed.count)</span>\(b.changed.isEmpty ? "" : " — " + b.changed.map { "<a href=\"#rule-\(anchor($0))\">\(esc($0))</a>" }.joined(separator: ", ")).</p>"
        h +=
            "<p><span id=\"changed-matches\">\(b.changedMatchCount)</span> events match other rules than before\(b.changedMatchCount > RuleReport.listed ? " (first \(RuleReport.listed) listed)" : "").</p>"
        if !b.changedMatches.isEmpty {
            h += "<table><tr><th>line</th><th>before</th><th>after</th></tr>"
            for c in b.changedMatches {
                h +=
                    "<tr><td>\(c.line)</td><td>\(esc(c.before.joined(separator: ", ")))</td><td>\(esc(c.after.joined(separator: ", ")))</td></tr>"
            }
            h += "</table>"
        }
        h +=
            "<p><span id=\"changed-data\">\(b.changedData.count)</span> of \(b.dataChecked) matched events checked have other resulting data.</p>"
        for c in b.changedData {
            h += "<details><summary>line \(c.line)</summary><pre>before: \(esc(c.before))\nafter:  \(esc(c.after))</pre></details>"
        }
        h += "</section>\n"
    }

    static func rules(_ r: RuleReport, _ h: inout String) {
        h +=
            "<section id=\"rules\"><h2>Rules</h2><input id=\"filter\" type=\"search\" placeholder=\"filter rules\" aria-label=\"filter rules\">"
        h += "<table id=\"rule-table\"><tr><th>rule</th><th>file</th><th>matches</th><th>consequences</th><th>findings</th></tr>"
        let most = max(1, r.rules.map(\.matches).max() ?? 1)
        for e in r.rules {
            h +=
                "<tr data-rule=\"\(esc(e.label))\"><td><a href=\"#rule-\(anchor(e.label))\">\(esc(e.label))</a></td><td>\(esc(e.file))</td>"
            h +=
                "<td class=\"matches\"><span class=\"bar\" style=\"width:\(e.matches * 100 / most)%\"></span><span class=\"n\">\(e.matches)</span></td>"
            h +=
                "<td>\(esc(e.consequenceTypes.joined(separator: ", ")))</td><td>\(e.findings.isEmpty ? "" : String(e.findings.count))</td></tr>"
        }
        h += "</table>"
        for e in r.rules {
            h +=
                "<details class=\"rule\" id=\"rule-\(anchor(e.label))\" data-rule=\"\(esc(e.label))\"><summary>\(esc(e.label)) — \(e.matches) match\(e.matches == 1 ? "" : "es")</summary>"
            if let l = e.location { h += "<p class=\"meta\">\(esc(l.description))</p>" }
            if !e.source.isEmpty { h += "<pre class=\"source\">\(esc(e.source))</pre>" }
            if !e.keys.isEmpty {
                h += "<table><tr><th>reads</th><th>XDM type</th></tr>"
                for k in e.keys { h += "<tr><td><code>\(esc(k.key))</code></td><td>\(esc(k.xdmType ?? ""))</td></tr>" }
                h += "</table>"
            }
            if let m = e.firstMatch { h += "<h4>Matched: event on line \(m.line)</h4><pre class=\"trace\">\(esc(m.trace))</pre>" }
            if let m = e.closestMiss {
                h +=
                    "<h4>Closest miss: event on line \(m.line), \(m.failed) matcher\(m.failed == 1 ? "" : "s") failed (among the first \(RuleReport.missSample) events)</h4><pre class=\"trace\">\(esc(m.trace))</pre>"
            }
            h += "</details>"
        }
        h += "</section>\n"
    }

    static func anchor(_ s: String) -> String {
        String(
            s.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" ? Character($0) : "_" })
    }

    static func esc(_ s: String) -> String {
        // Most text has nothing to escape: handed back as it is. The rest is escaped byte by byte (the four
        // characters are ASCII, and no UTF-8 sequence holds an ASCII byte).
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 }) else { return s }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 32)
        for b in s.utf8 {
            switch b {
            case 0x26: out += Array("&amp;".utf8)
            case 0x3C: out += Array("&lt;".utf8)
            case 0x3E: out += Array("&gt;".utf8)
            case 0x22: out += Array("&quot;".utf8)
            default: out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static let style = """
        body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
        header{background:#1d3557;color:#fff;padding:16px 24px}h1{margin:0 0 4px;font-size:22px}
        .meta{color:#8a94a6;font-size:12px;margin:2px 0}header .meta{color:#c9d3e3}
        .cards{display:flex;flex-wrap:wrap;gap:10px;margin-top:12px}
        .card{background:#fff;color:#1d232a;border-radius:6px;padding:8px 14px;min-width:90px}
        .card span{display:block;font-size:22px;font-weight:600}.card.bad span{color:#c0392b}
        .card small{color:#5b6575}nav{background:#fff;border-bottom:1px solid #dde1e7;padding:8px 24px}
        nav a{margin-right:16px;color:#1d3557;text-decoration:none}main{padding:8px 24px 40px}
        section{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:12px 18px;margin:16px 0}
        h2{font-size:18px;margin:4px 0 10px}h3{font-size:15px;margin:14px 0 6px}h4{font-size:13px;margin:10px 0 4px}
        table{border-collapse:collapse;margin:6px 0}td,th{border-bottom:1px solid #eceef2;padding:3px 10px;text-align:left}
        pre{background:#f3f4f7;padding:8px;border-radius:4px;font-size:12px;margin:4px 0;white-space:pre-wrap;overflow-wrap:anywhere}
        td{overflow-wrap:anywhere}main{max-width:1200px}details.group{border-top:1px solid #eceef2;padding:4px 0}
        details.group.error summary b{color:#c0392b}details.group.warning summary b{color:#b7791f}
        p.rules a{margin-right:8px}ul.more{font:12px ui-monospace,monospace;margin:4px 0;padding-left:18px}
        .finding.error{border-left:4px solid #c0392b}.finding.warning{border-left:4px solid #e6a23c}
        tr.fail td{color:#c0392b}tr.pass td:last-child{color:#2e7d32}.ok{color:#2e7d32}
        .chart rect{fill:#457b9d}.chart text{font-size:11px;fill:#1d232a}
        td.matches{position:relative;min-width:120px}.bar{position:absolute;left:0;top:3px;bottom:3px;background:#a8dadc;z-index:0}
        td.matches .n{position:relative;z-index:1;padding-left:4px}details.rule{border-top:1px solid #eceef2;padding:4px 0}summary{cursor:pointer}
        #filter{margin:4px 0 8px;padding:4px 8px;width:260px}
        """

    static let script = """
        document.getElementById('filter').addEventListener('input',function(e){var q=e.target.value.toLowerCase();
        document.querySelectorAll('#rule-table tr[data-rule],details.rule').forEach(function(r){
        r.style.display=r.getAttribute('data-rule').toLowerCase().indexOf(q)<0?'none':'';});});
        """
}
