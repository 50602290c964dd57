internal import Foundation
internal import RuleKitCore
public import RuleKitHub
internal import RuleKitRules
public import RuleKitShared

/// Puts a shared data container on the hub: its published API is the container, and every change to a
/// collection — by this process or another — arrives as an event, so extensions and rules can react.
///
/// Event: type `com.rulekit.eventType.sharedData`, source `com.rulekit.eventSource.change`, data
/// `{"collection": name, "container": directory}`.
public final class SharedDataExtension: Extension, @unchecked Sendable {
    /// The extension's name on the hub.
    public static let extensionName = "rulekit.shared"
    /// The type of change events.
    public static let changeEventType = "com.rulekit.eventType.sharedData"
    /// The source of change events.
    public static let changeEventSource = "com.rulekit.eventSource.change"

    /// The extension's name on the hub.
    public let name = SharedDataExtension.extensionName
    /// The name for people.
    public let friendlyName = "RuleKit Shared Data"
    /// RuleKit's version.
    public let version = RuleKitVersion.current
    /// The hub's side of this extension.
    public let runtime: any ExtensionRuntime
    /// Its listeners are registered in `onRegistered` and it holds no event: the hub skips the rest.
    public var skipsUnheardEvents: Bool { true }
    /// The container this extension puts on the hub.
    public let container: SharedContainer
    /// The published API: the container.
    public var api: (any Sendable)? { container }
    private let polling: Bool
    private let watcher = Locked<SharedContainerWatcher?>(nil)

    /// A factory for `EventHub.registerExtensions(factories:)`; `polling` watches by polling instead of inotify.
    ///
    /// - Parameters:
    ///   - container: the shared container.
    ///   - polling: watch by polling instead of inotify.
    /// - Returns: the factory.
    public static func factory(_ container: SharedContainer, polling: Bool = false) -> EventHub.ExtensionFactory {
        { SharedDataExtension(runtime: $0, container: container, polling: polling) }
    }

    /// Always nil: the extension needs a container (use `factory`).
    ///
    /// - Parameter runtime: unused.
    public convenience init?(runtime: any ExtensionRuntime) { nil }

    /// An extension for `container`.
    ///
    /// - Parameters:
    ///   - runtime: what the hub gives the extension.
    ///   - container: the shared container.
    ///   - polling: watch by polling instead of inotify.
    public init(runtime: any ExtensionRuntime, container: SharedContainer, polling: Bool = false) {
        self.runtime = runtime
        self.container = container
        self.polling = polling
    }

    /// Starts watching the container.
    public func onRegistered() {
        let runtime = self.runtime
        let dir = container.directory.path
        let w = SharedContainerWatcher(container: container, polling: polling) { collection in
            runtime.dispatch(
                event: Event(
                    name: "Shared data changed", type: Self.changeEventType, source: Self.changeEventSource,
                    data: ["collection": .string(collection), "container": .string(dir)]))
        }
        watcher.withLock { $0 = w }
    }

    /// Stops watching the container.
    public func onUnregistered() {
        let w = watcher.withLock { w -> SharedContainerWatcher? in
            defer { w = nil }
            return w
        }
        w?.stop()
    }
}
