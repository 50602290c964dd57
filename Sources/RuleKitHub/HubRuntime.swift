internal import Foundation
internal import RuleKitCore

/// The runtime the hub gives one extension: every call acts as that extension.
final class HubRuntime: ExtensionRuntime {
    weak let hub: EventHub?
    let container: ExtensionContainer

    init(hub: EventHub, container: ExtensionContainer) {
        self.hub = hub
        self.container = container
    }

    func registerListener(type: String, source: String, listener: @escaping EventListener) {
        container.addListener(.init(type: type, source: source, call: listener))
    }

    func registerResponseListener(triggerEvent: Event, timeout: Double, listener: @escaping ResponseListener) {
        hub?.registerResponseListener(triggerEvent: triggerEvent, timeout: timeout, listener: listener)
    }

    func dispatch(event: Event) { hub?.dispatch(event) }

    func createSharedState(data: ValueObject, event: Event?) {
        _ = hub?.createSharedState(container, data: data, event: event, xdm: false, pending: false)
    }

    func createPendingSharedState(event: Event?) -> SharedStateResolver {
        pending(event: event, xdm: false)
    }

    func createXDMSharedState(data: ValueObject, event: Event?) {
        _ = hub?.createSharedState(container, data: data, event: event, xdm: true, pending: false)
    }

    func createPendingXDMSharedState(event: Event?) -> SharedStateResolver {
        pending(event: event, xdm: true)
    }

    private func pending(event: Event?, xdm: Bool) -> SharedStateResolver {
        guard let hub, let version = hub.createSharedState(container, data: nil, event: event, xdm: xdm, pending: true) else {
            return { _ in }
        }
        let container = self.container
        return { [weak hub] data in hub?.resolvePending(container, version: version, data: data, xdm: xdm) }
    }

    func getSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    {
        hub?.getSharedState(extensionName: extensionName, event: event, barrier: barrier, resolution: resolution)
    }

    func getXDMSharedState(extensionName: String, event: Event?, barrier: Bool, resolution: SharedStateResolution)
        -> SharedStateResult?
    {
        hub?.getSharedState(extensionName: extensionName, event: event, barrier: barrier, resolution: resolution, xdm: true)
    }

    func startEvents() { container.setStopped(false) }
    func stopEvents() { container.setStopped(true) }

    func getHistoricalEvents(_ requests: [EventHistoryRequest], enforceOrder: Bool) -> [EventHistoryResult] {
        hub?.historicalEvents(requests, enforceOrder: enforceOrder) ?? requests.map { _ in EventHistoryResult(count: -1) }
    }

    func recordHistoricalEvent(_ event: Event) -> Bool { hub?.recordHistoricalEvent(event) ?? false }

    func registerPreprocessor(_ preprocessor: @escaping EventPreprocessor) { hub?.registerPreprocessor(preprocessor) }
}
