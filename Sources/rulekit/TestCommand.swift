import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitYAML

/// `rulekit test`: runs rule test files (`*.test.yaml`) and reports like a test runner.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run rule test files (*.test.yaml beside the rules) and report each case.",
        discussion: """
            A test file names its rules (default: the rules file of the same name, else every rules file in its \
            folder), optional shared and XDM states and event history, and cases: events to process, and what to \
            expect — the rules that fire on the last event, its resulting data, and the events the rules \
            dispatched. `history` lists earlier events (`data`, `ageSeconds`) recorded before a case (or every \
            case, at the top level); a case event with a `mask` is recorded after the rules see it, as the hub does.

                rules: commerce.yaml
                states:
                  com.adobe.module.configuration: {global.privacy: optedin}
                cases:
                  - name: big orders get gold
                    events:
                      - type: com.adobe.eventType.edge
                        source: com.adobe.eventSource.requestContent
                        data:
                          xdm: {eventType: commerce.purchases,
                                commerce: {order: {priceTotal: 900.0}}}
                    history:
                      - {data: {lifecycle.launch: Shop}, ageSeconds: 3600}
                    expect:
                      fired: [big-order]
                      dataContains: {data: {customerTier: gold}}

            One line per case, then "N passed, N failed"; exit 1 on any failure.

            Example:
              rulekit test Rules/
            """
    )

    @Argument(help: "Test files or folders (default Rules/).")
    var paths: [String] = []

    func run() throws {
        var files: [String] = []
        for p in paths.isEmpty ? ["Rules"] : paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else {
                Stderr.write("error: no such file or folder '\(p)'\n")
                throw ExitCode(2)
            }
            if isDir.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: p)) ?? []
                files += names.filter { $0.hasSuffix(".test.yaml") || $0.hasSuffix(".test.yml") }.sorted()
                    .map { (p as NSString).appendingPathComponent($0) }
            } else {
                files.append(p)
            }
        }
        var passed = 0, failed = 0
        var out = StdoutBuffer()
        for f in files {
            do {
                let results = try RuleTestFile(path: f).run()
                for (name, problems) in results {
                    if problems.isEmpty {
                        passed += 1
                        out.write("PASS \(f): \(name)\n")
                    } else {
                        failed += 1
                        out.write("FAIL \(f): \(name)\n")
                        for p in problems { out.write("    \(p)\n") }
                    }
                }
            } catch let e as RuleTestFile.Failure {
                failed += 1
                out.write("FAIL \(f): \(e.message)\n")
            }
        }
        out.write("\(passed) passed, \(failed) failed\n")
        out.flush()
        if failed > 0 { throw ExitCode(1) }
    }
}

/// One `*.test.yaml` file.
struct RuleTestFile {
    struct Failure: Error {
        var message: String
    }

    let path: String
    let doc: Value

    init(path: String) throws {
        self.path = path
        do {
            doc = try YAMLReader.read(try ByteInput.readAll(path), file: path).value
        } catch {
            throw Failure(message: error.description)
        }
    }

    func rulesPaths() -> [String] {
        let dir = (path as NSString).deletingLastPathComponent
        if case .string(let r)? = doc["rules"] { return [(dir as NSString).appendingPathComponent(r)] }
        if case .array(let a)? = doc["rules"] { return a.compactMap(\.stringValue).map { (dir as NSString).appendingPathComponent($0) } }
        let stem = (path as NSString).lastPathComponent.replacingOccurrences(of: ".test.yaml", with: "")
            .replacingOccurrences(of: ".test.yml", with: "")
        for ext in [".yaml", ".yml", ".json"] {
            let candidate = (dir as NSString).appendingPathComponent(stem + ext)
            if FileManager.default.fileExists(atPath: candidate) { return [candidate] }
        }
        return [dir]
    }

    static func states(_ v: Value?) -> [String: ValueObject] {
        var out: [String: ValueObject] = [:]
        for (k, x) in v?.objectValue ?? [:] { if let o = x.objectValue { out[k] = o } }
        return out
    }

    func run() throws -> [(String, [String])] {
        var files = RuleFiles()
        files.load(rulesPaths())
        if files.hasErrors { throw Failure(message: "the rules do not load:\n" + files.render(files.diagnostics.filter { $0.severity == .error })) }
        let (compiled, _) = files.compiled()
        var results: [(String, [String])] = []
        for (i, c) in (doc["cases"]?.arrayValue ?? []).enumerated() {
            let name = c["name"]?.stringValue ?? "case \(i + 1)"
            results.append((name, runCase(c, compiled)))
        }
        if results.isEmpty { throw Failure(message: "no cases") }
        return results
    }

    func runCase(_ c: Value, _ compiled: CompiledRuleSet) -> [String] {
        let runtime = StaticRulesRuntime(states: Self.states(c["states"] ?? doc["states"]),
                                         xdmStates: Self.states(c["xdmStates"] ?? doc["xdmStates"]))
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(compiled)
        // Prior history: events recorded before the case, `ageSeconds` ago (default 0).
        let now = Date()
        for h in (c["history"] ?? doc["history"])?.arrayValue ?? [] {
            let age = h["ageSeconds"]?.numberValue ?? 0
            _ = runtime.recordHistory(EngineEvent(name: h["name"]?.stringValue ?? "history", type: h["type"]?.stringValue ?? "",
                                                  source: h["source"]?.stringValue ?? "", data: h["data"]?.objectValue,
                                                  timestamp: now.addingTimeInterval(-age)))
        }
        var last: EngineEvent?
        var fired: [String] = []
        for e in c["events"]?.arrayValue ?? [] {
            var event = EngineEvent(name: e["name"]?.stringValue ?? "event", type: e["type"]?.stringValue ?? "",
                                    source: e["source"]?.stringValue ?? "", data: e["data"]?.objectValue)
            event.mask = e["mask"]?.arrayValue?.compactMap(\.stringValue)
            var r = Resolver(event: event, runtime: runtime, slotCount: compiled.slotCount)
            fired = Evaluator.matchingRules(compiled, &r).map(\.label)
            let processed = engine.process(event)
            // As the hub does: an event with a mask goes into history after the rules have seen it.
            if processed.mask != nil { _ = runtime.recordHistory(processed) }
            last = processed
        }
        var problems: [String] = []
        let expect = c["expect"]?.objectValue ?? [:]
        if let want = expect["fired"]?.arrayValue?.compactMap(\.stringValue), want != fired {
            problems.append("fired \(fired), expected \(want)")
        }
        for id in expect["notFired"]?.arrayValue?.compactMap(\.stringValue) ?? [] where fired.contains(id) {
            problems.append("rule \(id) fired")
        }
        let data = last?.data.map(Value.object) ?? .null
        if let want = expect["data"], !want.numericallyEquals(data) {
            problems.append("data \(data), expected \(want)")
        }
        if let want = expect["dataContains"], !Self.contains(data, want) {
            problems.append("data \(data) does not contain \(want)")
        }
        if let want = expect["dispatched"]?.arrayValue {
            let got = runtime.dispatched()
            if got.count != want.count { problems.append("dispatched \(got.count) events (\(got.map(\.type))), expected \(want.count)") }
            for (w, g) in zip(want, got) {
                if let t = w["type"]?.stringValue, t != g.type { problems.append("dispatched type \(g.type), expected \(t)") }
                if let s = w["source"]?.stringValue, s != g.source { problems.append("dispatched source \(g.source), expected \(s)") }
                if let d = w["data"], !Self.contains(g.data.map(Value.object) ?? .null, d) {
                    problems.append("dispatched data \(g.data.map { Value.object($0) } ?? .null) does not contain \(d)")
                }
            }
        }
        return problems
    }

    /// Whether `v` has everything `want` has (objects by key, recursively; other values equal).
    static func contains(_ v: Value, _ want: Value) -> Bool {
        switch (v, want) {
        case (.object(let a), .object(let b)): return b.allSatisfy { k, x in a[k].map { contains($0, x) } ?? false }
        default: return v.numericallyEquals(want)
        }
    }
}
