// YAML reader oracle: libyaml's own event stream (no RuleKit code between it and the bytes) decides
// whether a text is YAML. RuleKit must reject what libyaml rejects; it may reject more only for its
// own documented reasons (limits, duplicate keys, collection keys, bad tags, aliases to no anchor).
// Whatever it accepts must point inside the input and survive JSON and back. And the event pull on a
// second thread (used for large inputs) must build exactly what the pull on one thread builds.
import RuleKitCore

@testable import RuleKitYAML

/// The YAML reader's oracle: it rejects what libyaml rejects, and more only for documented reasons.
public enum YAMLOracle {
    static let name = "fuzz-yaml"

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        // One input in 32, chosen by content (a replayed input is checked the same way): starting a
        // thread per input under AddressSanitizer would cut the target's speed about fourfold.
        if bytes.reduce(UInt32(2_166_136_261), { ($0 ^ UInt32($1)) &* 16_777_619 }) & 31 == 0 { samePipelined(bytes) }
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

    /// The pipelined reader (forced: fuzz inputs are below its size threshold) against the sequential one:
    /// the same documents, source maps and warnings, or the same error.
    static func samePipelined(_ bytes: [UInt8]) {
        func outcome(_ pipelined: Bool) -> String {
            do {
                let docs = try LibYAMLParser.parse(bytes, file: "in.yaml", limits: Oracle.limits, pipelined: pipelined)
                return docs.map { "\($0.value) \($0.sourceMap?.entries ?? []) \($0.warnings)" }.joined(separator: "\n")
            } catch {
                return "\(error.diagnostics)"
            }
        }
        let sequential = outcome(false)
        let pipelined = outcome(true)
        if sequential != pipelined {
            Oracle.fail(
                name, "the pipelined reader differs:\n\(pipelined.prefix(600))\nsequential:\n\(sequential.prefix(600))", input: bytes)
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
