// Event hub throughput and latency: one producer dispatching N events (default 1,000,000) to 4
// extensions, each with a wildcard listener, next to a baseline measured in the same run: the same
// events handed through one bare serial DispatchQueue per extension.
// Run: swift run -c release hub-bench [N]
import Dispatch
import Foundation
import RuleKitCore
import RuleKitHub

let n = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let extensions = 4

/// Per-listener latency samples; each sink is written by one queue only, read after all are done.
final class Sink: @unchecked Sendable {
    var latencies: [UInt64]
    var count = 0
    let done = DispatchSemaphore(value: 0)
    let expected: Int

    init(expected: Int) {
        self.expected = expected
        latencies = [UInt64](repeating: 0, count: expected)
    }

    func record(since start: UInt64) {
        latencies[count] = DispatchTime.now().uptimeNanoseconds &- start
        count += 1
        if count == expected { done.signal() }
    }
}

func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
}

func report(_ label: String, seconds: Double, sinks: [Sink]) -> Double {
    let all = sinks.flatMap { $0.latencies.prefix($0.count) }.sorted()
    let rate = Double(n) / seconds
    print(
        String(
            format: "%-10@ %12.0f events/s   p50 %9.1f µs   p99 %9.1f µs   (%d deliveries)", label as NSString, rate,
            percentile(all, 0.5), percentile(all, 0.99), all.count))
    return rate
}

// Events carry their dispatch time (monotonic ns) so listeners can measure latency.
func makeEvent(_ i: Int) -> Event {
    Event(name: "bench", type: "bench.type", source: "bench.source", data: ["t": .int(Int64(DispatchTime.now().uptimeNanoseconds))])
}

// MARK: baseline

func baseline() -> Double {
    let sinks = (0..<extensions).map { _ in Sink(expected: n) }
    let queues = (0..<extensions).map { DispatchQueue(label: "baseline.\($0)") }
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<n {
        let e = makeEvent(i)
        let t = UInt64(e.data!["t"]!.intValue!)
        for (q, s) in zip(queues, sinks) {
            q.async {
                _ = e.name
                s.record(since: t)
            }
        }
    }
    for s in sinks { s.done.wait() }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return report("baseline", seconds: seconds, sinks: sinks)
}

// MARK: hub

final class BenchExtension: Extension, @unchecked Sendable {
    nonisolated(unsafe) static var sinks: [String: Sink] = [:]
    nonisolated(unsafe) static var nextIndex = 0
    let name: String
    let friendlyName = "Bench"
    let version = "1.0"
    let runtime: any ExtensionRuntime
    let sink: Sink

    init?(runtime: any ExtensionRuntime) {
        self.runtime = runtime
        let index = BenchExtension.lock.withLock { () -> Int in
            defer { BenchExtension.nextIndex += 1 }
            return BenchExtension.nextIndex
        }
        name = "bench.\(index)"
        sink = Sink(expected: n)
        BenchExtension.lock.withLock { BenchExtension.sinks[name] = sink }
    }

    static let lock = NSLock()

    func onRegistered() {
        let sink = self.sink
        registerListener(type: EventType.wildcard, source: EventSource.wildcard) { e in
            guard e.type == "bench.type", case .int(let t)? = e.data?["t"] else { return }
            sink.record(since: UInt64(t))
        }
    }

    func onUnregistered() {}
}

func hub() -> Double {
    let hub = EventHub()
    let booted = DispatchSemaphore(value: 0)
    hub.registerExtensions(Array(repeating: BenchExtension.self, count: extensions)) { _ in booted.signal() }
    booted.wait()
    let sinks = BenchExtension.lock.withLock { Array(BenchExtension.sinks.values) }
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<n { hub.dispatch(makeEvent(i)) }
    for s in sinks { s.done.wait() }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return report("hub", seconds: seconds, sinks: sinks)
}

print("\(n) events to \(extensions) extensions (wildcard listener each), \(ProcessInfo.processInfo.activeProcessorCount) cores")
let b = baseline()
let h = hub()
print(String(format: "hub / baseline throughput: %.2f (target ≥ 0.33)", h / b))
