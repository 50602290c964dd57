// YAML reader oracle: libyaml's own event stream (no RuleKit code between it and the bytes) decides
// whether a text is YAML. RuleKit must reject what libyaml rejects; it may reject more only for its
// own documented reasons (limits, duplicate keys, collection keys, bad tags, aliases to no anchor).
// Whatever it accepts must point inside the input and survive JSON and back.
import RuleKitCore
import RuleKitYAML

/// The YAML reader's oracle: it rejects what libyaml rejects, and more only for documented reasons.
public enum YAMLOracle {
    static let name = "fuzz-yaml"

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        let libyaml = YAMLReader.bareEventPull(bytes) != nil
        let docs: [Document]
        do {
            docs = try YAMLReader.readAll(bytes, file: "in.yaml", limits: Oracle.limits)
        } catch {
            Oracle.checkLocations(name, error, in: bytes, yaml: true)
            guard libyaml else { return }
            for d in error.diagnostics where !isOurOwnRefusal(d) {
                Oracle.fail(name, "RuleKit rejects what libyaml accepts: \(d)", input: bytes)
            }
            return
        }
        if !libyaml {
            Oracle.fail(name, "RuleKit accepts what libyaml rejects (\(docs.count) documents)", input: bytes)
        }
        for doc in docs {
            Oracle.checkLocations(name, doc.sourceMap, in: bytes, yaml: true)
            // Every value RuleKit builds has a JSON form that reads back the same.
            JSONOracle.roundTrip(doc.value, bytes)
        }
    }

    /// Refusals that are RuleKit's policy, not YAML syntax.
    static func isOurOwnRefusal(_ d: Diagnostic) -> Bool {
        switch d.code {
        case .limitExceeded, .yamlDuplicateKey, .yamlUnsupported, .yamlBadTag: return true
        case .yamlSyntax: return d.message.contains("refers to no anchor")
        default: return false
        }
    }
}
