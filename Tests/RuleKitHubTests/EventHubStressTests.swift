import Foundation
import RuleKitCore
import Testing

@testable import RuleKitHub

/// Several producers dispatching at once to several extensions, with shared-state reads at events:
/// every extension gets every event exactly once, in one order that agrees with each producer's order.
@Suite struct EventHubStressTests {
    @Test func concurrentProducersKeepPerExtensionOrderAndExactlyOnceDelivery() async {
        let hub = bootedHub([ExtA.self, ExtB.self, ExtC.self, ExtD.self])
        let producers = 4
        let perProducer = 500
        let a = recorder(hub, "test.a")
        // test.a publishes a state at every event it sees; others read it at their events.
        await withTaskGroup(of: Void.self) { group in
            for p in 0..<producers {
                group.addTask {
                    for i in 0..<perProducer {
                        hub.dispatch(
                            Event(
                                name: "p\(p)-\(i)", type: "stress", source: "p\(p)",
                                data: ["p": .int(Int64(p)), "i": .int(Int64(i))]))
                        if i % 50 == 0 { a.runtime.createSharedState(data: ["at": .int(Int64(i))], event: nil) }
                        _ = hub.getSharedState(extensionName: "test.a", event: nil, barrier: true)
                    }
                }
            }
        }
        let total = producers * perProducer
        var orders: [[String]] = []
        for name in ["test.a", "test.b", "test.c", "test.d"] {
            let r = recorder(hub, name)
            #expect(eventually(20) { r.received.filter { $0.type == "stress" }.count == total }, "\(name)")
            let got = r.received.filter { $0.type == "stress" }
            #expect(Set(got.map(\.id)).count == total, "\(name) got duplicates")
            for p in 0..<producers {
                let mine = got.filter { $0.source == "p\(p)" }.map { $0.data!["i"]!.intValue! }
                #expect(mine == (0..<Int64(perProducer)).map { $0 }, "\(name) reordered producer \(p)")
            }
            let numbers = got.compactMap(\.number)
            #expect(numbers == numbers.sorted(), "\(name) out of hub order")
            orders.append(got.map(\.name))
        }
        #expect(orders.allSatisfy { $0 == orders[0] })
    }

    @Test func responseListenersUnderLoadFireExactlyOnce() async {
        let hub = bootedHub([ExtA.self])
        final class Counts: Sendable { let m = Locked([UUID: Int]()) }
        let counts = Counts()
        let triggers = (0..<300).map { event($0) }
        await withTaskGroup(of: Void.self) { group in
            for t in triggers {
                group.addTask {
                    hub.dispatch(t, timeout: 0.2) { _ in counts.m.withLock { $0[t.id, default: 0] += 1 } }
                    if t.name.hasSuffix("0") == false {
                        hub.dispatch(t.createResponseEvent(name: "r", type: "t", source: "r", data: nil))
                    }
                }
            }
        }
        #expect(eventually { counts.m.withLock { $0.count } == triggers.count })
        try? await Task.sleep(for: .milliseconds(300))
        #expect(counts.m.withLock { $0.values.allSatisfy { $0 == 1 } })
    }
}
