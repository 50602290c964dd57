import Foundation
import RuleKitCore
import Testing

@testable import RuleKitRules

@Suite struct EngineTests {
    func engine(_ yaml: String) throws -> (RulesEngine, StaticRulesRuntime) {
        let runtime = StaticRulesRuntime()
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(try Rules.compile(yaml))
        return (engine, runtime)
    }

    @Test func conditionsSeeTheOriginalEventAndConsequencesStack() throws {
        let (engine, runtime) = try engine(
            """
            rules:
              - id: first
                when: {key: tier, eq: silver}
                then: [{mod: {tier: gold}}, {add: {seen: "{%tier%}"}}]
              - id: second
                when: {key: tier, eq: gold}
                then: [{add: {second: true}}]
              - id: copy
                when: {key: tier, ex: true}
                then: [{dispatch: {type: t2, source: s2, action: copy}}]
            """)
        let input = Event(name: "e", type: "t", source: "s", data: ["tier": "silver"])
        let out = engine.process(input)
        #expect(out.id == input.id)
        #expect(out.data == ["tier": "gold", "seen": "silver"])
        let sent = runtime.dispatched()
        #expect(sent.count == 1)
        #expect(sent[0].data == ["tier": "gold", "seen": "silver"])
        #expect(sent[0].parentID == input.id)
    }

    /// One engine processes every event with the same resolver (reset each time): shared states that
    /// change between events, rule sets swapped in between, and tokens must all read the event at hand.
    @Test func anEngineReadsEachEventAfresh() throws {
        let runtime = MockRuntime(sharedStates: ["conf": ["env": "prod"]])
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(
            try Rules.compile(
                """
                rules:
                  - {id: prod, when: {key: ~state.conf/env, eq: prod}, then: [{add: {env: "{%~state.conf/env%}", n: "{%n%}"}}]}
                """))
        func run(_ n: Int) -> Value? {
            engine.process(Event(name: "e", type: "t", source: "s", data: ["n": .int(Int64(n))])).data.map(Value.object)
        }
        #expect(run(1) == ["n": 1, "env": "prod"])
        runtime.state.withLock { $0.sharedStates["conf"] = ["env": "test"] }
        #expect(run(2) == ["n": 2])
        runtime.state.withLock { $0.sharedStates["conf"] = ["env": "prod", "other": 1] }
        #expect(run(3) == ["n": 3, "env": "prod"])
        runtime.state.withLock { $0.sharedStates["conf"] = nil }
        #expect(run(4) == ["n": 4])
        // Another rule set, with more keys: the resolver's caches grow, its answers stay exact.
        engine.setRules(
            try Rules.compile(
                """
                rules:
                  - {id: a, when: {key: x.y, eq: 1}, then: [{add: {hit: a}}]}
                  - {id: b, when: {all: [{key: ~type, eq: t}, {key: x.z, ex: true}]}, then: [{add: {hit2: b}}]}
                """))
        #expect(engine.process(Event(name: "e", type: "t", source: "s", data: ["x": ["y": 1]])).data == ["x": ["y": 1], "hit": "a"])
        #expect(engine.process(Event(name: "e", type: "t", source: "s", data: ["x": ["z": 0]])).data == ["x": ["z": 0], "hit2": "b"])
    }

    @Test func addAndModNeverAttachToAnEventWithoutData() throws {
        let (engine, _) = try engine("rules:\n  - {id: r, when: {key: ~type, eq: t}, then: [{add: {a: 1}}]}\n")
        let out = engine.process(Event(name: "e", type: "t", source: "s", data: nil))
        #expect(out.data == nil)
    }

    @Test func theChainLimitAppliesToDispatchOnly() throws {
        let (engine, runtime) = try engine(
            """
            rules:
              - id: d
                when: {key: ~source, eq: s}
                then: [{dispatch: {type: t, source: s, action: new, data: {n: 1}}}, {type: url, detail: {u: x}}]
            """)
        _ = engine.process(Event(name: "e", type: "t", source: "s", data: [:]))
        let first = runtime.dispatched(clear: true)
        #expect(first.map(\.type) == ["t", RulesEventNames.rulesEngineType])
        // The dispatched event comes back: no second dispatch, but the url consequence still fires.
        _ = engine.process(first[0])
        #expect(runtime.dispatched().map(\.type) == [RulesEventNames.rulesEngineType])
    }

    @Test func eventsBeforeTheFirstResetAreReplayedOnce() throws {
        let runtime = StaticRulesRuntime()
        let engine = RulesEngine(name: "rk", runtime: runtime)
        _ = engine.process(Event(name: "early", type: "t", source: "s", data: ["x": 1]))
        engine.replaceRules(with: try Rules.compile("rules:\n  - {id: r, when: {key: x, eq: 1}, then: [{type: url, detail: {}}]}\n"))
        let reset = runtime.dispatched(clear: true)
        #expect(reset.count == 1 && reset[0].source == RulesEventNames.requestReset)
        _ = engine.process(reset[0])
        #expect(runtime.dispatched(clear: true).count == 1)
        engine.replaceRules(with: engine.rules)
        _ = engine.process(runtime.dispatched(clear: true)[0])
        #expect(runtime.dispatched().isEmpty)
    }

    @Test func evaluateReturnsNilWhenNothingMatchedAndEmptyForNoConsequences() throws {
        let (engine, _) = try engine("rules:\n  - {id: r, when: {key: x, eq: 1}, then: []}\n")
        #expect(engine.evaluate(Event(name: "e", type: "t", source: "s", data: ["x": 2])) == nil)
        #expect(engine.evaluate(Event(name: "e", type: "t", source: "s", data: ["x": 1]))?.isEmpty == true)
    }

    @Test func historyInsertRecordsThenDispatches() throws {
        let (engine, runtime) = try engine(
            """
            rules:
              - id: h
                when: {key: ~type, eq: t}
                then: [{history: {operation: insertIfNotExists, content: {offer: "{%offer%}"}}}]
              - id: seen
                when: {history: {events: [{offer: o1}], matcher: ge, value: 1}}
                then: [{type: url, detail: {seen: true}}]
            """)
        _ = engine.process(Event(name: "e", type: "t", source: "s", data: ["offer": "o1"]))
        #expect(runtime.dispatched(clear: true).count == 1)
        _ = engine.process(Event(name: "e", type: "t", source: "s", data: ["offer": "o1"]))
        // Already recorded: insertIfNotExists skips; the history condition now holds.
        let second = runtime.dispatched()
        #expect(second.count == 1)
        #expect(second.first?.data?["triggeredconsequence"]?["id"] == "seen-1")
    }

    @Test func dataElementsResolveInKeysAndTokensAndInlineOnExport() throws {
        let yaml = """
            dataElements:
              total: {path: xdm.commerce.order.priceTotal, type: int}
            rules:
              - id: big
                when: {key: '%total%', gt: 100}
                then: [{add: {bucket: "big-{%%total%%}"}}]
            """
        let (engine, _) = try engine(yaml)
        let out = engine.process(
            Event(
                name: "e", type: "t", source: "s",
                data: ["xdm": ["commerce": ["order": ["priceTotal": 250.75]]]]))
        #expect(out.data?["bucket"] == "big-250")
        let launch = LaunchRulesWriter.value(try Rules.load(yaml).get())
        let rule = launch["rules"]?[0]
        #expect(rule?["condition"]?["definition"]?["key"] == "xdm.commerce.order.priceTotal")
        #expect(rule?["consequences"]?[0]?["detail"]?["eventdata"]?["bucket"] == "big-{%int(xdm.commerce.order.priceTotal)%}")
    }

    @Test func indexAndProgramAgreeWithTheTreeEvaluator() throws {
        let set = try Rules.compile(
            """
            rules:
              - {id: a, when: {all: [{key: ~type, eq: T1}, {key: x, co: ab}]}, then: []}
              - {id: b, when: {all: [{key: ~type, eq: t2}, {key: ~source, eq: S}]}, then: []}
              - {id: c, when: {any: [{key: ~type, eq: t1}, {key: y, ex: true}]}, then: []}
              - {id: d, when: {key: z, eq: 7}, then: []}
              - {id: e, when: {all: [{key: sku, eq: P1}, {key: n, gt: 2.5}]}, then: []}
            """)
        let events: [Event] = [
            Event(name: "", type: "t1", source: "s", data: ["x": "xABy"]),
            Event(name: "", type: "T2", source: "s", data: ["y": 1]),
            Event(name: "", type: "t3", source: "x", data: ["z": "7", "sku": "p1", "n": 3]),
            Event(name: "", type: "t1", source: "s", data: nil),
        ]
        let runtime = StaticRulesRuntime()
        for e in events {
            var r1 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
            var r2 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
            let viaIndex = Evaluator.matchingRules(set, &r1).map(\.label)
            let viaScan = set.rules.filter { Evaluator.matches(set, rule: $0.index, &r2) }.map(\.label)
            #expect(viaIndex == viaScan, "\(e.type)")
            #expect(OracleCheck.disagreements(set, e, runtime: runtime) == [])
        }
    }

    /// One resolver reused across events and across rule sets of different sizes (its candidate bit set
    /// and slot caches are kept between passes) must give what a fresh resolver gives.
    @Test func aReusedResolverAgreesWithFreshOnes() throws {
        let small = try Rules.compile(
            """
            rules:
              - {id: a, when: {all: [{key: ~type, eq: t1}, {key: x, co: ab}]}, then: []}
              - {id: b, when: {key: y, eq: 1}, then: []}
            """)
        // 130 rules: more than two words of candidate bits.
        let many = (0..<130).map { "  - {id: r\($0), when: {key: n, eq: \($0)}, then: []}" }.joined(separator: "\n")
        let big = try Rules.compile("rules:\n" + many + "\n  - {id: last, when: {key: ~type, eq: t1}, then: []}\n")
        let events: [Event] = [
            Event(name: "", type: "t1", source: "s", data: ["x": "xaby", "n": 129]),
            Event(name: "", type: "t2", source: "s", data: ["y": 1, "n": 3]),
            Event(name: "", type: "t1", source: "s", data: nil),
            Event(name: "", type: "t3", source: "s", data: ["n": "64"]),
        ]
        let runtime = StaticRulesRuntime()
        var reused = Resolver(event: events[0], runtime: runtime)
        for set in [small, big, small] {
            for e in events {
                reused.reset(event: e)
                var fresh = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
                let a = Evaluator.matchingRules(set, &reused).map(\.label)
                let b = Evaluator.matchingRules(set, &fresh).map(\.label)
                #expect(a == b, "\(e.type) \(set.rules.count) rules")
                #expect(Evaluator.matchCount(set, &reused) == b.count)
            }
        }
    }

    /// Events share their fields' storage between copies; a change to a copy must not show in the original.
    @Test func eventCopiesAreIndependentValues() {
        let original = Event(name: "e", type: "t", source: "s", data: ["a": 1], mask: ["a"])
        var copy = original
        #expect(copy == original)
        #expect(copy.hashValue == original.hashValue)
        copy.data?["a"] = 2
        copy.type = "u"
        copy.mask = nil
        #expect(original.data == ["a": 1])
        #expect(original.type == "t")
        #expect(original.mask == ["a"])
        #expect(copy != original)
        #expect(copy.id == original.id)
        let rebuilt = Event(
            id: original.id, name: "e", type: "t", source: "s", data: ["a": 1],
            timestamp: original.timestamp, mask: ["a"])
        #expect(rebuilt == original)
        #expect(rebuilt.hashValue == original.hashValue)
    }

    /// The clock is read once per pass, and only when a key needs the time.
    @Test func theClockIsReadOnlyWhenAKeyNeedsIt() {
        let reads = Locked(0)
        let runtime = StaticRulesRuntime(clock: {
            reads.withLock { $0 += 1 }
            return Date(timeIntervalSince1970: 1_700_000_000)
        })
        let event = Event(name: "", type: "t", source: "s", data: ["a": 1])
        var r = Resolver(event: event, runtime: runtime)
        _ = r.resolve(KeyRef.parse("~type"))
        _ = r.resolve(KeyRef.parse("a"))
        #expect(reads.withLock { $0 } == 0)
        #expect(r.resolve(KeyRef.parse("~timestampu")) == .int(1_700_000_000))
        _ = r.resolve(KeyRef.parse("~timestampp"))
        #expect(reads.withLock { $0 } == 1)
        r.reset(event: event)
        _ = r.resolve(KeyRef.parse("~timestampu"))
        #expect(reads.withLock { $0 } == 2)
    }

    /// The three time tokens name the same second even when the clock reads a fraction of a
    /// millisecond before the next one (the formatters round to milliseconds; `~timestampu` floors).
    @Test(arguments: [0.9996, 0.99995, 0.9994, 0.0004, 0.0006, 0.5])
    func timeTokensNameOneSecondAtASecondsEdge(fraction: Double) throws {
        let second = 1_795_937_675
        let runtime = StaticRulesRuntime(clock: { Date(timeIntervalSince1970: Double(second) + fraction) })
        var r = Resolver(event: Event(name: "", type: "t", source: "s", data: [:]), runtime: runtime)
        #expect(r.resolve(KeyRef.parse("~timestampu")) == .int(Int64(second)))
        let millis = try #require(r.resolve(KeyRef.parse("~timestampp"))?.stringValue)
        #expect(millis == "2026-11-29T07:34:35.\(String(format: "%03d", Int(fraction * 1000)))Z")
        let local = try #require(r.resolve(KeyRef.parse("~timestampz"))?.stringValue)
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXX"
        #expect(parser.date(from: local).map { Int($0.timeIntervalSince1970) } == second)
    }
}
