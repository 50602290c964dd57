// Event history in SQLite: records/s inserted (one transaction each, and batched), and historical
// conditions/s for a 3-mask `ordered` search on a 1,000,000-row table.
// Run: swift run -c release history-bench
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHistory
import RuleKitHub

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rk-history-bench-\(UUID())").path
let store = try SQLiteEventHistory.open(directory: dir, retention: nil).get()
let hub = EventHub(options: .init(history: store))

func seconds(_ body: () -> Void) -> Double {
    let t = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
}

let single = 5_000
let s1 = seconds {
    for i in 0..<single { _ = store.record(hash: UInt32(i % 1000), timestamp: Date()) }
}
print(String(format: "insert, one transaction each: %8.0f records/s (%d records)", Double(single) / s1, single))

let total = 1_000_000
let start = Date().addingTimeInterval(-86_400)
var batch: [(UInt32, Date)] = []
let s2 = seconds {
    for i in 0..<(total - single) {
        // 1,000 distinct masks spread over a day.
        batch.append((UInt32.random(in: 0..<1000), start.addingTimeInterval(Double(i) * 0.08)))
        if batch.count == 10_000 {
            _ = store.record(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
    _ = store.record(batch)
}
print(String(format: "insert, batches of 10,000:    %8.0f records/s (table now %d rows)", Double(total - single) / s2, store.count))

// Masks whose hashes are in the table: record three known masks a few times.
let masks: [ValueObject] = [["page": "home"], ["page": "cart"], ["page": "checkout"]]
for (i, m) in masks.enumerated() {
    for k in 0..<5 {
        _ = store.record(hash: EventHistoryHash.hash(m), timestamp: start.addingTimeInterval(Double(i * 100 + k)))
    }
}
let requests = masks.map { EventHistoryRequest(mask: $0) }
let runs = 2_000
var found = 0
let s3 = seconds {
    for _ in 0..<runs {
        let r = hub.historicalEvents(requests, enforceOrder: true)
        if r.allSatisfy({ $0.count > 0 }) { found += 1 }
    }
}
print(
    String(
        format: "ordered 3-mask condition:     %8.0f conditions/s on %d rows (%d/%d satisfied)", Double(runs) / s3,
        store.count, found, runs))
try? FileManager.default.removeItem(atPath: dir)
