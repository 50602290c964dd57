import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitRules

/// Batch matching walks the index's keys of a group of events level by level, and the resolver reuses
/// state lookups while the runtime hands back the same state object: both must answer exactly as
/// matching event by event with fresh resolvers.
@Suite struct BatchMatchingTests {
    /// A runtime whose shared states differ per event (by event name), as versioned states do.
    struct VersionedStates: RulesRuntime {
        let states: [String: ValueObject]
        func sharedState(_ extensionName: String, at event: Event) -> ValueObject? {
            extensionName == "conf" ? states[event.name] : nil
        }
        func xdmSharedState(_ extensionName: String, at event: Event) -> ValueObject? {
            extensionName == "id" ? states[event.name] : nil
        }
        func dispatch(_ event: Event) {}
    }

    static func perEvent(_ set: CompiledRuleSet, _ events: [Event], _ runtime: any RulesRuntime) -> [[Int]] {
        events.map { e in
            var r = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
            return Evaluator.matchingRules(set, &r).map(\.index)
        }
    }

    static func batched(_ set: CompiledRuleSet, _ events: [Event], _ runtime: any RulesRuntime) -> [[Int]] {
        var out = Array(repeating: [Int](), count: events.count)
        var r = Resolver(event: events[0], runtime: runtime)
        Evaluator.forEachMatch(set, events: events, &r) { e, rule in out[e].append(rule) }
        #expect(Evaluator.matchCount(set, events: events, &r) == out.reduce(0) { $0 + $1.count })
        return out
    }

    /// The walk of several keys of one event at once answers as each key's own walk: found, missing, or
    /// left to the general path (dotted keys), for paths of different lengths through objects and arrays.
    @Test func multiWalksAgreeWithSingleWalks() throws {
        let data = try JSONReader.value(
            #"""
            {"a": {"b": {"c": "hit", "d": [1, {"e": "deep value longer than fifteen"}]}, "x.y": 1},
             "list": [{"sku": "P1"}, {"sku": "P2"}], "top": true, "dotted": {"k.l": 2}}
            """#)
        let root = try #require(data.objectValue)
        let texts = [
            "a.b.c", "a.b.d.1.e", "list.1.sku", "list.5.sku", "top", "top.no", "a.x.y", "dotted.k.l",
            "nothing", "a.b", "a.b.d.0",
        ]
        let paths = texts.map { FlatPath($0) }
        withExtendedLifetime(paths) {
            root.withUnsafeView { view in
                let steps = paths.map(\.unsafeSteps)
                func same(_ a: FlatLookup.Walk?, _ b: FlatLookup.Walk) -> Bool {
                    switch (a, b) {
                    case (.found(let x)?, .found(let y)): x == y
                    case (.missing?, .missing): true
                    case (nil, .slow): true
                    default: false
                    }
                }
                steps.withUnsafeBufferPointer { all in
                    withUnsafeTemporaryAllocation(of: FlatLookup.Walk?.self, capacity: all.count) { out in
                        FlatLookup.multiWalk(view, all, into: out)
                        for k in all.indices {
                            #expect(same(out[k], FlatLookup.plainWalk(view, all[k])), "\(texts[k])")
                        }
                        _ = out.deinitialize()
                    }
                }
            }
        }
        // The general path gives the plain reference's answer for every path.
        for (k, path) in paths.enumerated() {
            #expect(FlatLookup.leaf(path, in: root) == FlatLookup.referenceLeaf(path, in: root), "\(texts[k])")
        }
    }

    @Test func batchesAgreeWithEventByEventMatching() throws {
        let set = try Rules.compile(
            """
            rules:
              - {id: plain, when: {key: a.b.c, eq: hit}, then: []}
              - {id: array, when: {key: list.1.sku, sw: P1}, then: []}
              - {id: dotted, when: {key: d.e.f, eq: 7}, then: []}
              - {id: wide, when: {key: wide.k29, eq: v29}, then: []}
              - {id: huge, when: {key: huge.k69, co: "69"}, then: []}
              - {id: state, when: {key: ~state.conf/env, eq: prod}, then: []}
              - {id: dottedState, when: {key: ~state.conf/build.id, eq: "42"}, then: []}
              - {id: xdm, when: {key: ~xdm.id/env, eq: test}, then: []}
              - {id: type, when: {all: [{key: ~type, eq: T1}, {key: n, ge: 3}]}, then: []}
              - {id: missing, when: {key: a.zz, nx: true}, then: []}
              - {id: container, when: {key: a.b, ex: true}, then: []}
              - {id: long, when: {key: url, co: /products/p7}, then: []}
            """)
        func wide(_ n: Int) -> Value {
            .object(ValueObject((0..<n).map { ("k\($0)", Value.string("v\($0)")) }))
        }
        var events: [Event] = []
        var states: [String: ValueObject] = [:]
        for i in 0..<53 {
            let name = "e\(i)"
            var data: ValueObject = [
                "a": ["b": ["c": .string(i % 3 == 0 ? "hit" : "miss")]],
                "list": [["sku": "x"], ["sku": .string(i % 4 == 0 ? "p1-\(i)" : "q")]],
                "wide": wide(i % 2 == 0 ? 30 : 10), "huge": wide(70), "n": .int(Int64(i % 6)),
                "url": .string("https://shop.example.com/products/p\(i).html"),
            ]
            // Dotted keys in some events: the flattened map's `d.e.f` from either spelling.
            if i % 5 == 0 { data["d.e"] = ["f": 7] } else if i % 5 == 1 { data["d"] = ["e.f": 7, "e": ["f": 8]] }
            events.append(Event(name: name, type: i % 2 == 0 ? "t1" : "t2", source: "s", data: i % 7 == 6 ? nil : data))
            // States change every few events; some events share one state object, as versions do.
            let version: ValueObject = ["env": .string(i % 9 < 4 ? "prod" : "test"), "build.id": .string(i % 10 < 5 ? "42" : "41")]
            states[name] = i % 3 == 0 ? version : (states["e\(i - 1)"] ?? version)
        }
        let runtime = VersionedStates(states: states)
        let expected = Self.perEvent(set, events, runtime)
        #expect(Self.batched(set, events, runtime) == expected)
        // Data kept as tapes (as read from JSON lines), alone and mixed with trees, matches the same.
        let (taped, n) = TapeEvents.taped(events)
        #expect(n > 40)
        #expect(Self.perEvent(set, taped, runtime) == expected)
        #expect(Self.batched(set, taped, runtime) == expected)
        let mixed = events.indices.map { $0 % 2 == 0 ? taped[$0] : events[$0] }
        #expect(Self.batched(set, mixed, runtime) == expected)
        #expect(expected.contains { $0.contains(5) } && expected.contains { !$0.contains(5) })
        // The same through one resolver reused event by event (its state memo carried across events).
        var r = Resolver(event: events[0], runtime: runtime)
        let reused = events.map { e in
            r.reset(event: e)
            return Evaluator.matchingRules(set, &r).map(\.index)
        }
        #expect(reused == expected)
        // Every rule fires somewhere and misses somewhere: the comparison is not vacuous.
        for rule in set.rules.indices where rule != 9 {
            #expect(expected.contains { $0.contains(rule) }, "rule \(set.rules[rule].label) never fires")
            #expect(expected.contains { !$0.contains(rule) }, "rule \(set.rules[rule].label) always fires")
        }
    }

    /// Without state keys every anchor is probed for the whole group at once (no resolver): events whose
    /// probe needs the general path (dotted keys, non-ASCII text) must still come out right.
    @Test func groupProbesAgreeWithEventByEventMatching() throws {
        let set = try Rules.compile(
            """
            rules:
              - {id: type, when: {all: [{key: ~type, eq: T1}, {key: n, ge: 3}]}, then: []}
              - {id: source, when: {key: ~source, sw: S}, then: []}
              - {id: dotted, when: {key: d.e.f, eq: 7}, then: []}
              - {id: text, when: {key: name, eq: CAB}, then: []}
              - {id: ascii, when: {key: name, co: ab}, then: []}
              - {id: url, when: {key: url, ew: .HTML}, then: []}
              - {id: number, when: {key: n, eq: 4}, then: []}
              - {id: container, when: {key: d, eq: ""}, then: []}
              - {id: kelvin, when: {key: name, sw: kab}, then: []}
            """)
        #expect(set.index.probesWithoutResolver(set.program.slots))
        var events: [Event] = []
        for i in 0..<70 {
            var data: ValueObject = [
                "n": .int(Int64(i % 6)), "url": .string("https://x/p\(i).html"),
                "name": .string(["été", "cab", "x", "ÉTÉ", "\u{212A}AB"][i % 5]),
            ]
            if i % 5 == 0 { data["d.e"] = ["f": 7] } else if i % 5 == 1 { data["d"] = ["e": ["f": 7]] }
            if i % 5 == 2 { data["d"] = "leaf" }
            events.append(
                Event(
                    name: "", type: i % 3 == 0 ? "t1" : "t2", source: i % 2 == 0 ? "src" : "x",
                    data: i % 9 == 8 ? nil : data))
        }
        let runtime = StaticRulesRuntime()
        let expected = Self.perEvent(set, events, runtime)
        #expect(Self.batched(set, events, runtime) == expected)
        let (taped, n) = TapeEvents.taped(events)
        #expect(n > 50)
        #expect(Self.perEvent(set, taped, runtime) == expected)
        #expect(Self.batched(set, taped, runtime) == expected)
        for rule in set.rules.indices {
            #expect(expected.contains { $0.contains(rule) }, "rule \(set.rules[rule].label) never fires")
            #expect(expected.contains { !$0.contains(rule) }, "rule \(set.rules[rule].label) always fires")
        }
    }

    @Test func batchesOfOneEventAndOfNone() throws {
        let set = try Rules.compile("rules:\n  - {id: a, when: {key: x, eq: 1}, then: []}\n")
        let one = [Event(name: "", type: "t", source: "s", data: ["x": 1])]
        var r = Resolver(event: one[0], runtime: StaticRulesRuntime())
        #expect(Evaluator.matchCount(set, events: one, &r) == 1)
        #expect(Evaluator.matchCount(set, events: [], &r) == 0)
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the benchmark workload is not run"))
    func benchmarkWorkloadMatchesTheSameInBatches() throws {
        let dir = try #require(SharedCorpus.folder("bench"))
        let lines = try #require(SharedCorpus.bytes(dir.appendingPathComponent("events-10k.jsonl")))
            .split(separator: 0x0A).prefix(3000)
        let events = try lines.map { line -> Event in
            let v = try JSONReader.read(Array(line)).value
            return Event(
                name: "", type: v["type"]?.stringValue ?? "", source: v["source"]?.stringValue ?? "",
                data: v["data"]?.objectValue)
        }
        let stateValue = try JSONReader.read(try #require(SharedCorpus.bytes(dir.appendingPathComponent("state.json")))).value
        var states: [String: ValueObject] = [:]
        for (k, v) in try #require(stateValue.objectValue) { states[k] = v.objectValue }
        let runtime = StaticRulesRuntime(states: states)
        for n in [10, 100] {
            let doc = try JSONReader.read(try #require(SharedCorpus.bytes(dir.appendingPathComponent("rules-\(n).json"))))
            let set = Planner().plan(try LaunchRulesLoader.load(doc).get())
            let expected = Self.perEvent(set, events, runtime)
            #expect(Self.batched(set, events, runtime) == expected, "rules-\(n)")
            #expect(expected.reduce(0) { $0 + $1.count } > 50, "rules-\(n)")
        }
    }
}

/// The rule index only ever skips rules that cannot match: with and without it, the same rules match.
@Suite struct RuleIndexTests {
    @Test func theIndexSkipsOnlyRulesThatCannotMatch() throws {
        let set = try Rules.compile(
            """
            rules:
              - {id: eq, when: {key: ~type, eq: T1}, then: []}
              - {id: eqMany, when: {key: k, eq: [a, B, "\\u00e9t\\u00e9"]}, then: []}
              - {id: co, when: {all: [{key: ~source, eq: s}, {key: url, co: /Products/}]}, then: []}
              - {id: sw, when: {key: url, sw: HTTPS://shop}, then: []}
              - {id: ew, when: {key: url, ew: .html}, then: []}
              - {id: anyOf, when: {any: [{key: k, eq: a}, {key: k, eq: z}]}, then: []}
              - {id: oneOf, when: {any: [{key: k, eq: z}]}, then: []}
              - {id: shortCo, when: {key: url, co: p}, then: []}
              - {id: nonASCII, when: {key: name, eq: "\\u00c9T\\u00c9"}, then: []}
              - {id: kelvin, when: {key: name, eq: "\\u212a"}, then: []}
              - {id: number, when: {key: n, eq: 3}, then: []}
              - {id: missing, when: {key: nope, eq: ""}, then: []}
              - {id: history, when: {all: [{key: k, eq: a}, {history: {events: [{a: 1}], matcher: ge, value: 0}}]}, then: []}
            """)
        #expect(set.rules.count == 13)
        let runtime = MockRuntime()
        let values: [(String, Value)] = [
            ("k", "a"), ("k", "A"), ("k", "b"), ("k", "z"), ("k", "ÉTÉ"), ("k", .int(3)),
            ("url", "https://shop.example.com/products/p1.html"), ("url", "http://x/p"), ("url", "HTTPS://SHOP/"),
            ("name", "été"), ("name", "k"), ("name", "K"), ("n", .int(3)), ("n", "3"), ("n", .double(3)),
        ]
        var events: [Event] = []
        for type in ["T1", "t1", "t2"] {
            for source in ["s", "S", "x"] {
                for (k, v) in values { events.append(Event(name: "", type: type, source: source, data: [k: v])) }
                events.append(Event(name: "", type: type, source: source, data: nil))
            }
        }
        let plain = set.withoutIndex()
        var fired = Set<Int>()
        for e in events {
            var r1 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
            var r2 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
            let indexed = Evaluator.matchingRules(set, &r1).map(\.index)
            #expect(indexed == Evaluator.matchingRules(plain, &r2).map(\.index), "\(e.type) \(e.source) \(String(describing: e.data))")
            fired.formUnion(indexed)
        }
        #expect(fired.count == set.rules.count, "rules never fired: \(Set(set.rules.indices).subtracting(fired))")
        // And it does skip: an event of another type and no data is a candidate for few rules.
        var r = Resolver(event: Event(name: "", type: "zz", source: "zz", data: nil), runtime: runtime, slotCount: set.slotCount)
        var candidates = 0
        set.index.forEachCandidate(&r, slots: set.program.slots) { _, _ in candidates += 1 }
        #expect(candidates < set.rules.count / 2)
    }

    /// `eq` with an Int value is filed under `int(key)`: every value that converts to it (3, "3", 3.9,
    /// true for 1) lets its rules through, one that does not convert ("3.0", "", a container) lets none,
    /// one by one and in batches alike.
    @Test func integerEqualitiesAreFiledUnderTheirConversion() throws {
        let set = try Rules.compile(
            """
            rules:
              - {id: three, when: {key: n, eq: 3}, then: []}
              - {id: minusTwo, when: {all: [{key: ~type, eq: t}, {key: n, eq: -2}]}, then: []}
              - {id: one, when: {key: a.b, eq: 1}, then: []}
              - {id: typed, when: {key: ~source, eq: 7}, then: []}
            """)
        #expect(set.index.always.isEmpty)
        #expect(set.index.intEqualities.count == 3)
        let runtime = MockRuntime()
        let leaves: [Value] = [3, "3", 3.9, -3.9, "3.0", " 3", -2, "-2", -2.5, 1, true, false, "", .null, 3e300, ["x": 3], [3]]
        var events: [Event] = []
        for type in ["t", "T"] {
            for source in ["7", "07", "7.0", "x"] {
                for v in leaves {
                    events.append(Event(name: "", type: type, source: source, data: ["n": v, "a": ["b": v]]))
                }
                events.append(Event(name: "", type: type, source: source, data: nil))
            }
        }
        let plain = set.withoutIndex()
        var expected = 0
        var fired = Set<Int>()
        for e in events {
            var r1 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
            var r2 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
            let indexed = Evaluator.matchingRules(set, &r1).map(\.index)
            let all = Evaluator.matchingRules(plain, &r2).map(\.index)
            #expect(indexed == all, "\(e.type) \(e.source) \(String(describing: e.data))")
            expected += all.count
            fired.formUnion(indexed)
        }
        #expect(fired.count == set.rules.count, "rules never fired: \(Set(set.rules.indices).subtracting(fired))")
        var r = Resolver(event: events[0], runtime: runtime, slotCount: set.slotCount)
        #expect(Evaluator.matchCount(set, events: events, &r) == expected)
        // And it skips: a value no rule names makes no candidate.
        var probe = Resolver(
            event: Event(name: "", type: "t", source: "x", data: ["n": 5, "a": ["b": 5]]), runtime: runtime,
            slotCount: set.slotCount)
        var candidates = 0
        set.index.forEachCandidate(&probe, slots: set.program.slots) { _, _ in candidates += 1 }
        #expect(candidates == 0)
    }

    /// A key whose patterns are all prefixes (or all suffixes) is scanned only over its first (last)
    /// bytes: the same rules as a full scan, for texts shorter and longer than the window, with a pattern
    /// at the start, the end, the middle, and twice.
    @Test func prefixAndSuffixAnchorsScanOnlyTheirWindow() throws {
        let set = try Rules.compile(
            """
            rules:
              - {id: sw1, when: {key: a, sw: ab}, then: []}
              - {id: sw2, when: {key: a, sw: abcde}, then: []}
              - {id: sw3, when: {key: a, sw: xyz}, then: []}
              - {id: ew1, when: {key: b, ew: .html}, then: []}
              - {id: ew2, when: {key: b, ew: l}, then: []}
              - {id: ew3, when: {key: b, ew: abcde}, then: []}
            """)
        let windows = set.index.patterns.map { ($0.window, $0.fromEnd) }
        #expect(windows.count == 2)
        #expect(windows.allSatisfy { $0.0 == 5 })
        #expect(windows.map(\.1).sorted { !$0 && $1 } == [false, true])
        let texts = [
            "", "a", "ab", "AB", "abc", "abcde", "abcdef", "xabcde", "xyz", "xy", "zzzxyz", "abcdeabcde", "p.html", "x.htmlx",
            "html", ".html.html", "l", "longer text that ends in .HTML", "abcde.html", "ab.html",
        ]
        let plain = set.withoutIndex()
        let runtime = MockRuntime()
        var fired = Set<Int>()
        for a in texts {
            for b in texts {
                let e = Event(name: "", type: "t", source: "s", data: ["a": .string(a), "b": .string(b)])
                var r1 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
                var r2 = Resolver(event: e, runtime: runtime, slotCount: set.slotCount)
                let indexed = Evaluator.matchingRules(set, &r1).map(\.index)
                #expect(indexed == Evaluator.matchingRules(plain, &r2).map(\.index), "\(a) \(b)")
                fired.formUnion(indexed)
            }
        }
        #expect(fired.count == set.rules.count)
    }
}
