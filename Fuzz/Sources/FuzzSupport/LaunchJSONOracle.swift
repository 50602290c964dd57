// Launch rules.json oracle: the byte-level fast path (`LaunchJSONFastPath`) and the document loader
// (`LaunchRulesLoader` over a parsed document) are two readers of one format. The fast path may
// decline a file, never disagree: when it takes one, the document loader finds nothing wrong with it
// and builds the same rules, locations included; and the public entry point answers as the document
// loader does.
import RuleKitCore

@testable import RuleKitRules

/// The Launch `rules.json` oracle: the byte-level fast path declines or agrees with the document loader.
public enum LaunchJSONOracle {
    static let name = "fuzz-launch-json"

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        let limits = Oracle.limits
        let fast = LaunchJSONFastPath.load(bytes, file: "r.json", limits: limits)
        let viaDocument: RulesLoadResult
        do {
            viaDocument = LaunchRulesLoader.load(try JSONReader.read(bytes, file: "r.json", limits: limits, keepSourceMap: true))
        } catch {
            if fast != nil { Oracle.fail(name, "the fast path took a text that is not JSON: \(error)", input: bytes) }
            Oracle.checkLocations(name, error, in: bytes)
            return
        }
        if let fast {
            if !viaDocument.diagnostics.isEmpty {
                Oracle.fail(name, "the fast path took a file with findings: \(viaDocument.diagnostics)", input: bytes)
            }
            if fast != viaDocument.ruleSet {
                Oracle.fail(name, "the fast path built other rules than the document loader", input: bytes)
            }
        }
        let entry: RulesLoadResult
        do {
            entry = try LaunchRulesLoader.load(json: bytes, file: "r.json", limits: limits)
        } catch {
            Oracle.fail(name, "load(json:) threw on JSON the document loader read: \(error)", input: bytes)
        }
        if entry.ruleSet != viaDocument.ruleSet || entry.diagnostics != viaDocument.diagnostics {
            Oracle.fail(name, "load(json:) differs from the document loader", input: bytes)
        }
        Oracle.checkLocations(name, DiagnosticError(viaDocument.diagnostics), in: bytes)
    }
}
