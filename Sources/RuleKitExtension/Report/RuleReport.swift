// What `rulekit report` shows, worked out once: lint findings, rule tests, and what the rules do on a
// recorded stream (matches per rule through the batch API, consequences by type, a matched event and the
// closest miss for each rule, XDM findings), and with a baseline what a change of rules does to the same
// stream. `RuleReportHTML` renders it.
internal import Foundation
public import RuleKitCore
internal import RuleKitRules
internal import RuleKitXDM

public struct RuleReport: Sendable {
    /// One rule and what the stream did with it.
    public struct RuleEntry: Sendable {
        public var label: String
        public var file: String
        public var location: SourceLocation?
        /// The rule as written (its lines of the source file).
        public var source: String
        /// Keys its conditions read, with the XDM type of those that are XDM paths.
        public var keys: [(key: String, xdmType: String?)]
        public var matches = 0
        public var consequenceTypes: [String]
        /// Line of the first event it matched, and the trace there.
        public var firstMatch: (line: Int, trace: String)?
        /// Among the sampled events it did not match, the one that failed the fewest matchers.
        public var closestMiss: (line: Int, failed: Int, trace: String)?
        public var findings: [Diagnostic] = []
    }

    /// What a change of rules does to the stream.
    public struct BaselineDiff: Sendable {
        public var added: [String]
        public var removed: [String]
        /// Events whose matched rules differ: line, before, after.
        public var changedMatches: [(line: Int, before: [String], after: [String])]
        public var changedMatchCount: Int
        /// Events whose resulting data differ (among those checked): line, before, after.
        public var changedData: [(line: Int, before: String, after: String)]
        public var dataChecked: Int
    }

    public var version = RuleKitVersion.current
    public var ruleFiles: [String] = []
    public var findings: [Diagnostic] = []
    public var sources: [String: String] = [:]
    public var tests: [(file: String, results: [RuleTestRunner.Result], error: String?)] = []
    public var eventsFile: String?
    public var eventCount = 0
    public var badEvents = 0
    public var matchedEvents = 0
    public var rules: [RuleEntry] = []
    public var consequencesByType: [String: Int] = [:]
    public var xdmFindings: [(line: Int, errors: [String])] = []
    public var xdmChecked = 0
    public var baseline: BaselineDiff?

    /// Events sampled for the closest miss of each rule, and XDM payloads validated.
    public static let missSample = 200
    public static let xdmSample = 1000
    /// Changed events listed (all are counted).
    public static let listed = 50
}

/// Builds a report: the inputs as the CLI options give them.
public struct RuleReportBuilder {
    public var rules: RuleFiles
    public var linter: Linter
    public var testFiles: [String] = []
    public var events: String?
    public var states: [String: ValueObject] = [:]
    public var xdmStates: [String: ValueObject] = [:]
    public var baseline: RuleFiles?

    public init(rules: RuleFiles, linter: Linter) {
        self.rules = rules
        self.linter = linter
    }

    public func build() throws(DiagnosticError) -> RuleReport {
        var report = RuleReport()
        report.ruleFiles = rules.sets.map(\.path)
        report.findings = linter.lint(rules)
        report.sources = rules.sources
        for f in testFiles {
            let (file, found) = RuleTestFile.load(path: f)
            guard let file else {
                report.tests.append((f, [], found.filter { $0.severity == .error }.map(\.description).joined(separator: "\n")))
                continue
            }
            var r = RuleFiles()
            r.load(file.rulesPaths())
            if r.hasErrors {
                report.tests.append((f, [], "the rules do not load"))
                continue
            }
            report.tests.append((f, RuleTestRunner.run(file, r.compiled().0), nil))
        }
        let (compiled, _) = rules.compiled()
        report.rules = entries(compiled)
        var byRule: [String: [Diagnostic]] = [:]
        for d in report.findings { if let l = RuleReportBuilder.ruleLabel(of: d) { byRule[l, default: []].append(d) } }
        for (i, e) in report.rules.enumerated() { report.rules[i].findings = byRule[e.label] ?? [] }
        if let events { try stream(events, compiled, into: &report) }
        return report
    }

    /// The rule a finding names ("rule X: ..."), if any.
    static func ruleLabel(of d: Diagnostic) -> String? {
        guard let r = d.message.range(of: "rule ") else { return nil }
        let id = d.message[r.upperBound...].prefix { $0 != ":" && $0 != " " }
        return id.isEmpty ? nil : String(id)
    }

    func entries(_ compiled: CompiledRuleSet) -> [RuleReport.RuleEntry] {
        // Each rule's file is where its location points (the planner drops some rules, so plan
        // positions do not follow the files).
        let elementsOf = Dictionary(rules.sets.map { set in
            (set.path, Dictionary(set.set.dataElements.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }))
        }, uniquingKeysWith: { a, _ in a })
        // Each file's lines and rule start lines, split once (not per rule).
        var texts: [String: (lines: [Substring], starts: Set<Int>)] = [:]
        for (path, set) in rules.sets {
            guard let text = rules.sources[path] else { continue }
            texts[path] = (text.split(separator: "\n", omittingEmptySubsequences: false), Set(set.rules.compactMap { $0.location?.line }))
        }
        return compiled.rules.map { rule in
            let file = rule.rule.location?.file ?? ""
            var keys: [String] = []
            collectKeys(rule.rule.condition, into: &keys, depth: 0)
            let elements = elementsOf[file] ?? [:]
            let typed: [(key: String, xdmType: String?)] = keys.map { k in
                var path = k
                if k.hasPrefix("%"), k.hasSuffix("%"), k.count > 2, let e = elements[String(k.dropFirst().dropLast())] { path = e.path }
                return (k, linter.catalog?.leaf(XDMPathCatalog.normalize(path))?.type)
            }
            return RuleReport.RuleEntry(label: rule.label, file: file, location: rule.rule.location,
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
    func resultingData(_ set: CompiledRuleSet, _ event: EngineEvent) -> String {
        let engine = RulesEngine(runtime: StaticRulesRuntime(states: states, xdmStates: xdmStates))
        engine.setRules(set)
        return engine.process(event).data.map { JSONWriter.string(.object($0)) } ?? "null"
    }

    func stream(_ path: String, _ compiled: CompiledRuleSet, into report: inout RuleReport) throws(DiagnosticError) {
        report.eventsFile = path
        let runtime = StaticRulesRuntime(states: states, xdmStates: xdmStates)
        let before = baseline.map { $0.compiled().0 }
        var diff = before.map { before in
            let now = Set(compiled.rules.map(\.label)), was = Set(before.rules.map(\.label))
            return RuleReport.BaselineDiff(added: now.subtracting(was).sorted(), removed: was.subtracting(now).sorted(),
                                           changedMatches: [], changedMatchCount: 0, changedData: [], dataChecked: 0)
        }
        var sample: [(line: Int, event: EngineEvent)] = []
        var firstMatchEvent: [Int: (Int, EngineEvent)] = [:]
        var block: [EngineEvent] = [], lines: [Int] = []
        var resolver: Resolver?
        let xdmValidator = linter.xdmValidator
        func flush() {
            guard !block.isEmpty else { return }
            if resolver == nil { resolver = Resolver(event: block[0], runtime: runtime, slotCount: compiled.slotCount) }
            var matched = [[Int]](repeating: [], count: block.count)
            Evaluator.forEachMatch(compiled, events: block, &resolver!) { e, rule in matched[e].append(rule) }
            for (e, indexes) in matched.enumerated() where !indexes.isEmpty {
                report.matchedEvents += 1
                for i in indexes {
                    report.rules[i].matches += 1
                    for t in report.rules[i].consequenceTypes { report.consequencesByType[t, default: 0] += 1 }
                    if firstMatchEvent[i] == nil { firstMatchEvent[i] = (lines[e], block[e]) }
                }
            }
            if let before, diff != nil {
                var old = [[Int]](repeating: [], count: block.count)
                var r = Resolver(event: block[0], runtime: runtime, slotCount: before.slotCount)
                Evaluator.forEachMatch(before, events: block, &r) { e, rule in old[e].append(rule) }
                for e in block.indices {
                    let a = old[e].map { before.rules[$0].label }, b = matched[e].map { compiled.rules[$0].label }
                    if a != b {
                        diff!.changedMatchCount += 1
                        if diff!.changedMatches.count < RuleReport.listed { diff!.changedMatches.append((lines[e], a, b)) }
                    }
                    // Resulting data: checked on the events either set matched, up to the sample size.
                    if (!a.isEmpty || !b.isEmpty) && diff!.dataChecked < RuleReport.xdmSample {
                        diff!.dataChecked += 1
                        let dx = resultingData(before, block[e]), dy = resultingData(compiled, block[e])
                        if dx != dy && diff!.changedData.count < RuleReport.listed { diff!.changedData.append((lines[e], dx, dy)) }
                    }
                }
            }
            block.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
        }
        var records = try JSONLinesReader(path: path).makeIterator()
        while let record = records.next() {
            switch record {
            case .success(.object(let o)):
                let e = EngineEvent(name: o["name"]?.stringValue ?? "event", type: o["type"]?.stringValue ?? "",
                                    source: o["source"]?.stringValue ?? "", data: o["data"]?.objectValue)
                report.eventCount += 1
                if sample.count < RuleReport.missSample { sample.append((records.lineNumber, e)) }
                if let xdmValidator, report.xdmChecked < RuleReport.xdmSample, let xdm = e.data?["xdm"] {
                    report.xdmChecked += 1
                    let errors = xdmValidator.validate(xdm, maxErrors: 5)
                    if !errors.isEmpty, report.xdmFindings.count < RuleReport.listed {
                        report.xdmFindings.append((records.lineNumber, errors.map { "xdm\($0.instancePath): \($0.message)" }))
                    }
                }
                block.append(e)
                lines.append(records.lineNumber)
                if block.count == 4096 { flush() }
            case .success:
                report.badEvents += 1
            case .failure:
                report.badEvents += 1
            }
        }
        flush()
        report.baseline = diff
        // Traces: each rule's first match, and its closest miss among the sampled events.
        for (i, rule) in compiled.rules.enumerated() {
            if let (line, e) = firstMatchEvent[i] {
                var r = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
                report.rules[i].firstMatch = (line, ExplainText.render(Evaluator.trace(rule.condition, &r)))
            }
            var best: (line: Int, failed: Int, trace: ConditionTrace)?
            for (line, e) in sample {
                var r = Resolver(event: e, runtime: runtime, slotCount: compiled.slotCount)
                let t = Evaluator.trace(rule.condition, &r)
                let failed = t.failedMatchers
                if !t.result, failed > 0, best == nil || failed < best!.failed { best = (line, failed, t) }
                if best?.failed == 1 { break }
            }
            if let best { report.rules[i].closestMiss = (best.line, best.failed, ExplainText.render(best.trace)) }
        }
    }
}
