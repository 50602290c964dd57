internal import Foundation
internal import RuleKitCore
internal import RuleKitHub
internal import RuleKitRules

/// The engine's view of the hub: shared states at an event's version, history, and dispatch.
final class HubRulesRuntime: RulesRuntime {
    let runtime: any ExtensionRuntime

    init(runtime: any ExtensionRuntime) {
        self.runtime = runtime
    }

    func sharedState(_ extensionName: String, at event: EngineEvent) -> ValueObject? {
        runtime.getSharedState(extensionName: extensionName, event: EventBridge.hubEvent(event), barrier: false,
                               resolution: .any)?.value
    }

    func xdmSharedState(_ extensionName: String, at event: EngineEvent) -> ValueObject? {
        runtime.getXDMSharedState(extensionName: extensionName, event: EventBridge.hubEvent(event), barrier: false,
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
        EngineEvent(id: e.id, name: e.name, type: e.type, source: e.source, data: e.data, timestamp: e.timestamp,
                    responseID: e.responseID, parentID: e.parentID, mask: e.mask)
    }

    /// The hub finds the event's number (its shared-state version) by id.
    static func hubEvent(_ e: EngineEvent) -> Event {
        Event(id: e.id, name: e.name, type: e.type, source: e.source, data: e.data, timestamp: e.timestamp,
              responseID: e.responseID, parentID: e.parentID, mask: e.mask)
    }
}
