public import RuleKitCore
public import RuleKitRules
internal import RuleKitSources
public import RuleKitTooling
public import RuleKitYAML

/// What a check of one file found out: its findings and what it defines (rules, data elements, test cases),
/// for completion, hover and navigation.
public struct FileFacts: Sendable {
    /// The file's path.
    public var path: String
    /// The rules and data elements it defines (nil: a test file, or rules that did not load).
    public var ruleSet: RuleSet?
    /// The test file read (nil: a rules file, or a test file with errors).
    public var tests: RuleTestFile?
}

/// One check of one file's text: what `rulekit lint` reports for a rules file (loaders, planner, Launch
/// traps, keys and types against the schemas, ids repeated across the workspace), what `rulekit test`
/// reports before running for a test file.
public enum DocumentCheck {
    /// Checks `bytes` as the file `path`. `others` are the workspace's other rules files (a rule id used
    /// twice is found across files, as `rulekit lint Rules/` finds it); only `path`'s findings are returned.
    /// `isCancelled` is asked between the phases: a newer text makes this one's findings worthless.
    /// `publish`, when given, hears the findings before the check's working data (the loaded files, the
    /// plans) is freed: freeing a thousand rules' worth takes a tenth of a check, which need not stand
    /// between a keystroke and its diagnostics. `events`, for a YAML rules file, are libyaml's events of
    /// `bytes` (`YAMLEventLog`, updated from the last check's): the tape is built from them.
    public static func run(
        path: String, kind: DocumentKind, bytes: [UInt8], linter: Linter, others: [(path: String, bytes: [UInt8])] = [],
        events: YAMLEventLog? = nil,
        isCancelled: () -> Bool = { false }, publish: ((_ diagnostics: [Diagnostic], _ facts: FileFacts) -> Void)? = nil
    ) -> (diagnostics: [Diagnostic], facts: FileFacts)? {
        let result: (diagnostics: [Diagnostic], facts: FileFacts)
        switch kind {
        case .rules:
            var files = RuleFiles()
            files.add(bytes, file: path, events: events)
            for o in others where o.path != path { files.add(o.bytes, file: o.path) }
            if isCancelled() { return nil }
            let snapshot = RuleSnapshot(sources: [path], files: files, context: linter)
            if isCancelled() { return nil }
            let found = snapshot.findings.filter { $0.location == nil || $0.location?.file == path }
            let set = files.sets.first { $0.path == path }?.set ?? files.unloaded.first { $0.path == path }?.set
            result = (found, FileFacts(path: path, ruleSet: set))
            publish?(result.diagnostics, result.facts)
            // The snapshot lives to here, after the findings went out.
            withExtendedLifetime((snapshot, files)) {}
            return result
        case .ruleTests:
            let (tests, found) = RuleTestFile.load(bytes, path: path)
            result = (found, FileFacts(path: path, tests: tests))
        case .schema, .other:
            result = ([], FileFacts(path: path))
        }
        publish?(result.diagnostics, result.facts)
        return result
    }
}
