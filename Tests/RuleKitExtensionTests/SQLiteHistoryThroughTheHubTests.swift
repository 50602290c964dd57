import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHistory
import RuleKitHub
import RuleKitTestSupport
import Testing

/// A SQLite history behind a hub with the rules extension: historical conditions ask the file.
@Suite struct SQLiteHistoryThroughTheHubTests {
    static func directory() -> String {
        let d = Scratch.url("rk-sqlite-hub-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func historicalConditionsQueryTheDatabaseThroughTheHub() throws {
        let store = try SQLiteEventHistory.open(directory: Self.directory()).get()
        let rules = Scratch.url("rk-hrules-\(UUID()).yaml")
        try """
        rules:
          - id: second-visit
            when:
              all:
                - {key: ~type, eq: visit}
                - {history: {events: [{page: home}], matcher: ge, value: 2}}
            then: [{add: {returning: true}}]
        """.write(to: rules, atomically: true, encoding: .utf8)
        let hub = EventHub(options: .init(history: store))
        let seen = Locked<[Event]>([])
        hub.registerEventListener(type: "visit", source: "app") { e in seen.withLock { $0.append(e) } }
        let done = Locked(false)
        hub.registerExtensions(factories: [RulesExtension.factory(.init(sources: [rules.path]))]) { _ in done.withLock { $0 = true } }
        func wait(_ c: () -> Bool) -> Bool {
            let end = Date().addingTimeInterval(30)
            while Date() < end {
                if c() { return true }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return c()
        }
        #expect(wait { done.withLock { $0 } })
        for i in 0..<3 {
            hub.dispatch(Event(name: "v\(i)", type: "visit", source: "app", data: ["page": "home"], mask: ["page"]))
            #expect(wait { seen.withLock { $0.count } == i + 1 })
        }
        // Masked events are recorded after the rules ran: the first two visits see 0 and 1 earlier visits.
        let returning = seen.withLock { $0 }.map { $0.data?["returning"] == .bool(true) }
        #expect(returning == [false, false, true])
        #expect(store.count == 3)
    }
}
