import RuleKitCore
import RuleKitHub

/// The configuration extension of a device, publishing its shared state when a test says (`rules.url`, a
/// privacy status).
final class ConfigurationOnDemand: Extension, @unchecked Sendable {
    let name = "com.adobe.module.configuration"
    let friendlyName = "Configuration"
    let version = "1"
    let runtime: any ExtensionRuntime
    init(runtime: any ExtensionRuntime) { self.runtime = runtime }
    func onRegistered() {}
    func onUnregistered() {}
    /// Publishes `data` as the configuration's next state.
    func publish(_ data: ValueObject) { createSharedState(data: data, event: nil) }
}
