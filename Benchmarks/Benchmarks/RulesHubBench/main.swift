// The rules extension's cost inside the hub: rules-1000.json against events-10k.jsonl repeated to 100k
// events, delivered to a wildcard listener, with and without the rules extension, next to the engine's
// own evaluation time for the same events (target: extension cost ≤ engine time + 20%).
// Run: swift run -c release rules-hub-bench
import BenchData
import Dispatch
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitRules
import RuleKitSources

let repeats = 10
let rulesPath = BenchData.shared.appendingPathComponent("bench/rules-1000.json").path
let lines = BenchData.load("bench/events-10k.jsonl").split(separator: 0x0A).map { try! JSONReader.read(Array($0)).value }
let state = try! JSONReader.read(BenchData.load("bench/state.json")).value.objectValue!
let events: [Event] = (0..<repeats).flatMap { _ in
    lines.map { v in
        Event(
            name: v["name"]?.stringValue ?? "e", type: v["type"]?.stringValue ?? "", source: v["source"]?.stringValue ?? "",
            data: v["data"]?.objectValue)
    }
}

final class Counter: @unchecked Sendable {
    var n = 0
    let done = DispatchSemaphore(value: 0)
    let target: Int
    init(target: Int) { self.target = target }
}

func throughHub(rules: Bool) -> Double {
    let hub = EventHub()
    let counter = Counter(target: events.count)
    hub.registerEventListener(type: EventType.wildcard, source: EventSource.wildcard) { e in
        guard e.type.hasPrefix("com.adobe.eventType.") && e.type != EventType.hub && e.type != EventType.rulesEngine else { return }
        counter.n += 1
        if counter.n == counter.target { counter.done.signal() }
    }
    var factories: [EventHub.ExtensionFactory] = state.map { name, data in
        StatePublisherExtension.factory(name: name, state: data.objectValue ?? [:])
    }
    if rules { factories.append(RulesExtension.factory(.init(sources: [rulesPath]))) }
    let booted = DispatchSemaphore(value: 0)
    hub.registerExtensions(factories: factories) { _ in booted.signal() }
    booted.wait()
    if rules {
        let control = hub.api(named: RulesExtension.extensionName, as: RulesControl.self)!
        while control.ruleCount == 0 { Thread.sleep(forTimeInterval: 0.001) }
    }
    let start = DispatchTime.now().uptimeNanoseconds
    for e in events { hub.dispatch(e) }
    counter.done.wait()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func engineOnly() -> Double {
    let compiled = RuleSnapshot.load([rulesPath]).compiled
    var states: [String: ValueObject] = [:]
    for (k, v) in state { states[k] = v.objectValue }
    let engine = RulesEngine(runtime: StaticRulesRuntime(states: states))
    engine.setRules(compiled)
    let engineEvents = events.map { Event(id: $0.id, name: $0.name, type: $0.type, source: $0.source, data: $0.data) }
    let start = DispatchTime.now().uptimeNanoseconds
    for e in engineEvents { _ = engine.process(e) }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

// The machine is noisy: rounds interleave the three measurements and medians are compared.
let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 5
let n = Double(events.count)
var engineTimes: [Double] = []
var withoutTimes: [Double] = []
var withTimes: [Double] = []
for _ in 0..<rounds {
    engineTimes.append(engineOnly())
    withoutTimes.append(throughHub(rules: false))
    withTimes.append(throughHub(rules: true))
}
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
let engine = median(engineTimes)
let without = median(withoutTimes)
let with = median(withTimes)
print("\(events.count) events × \(rounds) rounds, medians:")
print(String(format: "engine alone (process):      %.3f s = %8.0f events/s", engine, n / engine))
print(String(format: "hub without rules extension: %.3f s = %8.0f events/s", without, n / without))
print(String(format: "hub with rules extension:    %.3f s = %8.0f events/s", with, n / with))
print(String(format: "extension cost %.3f s = %.2f × the engine's own time (target ≤ 1.20)", with - without, (with - without) / engine))
print(
    "per round (engine, without, with): "
        + zip(engineTimes, zip(withoutTimes, withTimes))
        .map { String(format: "(%.2f %.2f %.2f)", $0.0, $0.1.0, $0.1.1) }.joined(separator: " "))
