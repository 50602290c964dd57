import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitFetch
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
        options.adminTokenFile = adminTokenFile
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

    /// The fetching of rules URLs among `--rules` (nil when there are none): the transport, the options,
    /// the cache and the poll interval. The transport is shut down by the caller when serving ends.
    func remoteRules(into options: inout ServeOptions) throws -> HTTPRulesTransport? {
        guard options.rules.contains(where: RemoteRules.isURL) else { return nil }
        let transport: HTTPRulesTransport
        do { transport = try HTTPRulesTransport(caFile: fetch.rulesCA) } catch {
            Stderr.write("error: \(FetchOptions.message(error))\n")
            throw ExitCode(2)
        }
        options.remote = RemoteRules(transport: transport, options: try fetch.remoteOptions())
        if let dir = rulesCache ?? (fetch.noCache ? nil : RulesCache.userDirectory()) {
            options.rulesCache = RulesCache(directory: dir)
        }
        options.rulesPoll = rulesPoll?.duration
        return transport
    }
}
