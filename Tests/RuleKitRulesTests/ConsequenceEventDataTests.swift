import Foundation
import RuleKitCore
import Testing

@testable import RuleKitRules

/// What a resolver hands out again across passes (`Renderings`) against the plain reference, the
/// consequence rendered afresh and its event's data made and written afresh: whatever values follow each
/// other, the consequence, data and text handed out are those of the rendering asked for, byte for byte.
@Suite struct ConsequenceEventDataTests {
    /// Values `==` takes as equal but that are written differently, plain variations, and none.
    static let pool: [Value?] = [
        "caf\u{E9}", "cafe\u{301}", "a\u{301}\u{327}", "a\u{327}\u{301}", .double(0.0), .double(-0.0), .int(0),
        .array([1, "x", .null]), .array([1, "x"]), ["a": 1, "b": 2], ["b": 2, "a": 1], .null, nil, "",
    ]

    @Test func renderingsHandedOutAgainAreTheRenderingAskedFor() throws {
        let set = try Rules.compile(
            """
            rules:
              - id: one
                when: {key: ~type, eq: edge}
                then:
                  - {type: schema, detail: {id: x, schema: s, data: {content: {seen: "{%name%}", n: "at {%n%}"}}}}
                  - {type: ping, detail: {fixed: [1, "two"]}}
                  - {type: add, detail: {eventdata: {copy: "{%name%}{%%}{%n%}"}}}
                  - {type: deep, detail: {a: ["{%n%}", {b: "{%name%}"}, 3], c: {d: "{%n%}-{%name%}", e: [["{%name%}"]]}}}
            """)
        let planned = try #require(set.rules.first).consequences
        var r = Resolver(event: Event(name: "e", type: "edge", source: "s"), runtime: StaticRulesRuntime())
        var rng = SystemRandomNumberGenerator()
        var shared = 0
        var last: [Int: Consequence] = [:]
        var data = ValueObject()
        for _ in 0..<2000 {
            // Half the events carry the values of the one before (so renderings repeat), half draw anew.
            if Bool.random(using: &rng) {
                data = ValueObject()
                for key in ["name", "n"] {
                    if let v = Self.pool[Int.random(in: 0..<Self.pool.count, using: &rng)] { data[key] = v }
                }
            }
            r.reset(event: Event(name: "e", type: "edge", source: "s", data: data))
            for (i, c) in planned.enumerated() {
                let rendered = Evaluator.render(c, &r)
                let fresh = Evaluator.renderAfresh(c, &r)
                var expected: [UInt8] = []
                JSONWriter.write(["triggeredconsequence": fresh.value], to: &expected)
                let (eventData, text) = r.renderings.eventData(rendered, serial: c.serial)
                #expect(text == expected, "\(String(decoding: text, as: UTF8.self)) for \(String(decoding: expected, as: UTF8.self))")
                var written: [UInt8] = []
                JSONWriter.write(eventData, to: &written)
                #expect(written == expected)
                // Consequences with tokens were handed out again, not only the literal one.
                if i != 1, let before = last[i], before.detail.sharesStorage(with: rendered.detail) { shared += 1 }
                last[i] = rendered
            }
        }
        #expect(shared > 500)
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
