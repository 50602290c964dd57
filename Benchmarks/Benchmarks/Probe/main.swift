// Phase timings for profiling (`perf record`): `swift run -c release probe <phase> [rounds]`.
// Phases: fast (LaunchRulesLoader.load(json:)), fast-all (and plan), fast-plan (as fast-all, freeing not timed), fast-keep (results kept), fast-cli (document
// and results kept, as the tool loads rules), json-map, json, launch-load, plan, json-all, json-all-thread, yaml, yaml-load, yaml-plan, yaml-all,
// yaml-walk, pull, match10, match1000, xdm; warm10 (10 rules on 100 cache-resident events) and batch10 (the
// batch API on the whole stream) for profiling the matcher. Each prints the best and the median round.
// PROBE_EVENTS=1 keeps the 10k parsed events in memory first, as the benchmark process does.
import BenchData
import Foundation
import RuleKitCore
import RuleKitRules
import RuleKitXDM
import RuleKitYAML

func rssKiB() -> Int {
    let t = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? "0 0"
    return (Int(t.split(separator: " ")[1]) ?? 0) * 4
}
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }
func time(_ label: String, rounds: Int, _ body: () throws -> Void) rethrows {
    var all: [Double] = []
    for _ in 0..<rounds {
        let t = now()
        try body()
        all.append(now() - t)
    }
    all.sort()
    print("\(label): best \(String(format: "%.2f", all[0])) ms, median \(String(format: "%.2f", all[all.count / 2])) over \(rounds)")
}
let args = CommandLine.arguments
let phase = args.count > 1 ? args[1] : "all"
let rounds = args.count > 2 ? Int(args[2])! : 20
func on(_ p: String) -> Bool { phase == "all" || phase == p }

let r1000 = BenchData.load("bench/rules-1000.json")
if on("json-map") { try time("json+map rules-1000", rounds: rounds) { _ = try JSONReader.read(r1000, keepSourceMap: true) } }
if on("json") { try time("json rules-1000", rounds: rounds) { _ = try JSONReader.read(r1000) } }
if on("fast") {
    try time("load(json:) rules-1000", rounds: rounds) { _ = try LaunchRulesLoader.load(json: r1000, file: "rules-1000.json").get() }
}
if on("fast-all") {
    try time("load(json:)+plan 1000", rounds: rounds) {
        _ = Planner().plan(try LaunchRulesLoader.load(json: r1000, file: "rules-1000.json").get())
    }
}
if phase == "fast-plan" {
    // parse+check+plan alone: each round's rule set is freed after its time is taken (fast-all counts it).
    var all: [Double] = []
    for _ in 0..<rounds {
        let t = now()
        let planned = Planner().plan(try LaunchRulesLoader.load(json: r1000, file: "rules-1000.json").get())
        all.append(now() - t)
        withExtendedLifetime(planned) {}
    }
    all.sort()
    let (best, median) = (String(format: "%.2f", all[0]), String(format: "%.2f", all[all.count / 2]))
    print("load(json:)+plan 1000, freeing not timed: best \(best) ms, median \(median) over \(rounds)")
}
if phase == "fast-keep" {
    // As fast-all, with every result kept until the end: the difference is what freeing them costs.
    var kept: [CompiledRuleSet] = []
    kept.reserveCapacity(rounds)
    try time("load(json:)+plan 1000, results kept", rounds: rounds) {
        kept.append(Planner().plan(try LaunchRulesLoader.load(json: r1000, file: "rules-1000.json").get()))
    }
}
if phase == "fast-cli" {
    // As the command-line tool loads rules (`RuleFiles.keepsDocuments`): the document read and the planned
    // set are left to the process's end, so the figure is reading, checking and planning, without freeing.
    var kept: [(Document, CompiledRuleSet)] = []
    kept.reserveCapacity(rounds)
    try time("read+load+plan 1000, document and set kept", rounds: rounds) {
        let doc = try JSONReader.read(r1000, file: "rules-1000.json", keepSourceMap: true)
        kept.append((doc, Planner().plan(try RuleSetLoader.load(doc).get())))
    }
}
if phase == "events-tape" {
    // Only the event reader as `rulekit run` and `match` use it: data read into a tape.
    let lines = BenchData.load("bench/events-10k.jsonl").split(separator: 0x0A)
    try time("parse events-10k, data as a tape", rounds: rounds) {
        for l in lines { _ = try JSONReader.read(l, file: "e", tapeOf: "data") }
    }
}
if phase == "events-parse" {
    // The JSON-lines reader alone over the 10k events (in memory), as `rulekit run` parses its input.
    let lines = BenchData.load("bench/events-10k.jsonl").split(separator: 0x0A)
    try time("parse events-10k", rounds: rounds) { for l in lines { _ = try JSONReader.read(l, file: "e") } }
    try time("parse events-10k, data text kept", rounds: rounds) {
        for l in lines { _ = try JSONReader.read(l, file: "e", keepingTextOf: "data") }
    }
    let path = BenchData.shared.appendingPathComponent("bench/events-10k.jsonl").path
    try time("parse events-10k through JSONLinesPipeline on one thread (blocks, data text kept)", rounds: rounds) {
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path), workers: 0, makeTransform: { { $0.records(keepingTextOf: "data").count } },
            consume: { _ in nil })
    }
    try time("parse events-10k through JSONLinesPipeline on one thread (blocks, data as tapes)", rounds: rounds) {
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path), workers: 0, makeTransform: { { $0.records(tapeOf: "data").count } },
            consume: { _ in nil })
    }
    var kept: [Value] = []
    kept.reserveCapacity(lines.count)
    try time("parse events-10k, kept then freed", rounds: rounds) {
        kept.removeAll(keepingCapacity: true)
        for l in lines { kept.append(try JSONReader.read(l, file: "e").value) }
    }
}
let doc = try JSONReader.read(r1000, file: "rules-1000.json", keepSourceMap: true)
if on("launch-load") { try time("launch load", rounds: rounds) { _ = try LaunchRulesLoader.load(doc).get() } }
let set = try LaunchRulesLoader.load(doc).get()
if on("plan") { time("plan 1000", rounds: rounds) { _ = Planner().plan(set) } }
if phase == "plan-noindex" {
    time("plan 1000 without index", rounds: rounds) { _ = Planner(options: .init(index: false)).plan(set) }
    time("plan 1000", rounds: rounds) { _ = Planner().plan(set) }
}
// With PROBE_EVENTS=1, the 10k events are parsed and kept first, as the benchmark process does.
let heldEvents: [Value] =
    ProcessInfo.processInfo.environment["PROBE_EVENTS"] == nil
    ? [] : BenchData.load("bench/events-10k.jsonl").split(separator: 0x0A).map { try! JSONReader.read(Array($0)).value }
if !heldEvents.isEmpty { print("holding \(heldEvents.count) events") }
if on("json-all") {
    try time("json+load+plan 1000", rounds: rounds) {
        let d = try JSONReader.read(r1000, file: "rules-1000.json", keepSourceMap: true)
        _ = Planner().plan(try LaunchRulesLoader.load(d).get())
    }
}
if on("json-all-thread") {
    // The same on a second thread (its own malloc arena), as the benchmark harness runs it.
    let t = Thread {
        try! time("json+load+plan 1000 (thread)", rounds: rounds) {
            let d = try JSONReader.read(r1000, file: "rules-1000.json", keepSourceMap: true)
            _ = Planner().plan(try LaunchRulesLoader.load(d).get())
        }
    }
    t.stackSize = 8 << 20
    t.start()
    while !t.isFinished { usleep(10_000) }
}

if on("yaml") || on("pull") || on("yaml-load") || on("yaml-plan") || on("yaml-all") || on("yaml-walk") {
    let y = BenchData.load("bench/rules-10k.yaml")
    if on("pull") { time("bare pull 10k", rounds: rounds) { _ = YAMLReader.bareEventPull(y) } }
    if on("yaml") { try time("yaml read 10k", rounds: rounds) { _ = try YAMLReader.read(y, file: "r.yaml") } }
    let yd = try YAMLReader.read(y, file: "r.yaml")
    if on("yaml-walk") {
        func walk(_ c: ValueCursor) -> Int {
            var n = 1
            c.forEachMember { _, m in n += walk(m) }
            for e in c.elements { n += walk(e) }
            return n
        }
        func walkValue(_ v: Value) -> Int {
            switch v {
            case .object(let o):
                var n = 1
                for (_, m) in o { n += walkValue(m) }
                return n
            case .array(let a):
                var n = 1
                for e in a { n += walkValue(e) }
                return n
            default: return 1
            }
        }
        var nodes = 0
        time("yaml walk cursors 10k", rounds: rounds) { nodes = walk(yd.root) }
        time("yaml walk values 10k", rounds: rounds) { nodes = walkValue(yd.value) }
        print("nodes: \(nodes)")
    }
    if on("yaml-load") { try time("yaml load 10k", rounds: rounds) { _ = try RuleSetLoader.load(yd).get() } }
    let ys = try RuleSetLoader.load(yd).get()
    if on("yaml-plan") { time("yaml plan 10k", rounds: rounds) { _ = Planner().plan(ys) } }
    if on("yaml-all") {
        try time("yaml all 10k", rounds: rounds) {
            let d = try YAMLReader.read(y, file: "r.yaml")
            _ = Planner().plan(try RuleSetLoader.load(d).get())
        }
    }
}

if on("match10") || on("match1000") || phase == "warm10" || phase == "batch10" {
    let before = rssKiB()
    let events: [Event] = BenchData.load("bench/events-10k.jsonl").split(separator: 0x0A).map { line in
        let v = try! JSONReader.read(Array(line)).value
        return Event(
            name: v["name"]?.stringValue ?? "", type: v["type"]?.stringValue ?? "",
            source: v["source"]?.stringValue ?? "", data: v["data"]?.objectValue)
    }
    print("events in memory: \(rssKiB() - before) KiB (RSS growth)")
    let stateValue = try JSONReader.read(BenchData.load("bench/state.json")).value
    var states: [String: ValueObject] = [:]
    for (k, v) in stateValue.objectValue! { states[k] = v.objectValue }
    let runtime = StaticRulesRuntime(states: states)
    for n in [10, 1000] where on("match\(n)") || ((phase == "warm10" || phase == "batch10") && n == 10) {
        let d = try JSONReader.read(BenchData.load("bench/rules-\(n).json"), keepSourceMap: true)
        let s = Planner().plan(try LaunchRulesLoader.load(d).get())
        var matched = 0
        var r = Resolver(event: events[0], runtime: runtime, slotCount: s.slotCount)
        if phase == "warm10" {
            // Only the cache-resident timing, for profiling the engine's own work.
            let few = Array(events.prefix(100))
            time("match rules-10 100 events x100 (cache-warm)", rounds: rounds) {
                for _ in 0..<100 {
                    for e in few {
                        r.reset(event: e)
                        matched += Evaluator.matchCount(s, &r)
                    }
                }
            }
            break
        }
        time("match rules-\(n) x10k (batch)", rounds: rounds) {
            matched = Evaluator.matchCount(s, events: events, &r)
        }
        precondition(matched == 500, "batch: \(matched)")
        if phase == "batch10" { break }
        time("match rules-\(n) x10k", rounds: rounds) {
            matched = 0
            for e in events {
                r.reset(event: e)
                matched += Evaluator.matchCount(s, &r)
            }
        }
        precondition(matched == 500, "\(matched)")
        // The same events in smaller working sets: how much of the full stream's time is cache misses
        // (10k parsed events are ~30 MB, far over this machine's caches).
        for size in [3000, 5000] {
            let part = Array(events.prefix(size))
            time("match rules-\(n) \(size) events x\(10000 / size)", rounds: rounds) {
                for _ in 0..<(10000 / size) {
                    for e in part {
                        r.reset(event: e)
                        matched += Evaluator.matchCount(s, &r)
                    }
                }
            }
        }
        // The same events rebuilt after parsing, each event's nodes allocated together and at exact
        // size: how much of the stream's time is memory layout rather than the engine.
        func compact(_ v: Value) -> Value {
            switch v {
            case .object(let o):
                return .object(ValueObject(members: o.members.map { ValueObject.Member(key: $0.key, value: compact($0.value)) }))
            case .array(let a): return .array(a.map(compact))
            default: return v
            }
        }
        let compacted = events.map { e in
            Event(name: e.name, type: e.type, source: e.source, data: compact(.object(e.data ?? [:])).objectValue)
        }
        time("match rules-\(n) x10k compacted copies", rounds: rounds) {
            for e in compacted {
                r.reset(event: e)
                matched += Evaluator.matchCount(s, &r)
            }
        }
        let few = Array(events.prefix(100))
        time("match rules-\(n) 100 events x100 (cache-warm)", rounds: rounds) {
            for _ in 0..<100 {
                for e in few {
                    r.reset(event: e)
                    matched += Evaluator.matchCount(s, &r)
                }
            }
        }
    }
}

if phase == "tape-match" {
    // The engine alone on events whose data is a tape, as `rulekit match` and `run` read them.
    let events: [Event] = BenchData.load("bench/events-10k.jsonl").split(separator: 0x0A).map { line in
        let r = try! JSONReader.read(ArraySlice(line), file: "e", tapeOf: "data")
        var e = Event(
            name: r.value["name"]?.stringValue ?? "", type: r.value["type"]?.stringValue ?? "",
            source: r.value["source"]?.stringValue ?? "")
        e.setDocument(r.tape!)
        return e
    }
    let stateValue = try JSONReader.read(BenchData.load("bench/state.json")).value
    var states: [String: ValueObject] = [:]
    for (k, v) in stateValue.objectValue! { states[k] = v.objectValue }
    let runtime = StaticRulesRuntime(states: states)
    for n in [10, 1000] {
        let d = try JSONReader.read(BenchData.load("bench/rules-\(n).json"), keepSourceMap: true)
        let s = Planner().plan(try LaunchRulesLoader.load(d).get())
        var r = Resolver(event: events[0], runtime: runtime, slotCount: s.slotCount)
        var matched = 0
        time("match rules-\(n) x10k tape events (batch)", rounds: rounds) { matched = Evaluator.matchCount(s, events: events, &r) }
        precondition(matched == 500, "\(matched)")
        time("match rules-\(n) x10k tape events (one by one)", rounds: rounds) {
            matched = 0
            for e in events {
                r.reset(event: e)
                matched += Evaluator.matchCount(s, &r)
            }
        }
    }
}

if on("xdm") {
    let schema = try JSONReader.read(BenchData.load("bench/xdm-experienceevent.bundled.json")).value
    let validator = try JSONSchemaValidator(schema: schema)
    let payloads = BenchData.load("bench/xdm-events-10k.jsonl").split(separator: 0x0A).map { try! JSONReader.read(Array($0)).value["xdm"]! }
    // Each payload alone on a line, as `rulekit xdm validate` reads them.
    let lines = payloads.map { ArraySlice(Array(JSONWriter.string($0).utf8)) }
    var n = 0
    time("xdm isValid x10k", rounds: rounds) {
        n = 0
        for p in payloads where validator.isValid(p) { n += 1 }
    }
    precondition(n == 8993, "\(n)")
    var errs = 0
    time("xdm validate x10k", rounds: rounds) {
        for p in payloads { _ = validator.validate(p) }
    }
    time("xdm isValid, full errors for invalid x10k", rounds: rounds) {
        errs = 0
        for p in payloads where !validator.isValid(p) { errs += validator.validate(p).count }
    }
    print("errors reported: \(errs)")
    // The same payloads as tapes (the `xdm` member of each line), validated in place.
    let tapes = BenchData.load("bench/xdm-events-10k.jsonl").split(separator: 0x0A).map {
        try! JSONReader.read(ArraySlice($0), file: "x", tapeOf: "xdm").tape!
    }
    time("xdm isValid on tapes x10k", rounds: rounds) {
        n = 0
        for t in tapes where validator.isValid(t) { n += 1 }
    }
    precondition(n == 8993, "\(n)")
    time("xdm validate on tapes x10k", rounds: rounds) {
        for t in tapes { _ = validator.validate(t) }
    }
    time("xdm read tape + validate x10k", rounds: rounds) {
        for l in lines { _ = validator.validate(JSONReader.tape(l)!) }
    }
    time("xdm read value + validate x10k", rounds: rounds) {
        for l in lines { _ = validator.validate(try! JSONReader.read(l, file: "x").value) }
    }
}

if on("yaml-plan-noindex") {
    let y = BenchData.load("bench/rules-10k.yaml")
    let ys = try RuleSetLoader.load(try YAMLReader.read(y, file: "r.yaml")).get()
    time("yaml plan 10k without index", rounds: rounds) { _ = Planner(options: .init(index: false)).plan(ys) }
    time("yaml plan 10k", rounds: rounds) { _ = Planner().plan(ys) }
}
