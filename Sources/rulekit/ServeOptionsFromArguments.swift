import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHistory
import RuleKitServe
import RuleKitSources
import RuleKitTooling

extension ServeCommand {
    /// The service's options from the command's (checked by `validate()` before this runs).
    func serveOptions() throws -> ServeOptions {
        var options = ServeOptions()
        if let tlsCert, let tlsKey { options.tls = (tlsCert, tlsKey) }
        options.authTokenFile = authTokenFile
        options.idleTimeout = .seconds(idleTimeout)
        options.rules = RuleProject(rules: rules).rules
        (options.states, options.xdmStates) = try stateOptions.load()
        options.schemas = try SchemaFolder.resolve(schemas, skipping: "XDM alignment and /v1/xdm/validate are")
        options.xdmPolicy = xdmPolicy
        // Every load and reload runs the Check with the schemas, as `rulekit lint` does (examples aside).
        if let folder = options.schemas {
            var linter = Linter()
            if (try? linter.useSchemas(folder: folder)) == true, let validator = linter.xdmValidator {
                options.checkContext = Linter(validator: validator)
            }
        }
        options.allowErrors = check.allowErrors
        options.strict = check.strict
        if let (host, port) = Self.address(listen) { (options.host, options.port) = (host, port) }
        if let location = HistoryLocation(history) { options.history = location }
        options.identityPath = try IdentityOption.parse(identity)
        if let workers { options.workers = workers }
        options.spoolCapacity = spool
        options.spoolFile = historySpool
        options.historyTimeout = .milliseconds(historyTimeout)
        options.limits.maxDocuments = maxEvents
        options.limits.maxBodyBytes = maxBody
        options.limits.queueCapacity = queue
        return options
    }
}
