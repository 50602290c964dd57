internal import Foundation
internal import RuleKitCore
internal import RuleKitHub
internal import RuleKitRules

/// The engine's view of the hub: shared states at an event's version, history, and dispatch.
final class HubRulesRuntime: RulesRuntime {
    let runtime: any ExtensionRuntime
    /// The hub event being processed: it carries its number (its shared-state version), which spares the
    /// hub a lookup by id under its busy lock for every state the rules read.
    private let current = Locked<Event?>(nil)

    init(runtime: any ExtensionRuntime) {
        self.runtime = runtime
    }

    /// Runs `body` (the engine processing `event`) with `event` known as the one in hand.
    func processing<R>(_ event: Event, _ body: () -> R) -> R {
        current.withLock { $0 = event }
        defer { current.withLock { $0 = nil } }
        return body()
    }

    /// The hub's own event for `event` when it is the one in hand, else one made from it.
    private func hubEvent(_ event: EngineEvent) -> Event {
        if let e = current.withLock({ $0 }), e.id == event.id { return e }
        return EventBridge.hubEvent(event)
    }

    func sharedState(_ extensionName: String, at event: EngineEvent) -> ValueObject? {
        runtime.getSharedState(extensionName: extensionName, event: hubEvent(event), barrier: false, resolution: .any)?.value
    }

    func xdmSharedState(_ extensionName: String, at event: EngineEvent) -> ValueObject? {
        runtime.getXDMSharedState(
            extensionName: extensionName, event: hubEvent(event), barrier: false,
            resolution: .any)?.value
    }

    func queryHistory(_ requests: [HistoryRequest], enforceOrder: Bool) -> [HistoryResult] {
        runtime.getHistoricalEvents(requests, enforceOrder: enforceOrder)
    }

    func recordHistory(_ event: EngineEvent) -> Bool {
        runtime.recordHistoricalEvent(EventBridge.hubEvent(event))
    }

    func dispatch(_ event: EngineEvent) {
        runtime.dispatch(event: EventBridge.hubEvent(event))
    }
}

/// Hub events and engine events are the same event seen by two layers: same id, links and data.
enum EventBridge {
    static func engineEvent(_ e: Event) -> EngineEvent {
        EngineEvent(
            id: e.id, name: e.name, type: e.type, source: e.source, data: e.data, timestamp: e.timestamp,
            responseID: e.responseID, parentID: e.parentID, mask: e.mask)
    }

    /// The hub finds the event's number (its shared-state version) by id.
    static func hubEvent(_ e: EngineEvent) -> Event {
        Event(
            id: e.id, name: e.name, type: e.type, source: e.source, data: e.data, timestamp: e.timestamp,
            responseID: e.responseID, parentID: e.parentID, mask: e.mask)
    }
}
