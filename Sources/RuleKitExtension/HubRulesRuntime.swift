internal import Foundation
internal import RuleKitCore
internal import RuleKitHub
internal import RuleKitRules

/// The engine's view of the hub: shared states at an event's version, history, and dispatch. The engine
/// reads and produces hub events themselves: an event in hand carries its number (its shared-state
/// version), so a state read needs no lookup by id.
final class HubRulesRuntime: RulesRuntime {
    let runtime: any ExtensionRuntime
    let override: (@Sendable (String, Event, Bool) -> ValueObject?)?

    init(runtime: any ExtensionRuntime, override: (@Sendable (String, Event, Bool) -> ValueObject?)? = nil) {
        self.runtime = runtime
        self.override = override
    }

    func sharedState(_ extensionName: String, at event: Event) -> ValueObject? {
        if let override, let state = override(extensionName, event, false) { return state }
        return runtime.getSharedState(extensionName: extensionName, event: event, barrier: false, resolution: .any)?.value
    }

    func xdmSharedState(_ extensionName: String, at event: Event) -> ValueObject? {
        if let override, let state = override(extensionName, event, true) { return state }
        return runtime.getXDMSharedState(extensionName: extensionName, event: event, barrier: false, resolution: .any)?.value
    }

    func queryHistory(_ requests: [HistoryRequest], enforceOrder: Bool) -> [HistoryResult] {
        runtime.getHistoricalEvents(requests, enforceOrder: enforceOrder)
    }

    func recordHistory(_ event: Event) -> Bool {
        runtime.recordHistoricalEvent(event)
    }

    func dispatch(_ event: Event) {
        runtime.dispatch(event: event)
    }
}
