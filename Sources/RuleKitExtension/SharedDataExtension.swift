internal import Foundation
internal import RuleKitCore
public import RuleKitHub
public import RuleKitShared
internal import RuleKitRules

/// Puts a shared data container on the hub: its published API is the container, and every change to a
/// collection — by this process or another — arrives as an event, so extensions and rules can react.
///
/// Event: type `com.rulekit.eventType.sharedData`, source `com.rulekit.eventSource.change`, data
/// `{"collection": name, "container": directory}`.
public final class SharedDataExtension: Extension, @unchecked Sendable {
    public static let extensionName = "rulekit.shared"
    public static let changeEventType = "com.rulekit.eventType.sharedData"
    public static let changeEventSource = "com.rulekit.eventSource.change"

    public let name = SharedDataExtension.extensionName
    public let friendlyName = "RuleKit Shared Data"
    public let version = RuleKitVersion.current
    public let runtime: any ExtensionRuntime
    public let container: SharedContainer
    public var api: (any Sendable)? { container }
    private let polling: Bool
    private let watcher = Locked<SharedContainerWatcher?>(nil)

    public static func factory(_ container: SharedContainer, polling: Bool = false) -> EventHub.ExtensionFactory {
        { SharedDataExtension(runtime: $0, container: container, polling: polling) }
    }

    public convenience init?(runtime: any ExtensionRuntime) { nil }

    public init(runtime: any ExtensionRuntime, container: SharedContainer, polling: Bool = false) {
        self.runtime = runtime
        self.container = container
        self.polling = polling
    }

    public func onRegistered() {
        let runtime = self.runtime
        let dir = container.directory.path
        let w = SharedContainerWatcher(container: container, polling: polling) { collection in
            runtime.dispatch(event: Event(name: "Shared data changed", type: Self.changeEventType, source: Self.changeEventSource,
                                          data: ["collection": .string(collection), "container": .string(dir)]))
        }
        watcher.withLock { $0 = w }
    }

    public func onUnregistered() {
        let w = watcher.withLock { w -> SharedContainerWatcher? in
            defer { w = nil }
            return w
        }
        w?.stop()
    }
}
