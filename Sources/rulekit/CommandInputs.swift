public import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitSources

extension RuleSnapshot {
    /// Loads `paths` (files, folders, `-` for standard input) as every command does; a path that cannot
    /// be read is reported and exits 2, whatever the command.
    /// Rules URLs among `paths` are fetched first (`FetchOptions.fetch`), and cached once they load.
    static func loadOrExit(
        _ paths: [String], fetch: FetchOptions, keepsDocuments: Bool = false, context: (any CheckContext)? = nil
    ) throws -> RuleSnapshot {
        let fetched = try fetch.fetch(paths)
        let snapshot = load(paths, fetched: fetched.bodies, keepsDocuments: keepsDocuments, context: context)
        let unreadable = snapshot.diagnostics.filter { $0.code == .unreadable }
        if !unreadable.isEmpty {
            for d in unreadable { Stderr.write("error: \(d.message)\n") }
            throw ExitCode(2)
        }
        fetched.commit(snapshot)
        return snapshot
    }

    /// How a command that cannot use these rules exits: 2 when a path could not be read (bad usage or
    /// unreadable input), 1 when the rules were read and have errors.
    var exitCode: ExitCode { ExitCode(hasUnreadable ? 2 : 1) }

    /// Loads, plans and checks `paths` for a command that runs them: `loadOrExit`, then `admit`.
    static func loadChecked(
        _ paths: [String], check: CheckOptions, fetch: FetchOptions, keepsDocuments: Bool = false, context: (any CheckContext)? = nil
    ) throws -> RuleSnapshot {
        let snapshot = try loadOrExit(paths, fetch: fetch, keepsDocuments: keepsDocuments, context: context)
        try snapshot.admit(check)
        return snapshot
    }

    /// The Check every command that runs rules applies before running them, as `serve` does: a source that
    /// cannot be read exits 2; error findings exit 1 (with `--allow-errors`, they are reported and what
    /// loaded runs); a Launch `rules.json`'s findings are reported as warnings (refused with `--strict`).
    func admit(_ check: CheckOptions) throws {
        let unreadable = diagnostics.filter { $0.code == .unreadable }
        if !unreadable.isEmpty {
            for d in unreadable { Stderr.write("error: \(d.message)\n") }
            throw ExitCode(2)
        }
        let refused = refusals(strict: check.strict)
        let lenient = lenient(strict: check.strict)
        if !lenient.isEmpty {
            let shown = lenient.map { d -> Diagnostic in
                var w = d
                w.severity = .warning
                return w
            }
            Stderr.write(render(shown) + "\n")
            Stderr.write(
                "warning: \(lenient.count) finding(s) in Launch rules a device runs anyway (it drops what it cannot run); running them as a device would (--strict refuses them)\n"
            )
        }
        guard !refused.isEmpty else { return }
        Stderr.write(render(refused) + "\n")
        // Rules whose files did not load cannot run at all, whatever the option says.
        if !admits(strict: check.strict, allowErrors: check.allowErrors) {
            let why = hasErrors ? "rules files that do not load" : "--allow-errors runs them anyway"
            Stderr.write("error: the rules have \(refused.count) error(s) (`rulekit lint` shows every finding; \(why))\n")
            throw ExitCode(1)
        }
        Stderr.write("warning: running rules with \(refused.count) error(s) (--allow-errors)\n")
    }
}

/// The options of the commands that run rules: how strict their Check is.
struct CheckOptions: ParsableArguments {
    @Flag(name: .customLong("allow-errors"), help: "Run the rules even when Check finds errors in them (each is reported).")
    var allowErrors = false

    @Flag(
        help: """
            Refuse a Launch rules.json with findings a device would drop silently (by default they are reported \
            and the rules run as a device runs them).
            """)
    var strict = false
}

/// Reads `NAME=FILE` options into shared states.
enum StateOptions {
    static func parse(_ options: [String]) throws(InputError) -> [String: ValueObject] {
        var out: [String: ValueObject] = [:]
        for o in options {
            guard let eq = o.firstIndex(of: "="), eq != o.startIndex else {
                throw .unreadable("expected NAME=FILE, got '\(o)'")
            }
            let name = String(o[..<eq])
            let file = String(o[o.index(after: eq)...])
            let docs = try InputFiles.documents(file)
            guard case .object(let obj)? = docs.first?.value else { throw .unreadable("state file '\(file)' is not an object") }
            out[name] = obj
        }
        return out
    }
}

/// The `--state` and `--xdm-state` options of the commands that evaluate events.
struct StateArguments: ParsableArguments {
    @Option(name: .long, help: "A shared state: NAME=FILE (repeatable).")
    var state: [String] = []

    @Option(name: .customLong("xdm-state"), help: "An XDM shared state: NAME=FILE (repeatable).")
    var xdmState: [String] = []

    /// The states and XDM states by extension name; an unreadable one is reported and exits 2.
    func load() throws -> (states: [String: ValueObject], xdm: [String: ValueObject]) {
        do {
            return (try StateOptions.parse(state), try StateOptions.parse(xdmState))
        } catch {
            if case .unreadable(let m) = error { Stderr.write("error: \(m)\n") }
            if case .invalid(let d, _) = error { Stderr.write(DiagnosticRenderer().render(d.diagnostics) + "\n") }
            throw ExitCode(2)
        }
    }
}

/// Opens a JSON-lines event stream (`-`: standard input); an unreadable one is reported and exits 2.
func openEvents(_ path: String) throws -> JSONLinesReader {
    do { return try JSONLinesReader(path: path) } catch {
        Stderr.write("error: \(error.diagnostics.first?.message ?? "cannot read '\(path)'")\n")
        throw ExitCode(2)
    }
}

/// The `--schemas` folder of the commands that check XDM: a folder the user named must exist (exit 2);
/// the default `Schemas/` may be absent (outside the repository), and then the checks it enables are
/// skipped with a note on standard error, never silently.
enum SchemaFolder {
    static let defaultPath = RuleProject.defaultSchemas

    /// The folder to use, or nil when the default is absent.
    static func resolve(_ given: String?, skipping what: String) throws -> String? {
        var isDir: ObjCBool = false
        let path = given ?? defaultPath
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue { return path }
        if given != nil {
            let exists = FileManager.default.fileExists(atPath: path)
            Stderr.write(exists ? "error: the schema folder '\(path)' is a file, not a folder\n" : "error: no schema folder '\(path)'\n")
            throw ExitCode(2)
        }
        Stderr.write("note: no \(defaultPath)/ folder here: \(what) skipped (give --schemas)\n")
        return nil
    }
}

extension XDMAlignment.Policy: ExpressibleByArgument {}

extension RuleTarget: ExpressibleByArgument {}

/// The `--identity` option of `run` and `serve`: a dotted path into an event's data.
enum IdentityOption {
    /// The path's parts; an empty path, or one with an empty part (`a..b`), is a usage error (exit 2).
    static func parse(_ text: String?) throws -> [String]? {
        guard let text else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            Stderr.write("error: --identity takes a dotted path such as xdm.identityMap.ECID.0.id, not '\(text)'\n")
            throw ExitCode(2)
        }
        return parts
    }
}
