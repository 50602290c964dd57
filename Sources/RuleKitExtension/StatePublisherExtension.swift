public import RuleKitCore
public import RuleKitHub
internal import RuleKitRules

/// Publishes a shared state and/or an XDM shared state under a given name at registration: how a host
/// (or `rulekit run --state`) stands in for an extension whose state the rules read.
public final class StatePublisherExtension: Extension, @unchecked Sendable {
    /// The extension name the state is published under.
    public let name: String
    /// The same as `name`.
    public let friendlyName: String
    /// RuleKit's version.
    public let version = RuleKitVersion.current
    /// The hub's side of this extension.
    public let runtime: any ExtensionRuntime
    /// Its listeners are registered in `onRegistered` and it holds no event: the hub skips the rest.
    public var skipsUnheardEvents: Bool { true }
    let state: ValueObject?
    let xdm: ValueObject?

    /// Publishes `state` (and `xdm`) as `name` once registered.
    ///
    /// - Parameters:
    ///   - runtime: what the hub gives the extension.
    ///   - name: the extension's name (the state's owner).
    ///   - state: the shared state (nil: none).
    ///   - xdm: the XDM shared state (nil: none).
    public init(runtime: any ExtensionRuntime, name: String, state: ValueObject?, xdm: ValueObject? = nil) {
        self.runtime = runtime
        self.name = name
        self.friendlyName = name
        self.state = state
        self.xdm = xdm
    }

    /// Always nil: the extension needs a name and a state (use `factory`).
    ///
    /// - Parameter runtime: unused.
    public convenience init?(runtime: any ExtensionRuntime) { nil }

    /// A factory for `EventHub.registerExtensions(factories:)`.
    ///
    /// - Parameters:
    ///   - name: the extension's name (the state's owner).
    ///   - state: the shared state (nil: none).
    ///   - xdm: the XDM shared state (nil: none).
    /// - Returns: the factory.
    public static func factory(name: String, state: ValueObject?, xdm: ValueObject? = nil) -> EventHub.ExtensionFactory {
        { StatePublisherExtension(runtime: $0, name: name, state: state, xdm: xdm) }
    }

    /// Publishes the states.
    public func onRegistered() {
        if let state { createSharedState(data: state, event: nil) }
        if let xdm { createXDMSharedState(data: xdm, event: nil) }
    }

    /// Nothing to release.
    public func onUnregistered() {}
}
