// Rules engine benchmarks on ../shared/bench: rules-{10,100,1000}.json against events-10k.jsonl with
// state.json, with and without the rule index, event by event and through the batch API. One iteration =
// the whole 10k-event stream. (Parsing and planning are the `Plan` target, in a process of their own.)
import BenchData
import Benchmark
import Foundation
import RuleKitCore
import RuleKitRules

func load(_ relative: String) -> [UInt8] { BenchData.load(relative) }

func compile(_ relative: String) -> CompiledRuleSet {
    let doc = try! JSONReader.read(load(relative), file: relative, keepSourceMap: true)
    return Planner().plan(try! LaunchRulesLoader.load(doc).get())
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock], maxDuration: .seconds(5),
        maxIterations: 30)
    let events: [Event] = load("bench/events-10k.jsonl").split(separator: 0x0A).map { line in
        let v = try! JSONReader.read(Array(line)).value
        return Event(
            name: v["name"]?.stringValue ?? "", type: v["type"]?.stringValue ?? "",
            source: v["source"]?.stringValue ?? "", data: v["data"]?.objectValue)
    }
    let stateValue = try! JSONReader.read(load("bench/state.json")).value
    var states: [String: ValueObject] = [:]
    for (k, v) in stateValue.objectValue! { states[k] = v.objectValue }
    let runtime = StaticRulesRuntime(states: states)

    for n in [10, 100, 1000] {
        let set = compile("bench/rules-\(n).json")
        // Check the workload's expected match count once (500 for the 10k sample).
        var total = 0
        var r0 = Resolver(event: events[0], runtime: runtime, slotCount: set.slotCount)
        for e in events {
            r0.reset(event: e)
            total += Evaluator.matchCount(set, &r0)
        }
        precondition(total == 500, "rules-\(n): \(total) matches, expected 500")
        for (label, s) in [("indexed", set), ("no-index", set.withoutIndex())] {
            Benchmark("engine.match rules-\(n) \(label) x10k events") { b in
                var matched = 0
                var r = Resolver(event: events[0], runtime: runtime, slotCount: s.slotCount)
                for _ in b.scaledIterations {
                    for e in events {
                        r.reset(event: e)
                        matched += Evaluator.matchCount(s, &r)
                    }
                }
                blackHole(matched)
            }
            // The same stream through the batch API (index walks of 16 events interleaved).
            Benchmark("engine.match rules-\(n) \(label) x10k events, batched") { b in
                var matched = 0
                var r = Resolver(event: events[0], runtime: runtime, slotCount: s.slotCount)
                for _ in b.scaledIterations { matched += Evaluator.matchCount(s, events: events, &r) }
                precondition(matched % 500 == 0, "batched rules-\(n): \(matched)")
                blackHole(matched)
            }
        }
    }
}
