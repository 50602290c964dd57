import Foundation
import RuleKitCore
import Testing

@testable import RuleKitRules

/// The depth a rules-consequence event carries, which bounds consequence chains.
@Suite struct ConsequenceDepthTests {
    /// A rule that matches every event, its own consequence events included.
    let loop = """
        rules:
          - id: loop
            when: {key: ~type, ex: true}
            then: [{type: url, detail: {u: x}}]
        """

    /// Runs `event` through the engine and returns the one consequence event it dispatched.
    func consequence(of event: Event, _ engine: RulesEngine, _ runtime: StaticRulesRuntime) throws -> Event {
        let before = runtime.dispatched().count
        _ = engine.process(event)
        let sent = runtime.dispatched()
        try #require(sent.count == before + 1)
        return sent[before]
    }

    @Test func theEngineCountsEachConsequenceOfAConsequence() throws {
        let runtime = StaticRulesRuntime()
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(try Rules.compile(loop))
        var event = Event(name: "start", type: "t", source: "s", data: ["a": 1])
        #expect(ConsequenceDepth.of(event) == 0)
        for depth in 1...5 {
            event = try consequence(of: event, engine, runtime)
            #expect(event.parentID != nil)
            #expect(ConsequenceDepth.of(event) == depth)
        }
    }

    /// A chain that passes through events another extension makes (by `createChainedEvent` or
    /// `createResponseEvent`) is counted across them.
    @Test func aChainThroughAnotherExtensionsEventsIsCounted() throws {
        let runtime = StaticRulesRuntime()
        let engine = RulesEngine(runtime: runtime)
        engine.setRules(try Rules.compile(loop))
        let first = try consequence(of: Event(name: "start", type: "t", source: "s", data: [:]), engine, runtime)
        #expect(ConsequenceDepth.of(first) == 1)
        let echoed = first.createChainedEvent(
            name: "echo", type: RulesEventNames.rulesEngineType, source: RulesEventNames.responseContent, data: ["b": 2])
        #expect(ConsequenceDepth.of(echoed) == 2)
        let third = try consequence(of: echoed, engine, runtime)
        #expect(ConsequenceDepth.of(third) == 3)
        let answered = third.createResponseEvent(
            name: "answer", type: RulesEventNames.rulesEngineType, source: RulesEventNames.responseContent, data: nil)
        #expect(ConsequenceDepth.of(answered) == 4)
        // An event of another type breaks the chain: its children start again.
        let other = third.createChainedEvent(name: "other", type: "t", source: "s", data: [:])
        #expect(ConsequenceDepth.of(other) == 0)
        #expect(ConsequenceDepth.of(try consequence(of: other, engine, runtime)) == 1)
    }

    @Test func aConsequenceTypedEventMadeOtherwiseStartsAChain() {
        let orphan = Event(
            name: "x", type: RulesEventNames.rulesEngineType, source: RulesEventNames.responseContent, data: [:],
            parentID: UUID())
        #expect(ConsequenceDepth.of(orphan) == 1)
        let unparented = Event(name: "x", type: RulesEventNames.rulesEngineType, source: RulesEventNames.responseContent)
        #expect(ConsequenceDepth.of(unparented) == 0)
    }

    /// The stamp is bookkeeping: an event and its stamped copy are equal, and a copy keeps it.
    @Test func theStampIsNotPartOfEquality() {
        let e = Event(name: "x", type: RulesEventNames.rulesEngineType, source: RulesEventNames.responseContent, parentID: UUID())
        var stamped = e
        stamped.chainDepth = 4
        #expect(stamped == e)
        var renamed = stamped
        renamed.name = "y"
        #expect(renamed.chainDepth == 4)
        #expect(ConsequenceDepth.of(renamed) == 4)
    }
}
