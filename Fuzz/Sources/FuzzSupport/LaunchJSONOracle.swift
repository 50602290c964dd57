// Launch rules.json oracle: one loader (`LaunchRulesLoader`) reads every Launch file, over a tape (JSON
// text the tape takes) or a document with or without source positions. What a file means must not depend
// on how it was read: every reading gives the same rules (locations aside without positions) and the same
// findings, the tape's exactly the located document's; every finding, and every reader error, points
// inside the input.
import RuleKitCore

@testable import RuleKitRules

/// The Launch `rules.json` oracle: the loader means the same with and without positions.
public enum LaunchJSONOracle {
    static let name = "fuzz-launch-json"

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        let limits = Oracle.limits
        let located: RulesLoadResult
        do {
            located = try LaunchRulesLoader.load(json: bytes, file: "r.json", limits: limits)
        } catch {
            Oracle.checkLocations(name, error, in: bytes)
            return
        }
        Oracle.checkLocations(name, DiagnosticError(located.diagnostics), in: bytes)
        let bare: RulesLoadResult
        do {
            bare = LaunchRulesLoader.load(try JSONReader.read(bytes, file: "r.json", limits: limits, keepSourceMap: false))
        } catch {
            Oracle.fail(name, "the text read with positions but not without: \(error)", input: bytes)
        }
        if located.ruleSet?.withoutLocations() != bare.ruleSet?.withoutLocations() {
            Oracle.fail(name, "the rules differ with and without source positions", input: bytes)
        }
        let messages = { (r: RulesLoadResult) in r.diagnostics.map { "\($0.severity) \($0.code) \($0.message)" }.sorted() }
        if messages(located) != messages(bare) {
            Oracle.fail(name, "the findings differ with and without source positions", input: bytes)
        }
        // `load(json:)` reads the text into a tape when the tape takes it: the document with a source map is
        // its plain reference, to the column and the JSON pointer.
        if let mapped = try? LaunchRulesLoader.load(JSONReader.read(bytes, file: "r.json", limits: limits, keepSourceMap: true)),
            mapped.ruleSet != located.ruleSet || mapped.diagnostics != located.diagnostics
        {
            Oracle.fail(name, "the rules or findings read from a tape differ from the document's", input: bytes)
        }
    }
}
