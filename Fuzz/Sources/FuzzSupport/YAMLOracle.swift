// YAML reader oracle: libyaml's own event stream (no RuleKit code between it and the bytes) decides
// whether a text is YAML. RuleKit must reject what libyaml rejects; it may reject more only for its
// own documented reasons (limits, duplicate keys, collection keys, bad tags, aliases to no anchor).
// Whatever it accepts must point inside the input and survive JSON and back. And the event pull on a
// second thread (used for large inputs) must build exactly what the pull on one thread builds. A tape
// (`YAMLReader.tape`) is made only of a text read as one document, and holds exactly its value, its
// warnings and its source map's positions. An editor's event log (`YAMLEventLog`) spliced after an edit
// holds exactly the events a fresh read of the edited text gives.
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
        sameSplice(bytes)
        let libyaml = YAMLReader.bareEventPull(bytes) != nil
        let docs: [Document]
        do {
            docs = try YAMLReader.readAll(bytes, file: "in.yaml", limits: Oracle.limits)
        } catch {
            if YAMLReader.tape(bytes, file: "in.yaml", limits: Oracle.limits) != nil {
                Oracle.fail(name, "a tape of a text the document reader rejects: \(error.diagnostics)", input: bytes)
            }
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
        sameTape(bytes, docs)
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

    /// The tape of `bytes`, if one is made, against the one document read: value, warnings, positions.
    static func sameTape(_ bytes: [UInt8], _ docs: [Document]) {
        guard let (tape, warnings) = YAMLReader.tape(bytes, file: "in.yaml", limits: Oracle.limits) else { return }
        guard docs.count == 1, let doc = docs.first else { Oracle.fail(name, "a tape of \(docs.count) documents", input: bytes) }
        if "\(Value.object(tape.object()))" != "\(doc.value)" || warnings != doc.warnings {
            Oracle.fail(name, "the tape differs from the document: \(tape.object()) vs \(doc.value)", input: bytes)
        }
        // Positions in document order: the source map's entries, each a value's place or its key's.
        var fromMap: [String] = []
        func walk(_ c: ValueCursor, key: Bool) {
            if key, let k = c.keyLocation { fromMap.append("\(k.line):\(k.column)") }
            fromMap.append(c.location.map { "\($0.line):\($0.column)" } ?? "?")
            if case .object = c.value { c.forEachMember { _, m in walk(m, key: true) } }
            if case .array = c.value { c.forEachElement { _, e in walk(e, key: false) } }
        }
        walk(doc.root, key: false)
        let fromTape = tape.positions.map { "\($0.line):\($0.column)" }
        if fromTape != fromMap {
            Oracle.fail(name, "the tape's positions differ from the source map's: \(fromTape) vs \(fromMap)", input: bytes)
        }
    }

    /// A rules text the splice is tried on when the input does not bring its own.
    static let rulesText = Array(
        """
        version: 1
        shared:
          c: &c {key: '~type', eq: a}
        rules:
        - id: one
          when: {all: [*c, {key: xdm.a, gt: 1}]}
          note: "two
            lines"
        # between
        - id: two
          when:
            any:
            - {key: xdm.b, eq: 'it''s'}
          text: |
            kept

        after: 1

        """.utf8)

    /// The input as a text and an edit of it (the text before a zero byte, or `rulesText`; after it, where
    /// the edit goes, how many bytes it cuts and what it puts in): a log spliced from the text's is the
    /// edited text's, event for event.
    static func sameSplice(_ bytes: [UInt8]) {
        let zero = bytes.firstIndex(of: 0)
        let text = zero.map { Array(bytes[..<$0]) } ?? rulesText
        let edit = zero.map { Array(bytes[($0 + 1)...]) } ?? bytes
        guard edit.count >= 3, let log = YAMLEventLog.record(text, limits: Oracle.limits) else { return }
        let at = (Int(edit[0]) << 8 | Int(edit[1])) % (text.count + 1)
        let cut = min(Int(edit[2] & 7), text.count - at)
        var new = text
        new.replaceSubrange(at..<(at + cut), with: edit[3...])
        guard let spliced = log.updated(to: new, limits: Oracle.limits) else { return }
        guard let fresh = YAMLEventLog.record(new, limits: Oracle.limits), spliced == fresh else {
            Oracle.fail(name, "a spliced event log differs from the edited text's", input: bytes)
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
