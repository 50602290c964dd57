import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHistory
import RuleKitHub
import RuleKitRules
import RuleKitShared
import RuleKitSources
import RuleKitTooling
import RuleKitXDM

/// The hub `rulekit run` feeds: rules checked as serve checks them, states, a shared container, history
/// and XDM alignment.
extension RunCommand {
    /// The booted hub of this run: its rules, states, shared container, history and XDM alignment.
    func host(states: [String: ValueObject], xdm: [String: ValueObject], output: EventLines) throws -> RulesHost {
        let sources = RuleProject(rules: rules).rules
        var container: SharedContainer?
        if let shared {
            do { container = try SharedContainer(directory: URL(fileURLWithPath: shared)) } catch {
                Stderr.write("error: \(error)\n")
                throw ExitCode(2)
            }
        }
        let xdmAlignment = try alignment()
        // The documents read are freed once loaded (no `keepsDocuments`): a run over a long stream would
        // carry them to its end. Checked as serve checks them, with the schemas the alignment uses.
        let fetched = try fetch.fetch(sources)
        let files = RuleSnapshot.load(sources, fetched: fetched.bodies, context: xdmAlignment.map { Linter(validator: $0.validator) })
        fetched.commit(files)
        if let container, !files.admits(strict: check.strict, allowErrors: check.allowErrors),
            (try? container.read(RulesExtension.lastGoodCollection)) != nil
        {
            // With kept rules the run goes on: the rules extension falls back on them (and says so).
            Stderr.write(files.render(files.refusals(strict: check.strict)) + "\n")
            Stderr.write("warning: running the last good rules kept in \(container.directory.path)\n")
        } else {
            try files.admit(check)
        }
        var configuration = RulesHost.Configuration(
            rules: sources, preloaded: files, states: states, xdmStates: xdm, container: container, xdm: xdmAlignment)
        configuration.allowErrors = check.allowErrors
        configuration.strict = check.strict
        configuration.identityPath = try IdentityOption.parse(identity)
        if let dataDir {
            // A folder the user named and that cannot hold history is a usage error: a run that silently
            // forgot history would answer historical conditions differently.
            do { configuration.blockHistory = try BlockHistory.localFile(directory: dataDir) } catch {
                Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
                throw ExitCode(2)
            }
        }
        // Worker threads read and parse the input; the hub delivers one event at a time. Nearly all its work is
        // the rules extension's, and a thread per extension taking turns costs switches and cache misses
        // (on two cores, a tenth of the run).
        configuration.serialDelivery = true
        if allEvents { configuration.observer = { output.write($0) } }
        do { return try RulesHost(configuration) } catch {
            Stderr.write("error: \(error)\n")
            throw ExitCode(2)
        }
    }

    /// The XDM alignment of rule-attached XDM, when the schema folder has an ExperienceEvent class.
    func alignment() throws -> XDMAlignment? {
        guard let schemas = try SchemaFolder.resolve(schemas, skipping: "XDM alignment of rule-attached XDM is") else { return nil }
        do {
            let registry = try XDMRegistry(folder: URL(fileURLWithPath: schemas))
            guard let cls = registry.experienceEventClass else { return nil }
            return try XDMAlignment(registry: registry, classID: cls, policy: xdmPolicy)
        } catch {
            Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
            throw ExitCode(2)
        }
    }
}
