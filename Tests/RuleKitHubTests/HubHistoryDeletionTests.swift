import Foundation
import RuleKitCore
import RuleKitHistory
import RuleKitHub
import Testing

/// The reference's `deleteEvents` on the hub: a mask's records within a window go, others stay, and a
/// deleted record is not counted by the next question.
@Suite struct HubHistoryDeletionTests {
    @Test func aMasksRecordsInAWindowAreDeleted() async throws {
        var options = EventHub.Options()
        options.history = InMemoryEventHistory()
        let hub = EventHub(options: options)
        let start = Date()
        func event(_ page: String, at offset: Double) -> Event {
            var e = Event(name: "visit", type: "t", source: "s", data: ["page": .string(page)])
            e.timestamp = start.addingTimeInterval(offset)
            return e
        }
        for (page, offset) in [("home", -30.0), ("home", -20), ("home", -10), ("shop", -10)] {
            #expect(hub.recordHistoricalEvent(event(page, at: offset)))
        }
        let home = EventHistoryRequest(mask: ["page": "home"])
        let shop = EventHistoryRequest(mask: ["page": "shop"])
        #expect(hub.historicalEvents([home], enforceOrder: false).first?.count == 3)
        // The reference's form: a window; the records before it stay.
        let window = EventHistoryRequest(mask: ["page": "home"], from: start.addingTimeInterval(-25))
        #expect(await hub.deleteHistoricalEvents([window]) == 2)
        #expect(hub.historicalEvents([home], enforceOrder: false).first?.count == 1)
        #expect(hub.historicalEvents([shop], enforceOrder: false).first?.count == 1)
        #expect(await hub.deleteHistoricalEvents([home, shop]) == 2)
        #expect(hub.historicalEvents([home, shop], enforceOrder: false).map(\.count) == [0, 0])
        // Written again with its old time (a late write): dropped by the tombstone.
        #expect(!hub.recordHistoricalEvent(event("home", at: -5)) || hub.historicalEvents([home], enforceOrder: false).first?.count == 0)
    }
}
