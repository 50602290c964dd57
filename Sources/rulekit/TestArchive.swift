import ArgumentParser
import RuleKitCore
import RuleKitSources
import RuleKitTooling

/// `rulekit test` on a zip (or a URL to one) of rules and their tests: each test entry paired with its rules
/// entries as `RuleProject` pairs files on disk, diagnostics naming `ARCHIVE!ENTRY`.
extension TestCommand {
    /// Runs every test entry of `archive`, counting and writing as for files.
    static func run(_ archive: RuleArchive, _ out: inout StdoutBuffer, _ passed: inout Int, _ failed: inout Int) {
        for test in archive.testEntries {
            let name = archive.name(of: test)
            let (file, found) = RuleTestFile.load(test.bytes, path: name)
            guard let file else {
                failed += 1
                var r = DiagnosticRenderer()
                r.addSource(String(decoding: test.bytes, as: UTF8.self), for: name)
                out.write("FAIL \(name): the test file has errors\n" + r.render(found.filter { $0.severity == .error }) + "\n")
                continue
            }
            let (entries, missing) = archive.rules(forTest: test, named: file.rules)
            let rules = archive.snapshot(entries)
            if !missing.isEmpty || entries.isEmpty || rules.hasErrors {
                failed += 1
                let why =
                    missing.isEmpty ? rules.render(rules.errors) : "no entry '\(missing.joined(separator: "', '"))' in the archive"
                out.write("FAIL \(name): the rules do not load:\n" + why + "\n")
                continue
            }
            for result in RuleTestRunner.run(file, rules) {
                if result.passed { passed += 1 } else { failed += 1 }
                out.write(result.transcript(file: name))
            }
        }
    }

    /// The archive at `path`, or fetched from it (a zip of rules and their tests); exit 2 when it cannot be read.
    static func archive(_ path: String, fetched: [UInt8]?) throws -> RuleArchive {
        do {
            if let fetched { return try RuleArchive.read(fetched, name: RemoteRules.redacted(path)) }
            return try RuleArchive.read(path: path)
        } catch {
            Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
            throw ExitCode(2)
        }
    }
}
