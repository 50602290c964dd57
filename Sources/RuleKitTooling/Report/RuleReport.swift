// What `rulekit report` shows, worked out once: lint findings, rule tests, and what the rules do on a
// recorded stream (matches per rule through the batch API, consequences by type, a matched event and the
// closest miss for each rule, XDM findings), and with a baseline what a change of rules does to the same
// stream. `RuleReportHTML` renders it.
internal import Foundation
public import RuleKitCore
internal import RuleKitRules
public import RuleKitSources
internal import RuleKitXDM

/// What `rulekit report` shows, worked out once; `RuleReportHTML` renders it.
public struct RuleReport: Sendable {
    /// One rule and what the stream did with it.
    public struct RuleEntry: Sendable {
        /// The rule's id, or its position when it has none.
        public var label: String
        /// The rules file it came from.
        public var file: String
        /// Where the rule starts in that file.
        public var location: SourceLocation?
        /// The rule as written (its lines of the source file).
        public var source: String
        /// Keys its conditions read, with the XDM type of those that are XDM paths.
        public var keys: [(key: String, xdmType: String?)]
        /// How many events of the stream it matched.
        public var matches = 0
        /// The types of its consequences, in order.
        public var consequenceTypes: [String]
        /// Line of the first event it matched, and the trace there.
        public var firstMatch: (line: Int, trace: String)?
        /// Among the sampled events it did not match, the one that failed the fewest matchers.
        public var closestMiss: (line: Int, failed: Int, trace: String)?
        /// Lint findings located inside the rule.
        public var findings: [Diagnostic] = []
    }

    /// What a change of rules does to the stream.
    public struct BaselineDiff: Sendable {
        /// Rules (by label) in the new set and not in the baseline.
        public var added: [String]
        /// Rules (by label) in the baseline and not in the new set.
        public var removed: [String]
        /// Rules (by id) in both whose definition differs (as Launch JSON, data elements inlined: a rule that
        /// only moved in its file is not changed).
        public var changed: [String] = []
        /// Events whose matched rules differ: line, before, after.
        public var changedMatches: [(line: Int, before: [String], after: [String])]
        /// How many events' matched rules differ (`changedMatches` lists the first few).
        public var changedMatchCount: Int
        /// Events whose resulting data differ (among those checked): line, before, after.
        public var changedData: [(line: Int, before: String, after: String)]
        /// How many events had their resulting data compared.
        public var dataChecked: Int
    }

    /// The RuleKit version that built the report.
    public var version = RuleKitVersion.current
    /// The rules files read.
    public var ruleFiles: [String] = []
    /// Every lint finding, with lint's severities.
    public var findings: [Diagnostic] = []
    /// The text of every file read, by path, for excerpts.
    public var sources: [String: String] = [:]
    /// Each rule test file's case results, or the error that kept it from running.
    public var tests: [TestFileResult] = []
    /// One rule test file's case results, or the error that kept it from running.
    public typealias TestFileResult = (file: String, results: [RuleTestRunner.Result], error: String?)
    /// The recorded stream (JSON lines), if one was given.
    public var eventsFile: String?
    /// Events read from the stream.
    public var eventCount = 0
    /// Lines of the stream that were not events.
    public var badEvents = 0
    /// The first of them (at most `listed`): line number and why.
    public var badEventLines: [(line: Int, message: String)] = []
    /// Events that matched at least one rule.
    public var matchedEvents = 0
    /// Every rule, in rule-set order.
    public var rules: [RuleEntry] = []
    /// Consequences of matched rules, counted by type.
    public var consequencesByType: [String: Int] = [:]
    /// XDM payloads of the stream that failed validation: line and errors.
    public var xdmFindings: [(line: Int, errors: [String])] = []
    /// XDM payloads validated (at most `xdmSample`).
    public var xdmChecked = 0
    /// What the change from the baseline rules does, when one was given.
    public var baseline: BaselineDiff?

    /// Events sampled for the closest miss of each rule, and XDM payloads validated.
    public static let missSample = 200
    /// XDM payloads validated, at most.
    public static let xdmSample = 1000
    /// Changed events listed (all are counted).
    public static let listed = 50
}

/// Builds a report: the inputs as the CLI options give them.
public struct RuleReportBuilder: Sendable {
    /// The rules to report on.
    public var rules: RuleSnapshot
    /// The linter whose findings the report shows.
    public var linter: Linter
    /// Rule test files (`*.test.yaml`) to run.
    public var testFiles: [String] = []
    /// A recorded stream of events, JSON lines (`-` for standard input).
    public var events: String?
    /// Shared states the rules read, by extension name.
    public var states: [String: ValueObject] = [:]
    /// XDM shared states the rules read, by extension name.
    public var xdmStates: [String: ValueObject] = [:]
    /// The previous rules, to show what the change does to the stream.
    public var baseline: RuleSnapshot?

    /// A builder for `rules`, linted by `linter`, with no stream, tests or baseline yet.
    public init(rules: RuleSnapshot, linter: Linter) {
        self.rules = rules
        self.linter = linter
    }

    /// Lints, runs the tests and the stream, and gathers the report; an unreadable stream or test is an error.
    public func build() throws(DiagnosticError) -> RuleReport {
        var report = RuleReport()
        report.ruleFiles = rules.files.sets.map(\.path)
        report.sources = rules.files.sources
        let compiled = rules.compiled
        // What does not depend on the stream (lint, the rule tests, each rule's entry) is made on another
        // thread while the stream is read: on two cores the report then costs little more than `match`.
        let aside = Locked<(findings: [Diagnostic], tests: [RuleReport.TestFileResult], entries: [RuleReport.RuleEntry])?>(nil)
        let group = DispatchGroup()
        let builder = self
        DispatchQueue.global().async(group: group) {
            let made = (builder.linter.lint(builder.rules), builder.runTests(), builder.entries(compiled))
            aside.withLock { $0 = made }
        }
        var tally: StreamTally?
        var failure: DiagnosticError?
        if let events {
            do { tally = try stream(events, compiled, into: &report) } catch { failure = error }
        }
        group.wait()
        if let failure { throw failure }
        guard let (findings, tests, entries) = aside.withLock({ $0 }) else { return report }
        report.findings = findings
        report.tests = tests
        report.rules = entries
        var byRule: [String: [Diagnostic]] = [:]
        for d in report.findings { if let l = RuleReportBuilder.ruleLabel(of: d) { byRule[l, default: []].append(d) } }
        for (i, e) in report.rules.enumerated() { report.rules[i].findings = byRule[e.label] ?? [] }
        if let tally {
            for i in report.rules.indices {
                report.rules[i].matches = tally.matches[i]
                report.rules[i].firstMatch = tally.firstMatch[i]
                report.rules[i].closestMiss = tally.closestMiss[i]
                for t in report.rules[i].consequenceTypes where tally.matches[i] > 0 {
                    report.consequencesByType[t, default: 0] += tally.matches[i]
                }
            }
        }
        return report
    }

    /// Each rule's definition by id, as Launch JSON text with its file's data elements inlined.
    static func definitions(_ snapshot: RuleSnapshot) -> [String: String] {
        var out: [String: String] = [:]
        for (_, set) in snapshot.files.sets {
            for rule in set.rules {
                guard let id = rule.id else { continue }
                let one = RuleSet(version: set.version, rules: [rule], dataElements: set.dataElements)
                out[id] = JSONWriter.string(LaunchRulesWriter.value(one))
            }
        }
        return out
    }

    /// Each rule test file's case results, or the error that kept it from running.
    func runTests() -> [RuleReport.TestFileResult] {
        testFiles.map { f in
            let (file, found) = RuleTestFile.load(path: f)
            guard let file else {
                return (f, [], found.filter { $0.severity == .error }.map(\.description).joined(separator: "\n"))
            }
            let r = RuleSnapshot.load(file.rulesPaths())
            if r.hasErrors { return (f, [], "the rules do not load") }
            return (f, RuleTestRunner.run(file, r), nil)
        }
    }

    /// What the stream says of each rule, by rule index.
    struct StreamTally {
        var matches: [Int]
        var firstMatch: [(line: Int, trace: String)?]
        var closestMiss: [(line: Int, failed: Int, trace: String)?]

        init(count: Int) {
            matches = Array(repeating: 0, count: count)
            firstMatch = Array(repeating: nil, count: count)
            closestMiss = Array(repeating: nil, count: count)
        }
    }

    /// The rule a finding is about, if any.
    static func ruleLabel(of d: Diagnostic) -> String? { d.rule }

    func entries(_ compiled: CompiledRuleSet) -> [RuleReport.RuleEntry] {
        // Each rule's file is where its location points (the planner drops some rules, so plan
        // positions do not follow the files).
        let elementsOf = Dictionary(
            rules.files.sets.map { set in
                (set.path, Dictionary(set.set.dataElements.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }))
            }, uniquingKeysWith: { a, _ in a })
        // Each file's lines and rule start lines, split once (not per rule).
        var texts: [String: (lines: [Substring], starts: Set<Int>)] = [:]
        for (path, set) in rules.files.sets {
            guard let text = rules.files.source(path) else { continue }
            let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring($0) }
            texts[path] = (lines, Set(set.rules.compactMap { $0.location?.line }))
        }
        return compiled.rules.map { rule in
            let file = rule.rule.location?.file ?? ""
            var keys: [String] = []
            collectKeys(rule.rule.condition, into: &keys, depth: 0)
            let elements = elementsOf[file] ?? [:]
            let typed: [(key: String, xdmType: String?)] = keys.map { k in
                var path = k
                if k.hasPrefix("%"), k.hasSuffix("%"), k.count > 2, let e = elements[String(k.dropFirst().dropLast())] { path = e.path }
                return (k, linter.xdmLeaf(path)?.type)
            }
            return RuleReport.RuleEntry(
                label: rule.label, file: file, location: rule.rule.location,
                source: excerpt(texts[file], rule.rule.location), keys: typed,
                consequenceTypes: rule.rule.consequences.map(\.type))
        }
    }

    func collectKeys(_ c: Condition, into keys: inout [String], depth: Int) {
        guard depth < 64 else { return }
        if let k = c.definition.key, !keys.contains(k) { keys.append(k) }
        for sub in c.definition.conditions ?? [] { collectKeys(sub, into: &keys, depth: depth + 1) }
    }

    /// The rule's lines: from its location to the line before the next rule of the file (at most 40).
    func excerpt(_ text: (lines: [Substring], starts: Set<Int>)?, _ location: SourceLocation?) -> String {
        guard let location, let (lines, starts) = text else { return "" }
        var out: [Substring] = []
        var n = location.line
        while n <= lines.count, out.count < 40 {
            if n != location.line && starts.contains(n) { break }
            out.append(lines[n - 1].prefix(200))
            n += 1
        }
        while let last = out.last, last.trimmingCharacters(in: .whitespaces).isEmpty { out.removeLast() }
        return out.joined(separator: "\n")
    }

    /// The event's data after `set`'s rules ran on it alone (a fresh engine: no state of other events).
    func resultingData(_ set: CompiledRuleSet, _ event: Event) -> String {
        let engine = RulesEngine(runtime: StaticRulesRuntime(states: states, xdmStates: xdmStates))
        engine.setRules(set)
        return engine.process(event).data.map { JSONWriter.string(.object($0)) } ?? "null"
    }

    /// Reads the stream into `report`'s stream figures; what it says of each rule is handed back.
    func stream(_ path: String, _ compiled: CompiledRuleSet, into report: inout RuleReport) throws(DiagnosticError) -> StreamTally {
        var tally = StreamTally(count: compiled.rules.count)
        report.eventsFile = path
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdmStates)
        let before = baseline?.compiled
        var diff = before.map { before in
            let now = Set(compiled.rules.map(\.label))
            let was = Set(before.rules.map(\.label))
            var diff = RuleReport.BaselineDiff(
                added: now.subtracting(was).sorted(), removed: was.subtracting(now).sorted(),
                changedMatches: [], changedMatchCount: 0, changedData: [], dataChecked: 0)
            if let baseline {
                let old = Self.definitions(baseline)
                diff.changed = Self.definitions(rules).filter { id, text in old[id].map { $0 != text } ?? false }.keys.sorted()
            }
            return diff
        }
        var sample: [(line: Int, event: Event)] = []
        var firstMatchEvent: [Int: (Int, Event)] = [:]
        let xdmValidator = linter.xdmValidator
        let reader = try JSONLinesReader(path: path)
        // The same driver as `rulekit match`: blocks parsed into tapes and matched (against the baseline as
        // well, in the same pass) on worker threads; what needs an event's tree is done here, on the few
        // events it is done for.
        do {
            try MatchStream.run(
                reader, sets: before.map { [compiled, $0] } ?? [compiled], runtime: runtime, name: path == "-" ? "<stdin>" : path,
                keepEvents: true
            ) { block in
                for p in block.problems {
                    report.badEvents += 1
                    if report.badEventLines.count < RuleReport.listed {
                        report.badEventLines.append((p.line, p.diagnostic.message))
                    }
                }
                report.eventCount += block.events.count
                for (e, event) in block.events.enumerated() {
                    let line = block.lines[e]
                    if sample.count < RuleReport.missSample { sample.append((line, event)) }
                    if let xdmValidator, report.xdmChecked < RuleReport.xdmSample, let xdm = event.data?["xdm"] {
                        report.xdmChecked += 1
                        let errors = xdmValidator.validate(xdm, maxErrors: 5)
                        if !errors.isEmpty, report.xdmFindings.count < RuleReport.listed {
                            report.xdmFindings.append((line, errors.map { "xdm\($0.instancePath): \($0.message)" }))
                        }
                    }
                    let indexes = block.matched[0][e]
                    if !indexes.isEmpty {
                        report.matchedEvents += 1
                        for i in indexes {
                            tally.matches[i] += 1
                            if firstMatchEvent[i] == nil { firstMatchEvent[i] = (line, event) }
                        }
                    }
                    guard let before, diff != nil else { continue }
                    let a = block.matched[1][e].map { before.rules[$0].label }
                    let b = indexes.map { compiled.rules[$0].label }
                    if a != b {
                        diff!.changedMatchCount += 1
                        if diff!.changedMatches.count < RuleReport.listed { diff!.changedMatches.append((line, a, b)) }
                    }
                    // Resulting data: checked on the events either set matched, up to the sample size.
                    if (!a.isEmpty || !b.isEmpty) && diff!.dataChecked < RuleReport.xdmSample {
                        diff!.dataChecked += 1
                        let dx = resultingData(before, event)
                        let dy = resultingData(compiled, event)
                        if dx != dy && diff!.changedData.count < RuleReport.listed { diff!.changedData.append((line, dx, dy)) }
                    }
                }
            }
        } catch let e as DiagnosticError {
            throw e
        } catch {
            throw DiagnosticError(.error(.unreadable, "cannot read '\(path)': \(error)"))
        }
        report.baseline = diff
        // Traces: each rule's first match, and its closest miss among the sampled events: the earliest of the
        // events that failed the fewest matchers (a rule stops looking at one failed matcher). Event by event,
        // one resolver for every rule (what it resolved for one rule is there for the next).
        for i in compiled.rules.indices {
            if let (line, e) = firstMatchEvent[i] {
                var r = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
                tally.firstMatch[i] = (line, ExplainText.render(Evaluator.trace(compiled, rule: i, &r)))
            }
        }
        // The rules are split in two halves traced at once (each with its resolvers): the report's largest
        // cost after the stream, on a machine of two cores.
        let halves = compiled.rules.count < 64 ? 1 : 2
        let found = Locked([Int: (line: Int, failed: Int, trace: String)]())
        let events = sample
        DispatchQueue.concurrentPerform(iterations: halves) { h in
            let range = compiled.rules.indices.split(into: halves, part: h)
            var best = [Int: (line: Int, failed: Int, trace: ConditionTrace)]()
            var looking = Array(range)
            for (line, e) in events where !looking.isEmpty {
                var r = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
                looking.removeAll { i in
                    let t = Evaluator.trace(compiled, rule: i, &r)
                    let failed = t.failedMatchers
                    if !t.result, failed > 0, best[i] == nil || failed < best[i]!.failed { best[i] = (line, failed, t) }
                    return best[i]?.failed == 1
                }
            }
            let rendered = best.mapValues { ($0.line, $0.failed, ExplainText.render($0.trace)) }
            found.withLock { $0.merge(rendered) { a, _ in a } }
        }
        for (i, b) in found.withLock({ $0 }) { tally.closestMiss[i] = b }
        return tally
    }
}

extension Range where Bound == Int {
    /// Part `part` of `parts` near-equal consecutive parts of the range.
    fileprivate func split(into parts: Int, part: Int) -> Range<Int> {
        let size = (count + parts - 1) / Swift.max(1, parts)
        let start = Swift.min(upperBound, lowerBound + part * size)
        return start..<Swift.min(upperBound, start + size)
    }
}
