import Foundation
import RuleKitCore
import Testing

@testable import RuleKitRules

/// The data a resolver shares between rules-consequence events against the plain reference, the event's
/// data made and written afresh: whatever renderings follow each other under one id, the data and text
/// handed out are those of the rendering asked for, byte for byte.
@Suite struct ConsequenceEventDataTests {
    /// Renderings that `==` takes as equal but that are written differently, and plain variations.
    static let pool: [ValueObject] = [
        ["schema": "s", "data": ["content": ["seen": "caf\u{E9}"]]],
        ["schema": "s", "data": ["content": ["seen": "cafe\u{301}"]]],
        ["schema": "s", "data": ["content": ["seen": "a\u{301}\u{327}"]]],
        ["schema": "s", "data": ["content": ["seen": "a\u{327}\u{301}"]]],
        ["schema": "s", "data": ["n": .double(0.0)]],
        ["schema": "s", "data": ["n": .double(-0.0)]],
        ["schema": "s", "data": ["n": .int(0)]],
        ["a": 1, "b": 2],
        ["b": 2, "a": 1],
        ["a": .array([1, "x", .null])],
        ["a": .array([1, "x"])],
        [:],
    ]

    @Test func sharedDataIsAlwaysTheRenderingAskedFor() {
        var r = Resolver(event: Event(name: "e", type: "t", source: "s"), runtime: StaticRulesRuntime())
        var rng = SystemRandomNumberGenerator()
        var shared = 0
        var last: [String: [UInt8]] = [:]
        for _ in 0..<2000 {
            let id = ["one", "two"][Int.random(in: 0..<2, using: &rng)]
            let detail = Self.pool[Int.random(in: 0..<Self.pool.count, using: &rng)]
            let c = Consequence(id: id, type: "schema", detail: detail)
            let (data, text) = r.consequenceEventData(c)
            let fresh: ValueObject = ["triggeredconsequence": c.value]
            var expected: [UInt8] = []
            JSONWriter.write(fresh, to: &expected)
            #expect(text == expected, "\(String(decoding: text, as: UTF8.self)) for \(String(decoding: expected, as: UTF8.self))")
            var written: [UInt8] = []
            JSONWriter.write(data, to: &written)
            #expect(written == expected)
            if last[id] == expected { shared += 1 }
            last[id] = expected
        }
        // Repeated renderings were met (and shared) often enough for the test to mean something.
        #expect(shared > 100)
    }

    @Test func theEngineWritesConsequenceEventsAsTheirData() throws {
        let runtime = StaticRulesRuntime()
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(
            try Rules.compile(
                """
                rules:
                  - id: seen
                    when: {key: ~type, eq: edge}
                    then:
                      - {type: ping, detail: {seen: "{%name%}"}}
                """))
        for name in ["caf\u{E9}", "cafe\u{301}", "caf\u{E9}", "x"] {
            _ = engine.process(Event(name: "e", type: "edge", source: "s", data: ["name": .string(name)]))
        }
        let events = runtime.dispatched().filter { $0.name == RulesEventNames.consequenceEventName }
        #expect(events.count == 4)
        for e in events {
            var fresh: [UInt8] = []
            JSONWriter.write(e.data ?? [:], to: &fresh)
            #expect(e.dataText == fresh)
        }
    }
}
