public import RuleKitCore
public import RuleKitHub
internal import RuleKitRules

/// Publishes a shared state and/or an XDM shared state under a given name at registration: how a host
/// (or `rulekit run --state`) stands in for an extension whose state the rules read.
public final class StatePublisherExtension: Extension, @unchecked Sendable {
    public let name: String
    public let friendlyName: String
    public let version = RuleKitVersion.current
    public let runtime: any ExtensionRuntime
    let state: ValueObject?
    let xdm: ValueObject?

    public init(runtime: any ExtensionRuntime, name: String, state: ValueObject?, xdm: ValueObject? = nil) {
        self.runtime = runtime
        self.name = name
        self.friendlyName = name
        self.state = state
        self.xdm = xdm
    }

    public convenience init?(runtime: any ExtensionRuntime) { nil }

    public static func factory(name: String, state: ValueObject?, xdm: ValueObject? = nil) -> EventHub.ExtensionFactory {
        { StatePublisherExtension(runtime: $0, name: name, state: state, xdm: xdm) }
    }

    public func onRegistered() {
        if let state { createSharedState(data: state, event: nil) }
        if let xdm { createXDMSharedState(data: xdm, event: nil) }
    }

    public func onUnregistered() {}
}
