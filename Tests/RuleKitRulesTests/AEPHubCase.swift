import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitTestSupport

@testable import RuleKitRules

/// An `engine` case of the aep-rules corpus run through a real hub: the rules file loaded by the rules
/// extension, shared states published by extensions, events dispatched by the host, and what the host's
/// listener sees compared with the case's expectations — the same checks `EngineCase` makes on the bare
/// engine. Cases that script the engine (steps, interceptors, mocked history) have no hub form.
struct AEPHubCase {
    let c: ValueObject

    static func eligible(_ c: ValueObject) -> Bool {
        c["kind"]?.stringValue == "engine" && c["steps"] == nil && c["interceptors"] == nil
            && c["mockEventHistory"] == nil && c["expect"]?["eventHistory"] == nil
    }

    static func waitFor(seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return condition()
    }

    func run() throws -> [String] {
        let dir = Scratch.url("rk-aep-hub-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rulesFile = dir.appendingPathComponent("rules.json")
        try JSONWriter.string(c["rules"] ?? .null).write(to: rulesFile, atomically: true, encoding: .utf8)

        let hub = EventHub()
        let seen = Locked<[Event]>([])
        hub.registerEventListener(type: EventType.wildcard, source: EventSource.wildcard) { e in seen.withLock { $0.append(e) } }
        var factories: [EventHub.ExtensionFactory] = [RulesExtension.factory(.init(sources: [rulesFile.path]))]
        for (name, state) in c["sharedStates"]?.objectValue ?? [:] {
            guard let data = state.objectValue else { continue }
            factories.append(StatePublisherExtension.factory(name: name, state: data))
        }
        let booted = Locked(false)
        hub.registerExtensions(factories: factories) { _ in booted.withLock { $0 = true } }
        guard Self.waitFor(seconds: 20, { booted.withLock { $0 } }),
            let control = hub.api(named: RulesExtension.extensionName, as: RulesControl.self),
            Self.waitFor(seconds: 20, { control.lastOutcome != nil })
        else { return ["the hub did not boot"] }

        var engineCase = EngineCase(c: c)
        var inputs: [Event] = []
        for e in c["events"]?.arrayValue ?? [] {
            let input = AEPRulesCorpus.event(e)
            if let l = e["label"]?.stringValue { engineCase.labels[l] = input }
            inputs.append(input)
            hub.dispatch(
                Event(
                    id: input.id, name: input.name, type: input.type, source: input.source, data: input.data,
                    timestamp: input.timestamp, responseID: nil, parentID: nil, mask: input.mask))
        }
        // Quiet when a round trip of a marker event through the hub brings nothing new: everything the
        // rules dispatched (and what that dispatched in turn) is in hub order before the marker.
        let inputIDs = Set(inputs.map(\.id))
        var markers: Set<UUID> = []
        var lastCount = -1
        for round in 0..<20 {
            let marker = Event(name: "marker \(round)", type: "rulekit.test.marker", source: "rulekit.test.marker")
            markers.insert(marker.id)
            hub.dispatch(marker)
            guard Self.waitFor(seconds: 20, { seen.withLock { $0.contains { $0.id == marker.id } } }) else { return ["marker lost"] }
            let count = seen.withLock { $0.count }
            if count == lastCount { break }
            lastCount = count
        }
        // The rules load's own reset event comes before the first input; only what follows an input counts,
        // except that `replaceRules` cases count the reset event as their first dispatch (as the reference does).
        var all = seen.withLock { $0 }
        var reset: [Event] = []
        if let first = all.firstIndex(where: { inputIDs.contains($0.id) }) {
            if c["load"]?.stringValue == "replace" {
                reset = all[..<first].filter { $0.type == EventType.rulesEngine && $0.source == EventSource.requestReset }.suffix(1)
            }
            all.removeFirst(first)
        }
        let dispatched = (reset + all).filter {
            !inputIDs.contains($0.id) && !markers.contains($0.id) && $0.type != EventType.hub
                && $0.type != RulesExtension.diagnosticsEventType
        }.map(Self.engineEvent)
        var last: (Event, Event)?
        if let input = inputs.last {
            guard let output = all.first(where: { $0.id == input.id }) else { return ["the last event never reached a listener"] }
            last = (input, Self.engineEvent(output))
        }
        engineCase.check(c["expect"]?.objectValue ?? [:], dispatched: dispatched, last: last, prefix: "through the hub: ")
        return engineCase.failures
    }

    static func engineEvent(_ e: Event) -> Event {
        Event(
            id: e.id, name: e.name, type: e.type, source: e.source, data: e.data, timestamp: e.timestamp,
            responseID: e.responseID, parentID: e.parentID, mask: e.mask)
    }
}
