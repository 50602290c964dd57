// Where Adobe's web rules engine (`adobe/aepsdk-rulesengine-typescript`, which the Web SDK runs) and the
// mobile one (the reference RuleKit follows) answer the same condition differently. A rule set published to
// both kinds of property means one thing on a phone and another in a browser; `rulekit lint --target both`
// names each such condition with both answers. The facts, from each engine's matchers:
// - `ne`/`nc`: web reads the key and answers false when it is missing (or falsy); mobile reads a missing key
//   as "" and answers true.
// - `co`/`nc`/`sw`/`ew` with a boolean value: web compares the texts ("true"); mobile has these operators for
//   strings only, so a boolean value never matches (and `nc` is false too).
// - `ex`/`nx`: web counts a null value as absent; mobile counts a null leaf as present.
// - historical conditions: web finds each mask's events by its type (`iam.eventType`, `eventType` or
//   `type`) and id (`iam.id` or `id`) and counts none for a mask without both; mobile hashes the whole
//   mask, whatever its keys are named.
public import RuleKitCore

/// Which engines a rule set is meant for.
public enum RuleTarget: String, Sendable, Hashable, CaseIterable {
    /// The mobile SDKs' engine (the reference RuleKit runs): no cross-engine findings.
    case mobile
    /// The Web SDK's engine.
    case web
    /// Both: every condition the two engines answer differently is a finding.
    case both
}

extension DiagnosticCode {
    /// `ne`/`nc` on a key that may be missing: true on mobile, false on web.
    public static let targetMissingKeyNegation: DiagnosticCode = "target.missing-key-negation"
    /// A string matcher given a boolean value: never true on mobile, compared as text on web.
    public static let targetBooleanStringMatcher: DiagnosticCode = "target.boolean-string-matcher"
    /// `ex`/`nx` on a key whose value may be null: present on mobile, absent on web.
    public static let targetNullExistence: DiagnosticCode = "target.null-existence"
    /// A historical mask without the type and id keys the web engine finds events by: never counted on web.
    public static let targetHistoryMaskKeys: DiagnosticCode = "target.history-mask-keys"
}

extension RuleCheck {
    /// The findings of matcher `m` where the web and mobile engines differ (`target` `.web` or `.both`).
    ///
    /// - Parameters:
    ///   - m: the matcher, as planned.
    ///   - rule: the rule's label, for messages.
    ///   - out: where the findings go.
    public static func targetDifferences(_ m: PlannedMatcher, rule: String, into out: inout [Diagnostic]) {
        let (key, path, op, values, guarded) = (m.key, m.path, m.operation, m.values, m.guarded)
        let code = op.code
        if op == .notEquals || op == .notContains, !guarded.contains(key), path != "~type", path != "~source" {
            out.append(
                .warning(
                    .targetMissingKeyNegation,
                    "rule \(rule): '\(code)' on '\(key)' when the key is missing is true on mobile (a missing key reads as \"\") and false on web (a missing value never matches); add {key: \(key), ex: true} so both agree",
                    at: m.location))
        }
        if [.contains, .notContains, .startsWith, .endsWith].contains(op), values.contains(where: { $0.boolValue != nil }) {
            out.append(
                .warning(
                    .targetBooleanStringMatcher,
                    "rule \(rule): '\(code)' with a boolean value is never true on mobile (it compares strings only) and compares the texts (\"true\"/\"false\") on web; write the value as a string",
                    at: m.location))
        }
        if op == .exists || op == .notExist, !path.hasPrefix("~") {
            out.append(
                Diagnostic(
                    .note, .targetNullExistence,
                    "rule \(rule): '\(code)' on '\(key)' when its value is null: mobile counts it as present, web as absent",
                    at: m.location))
        }
    }

    /// The web engine's keys for a historical mask's event type and id, in the order it reads them.
    static let webTypeKeys = ["iam.eventType", "eventType", "type"]
    static let webIDKeys = ["iam.id", "id"]

    /// The findings of historical condition `h` where the web and mobile engines differ: each mask
    /// without a type key and an id key the web engine reads.
    ///
    /// - Parameters:
    ///   - h: the historical condition, as planned.
    ///   - rule: the rule's label, for messages.
    ///   - out: where the findings go.
    public static func targetHistoryDifferences(_ h: PlannedHistoricalSource, rule: String, into out: inout [Diagnostic]) {
        for (i, mask) in h.masks.enumerated() {
            let keys = Set(Flatten.object(mask, arrays: true).keys)
            let type = webTypeKeys.contains(where: keys.contains)
            let id = webIDKeys.contains(where: keys.contains)
            guard !type || !id else { continue }
            let missing = [
                type ? nil : "a type (\(webTypeKeys.joined(separator: ", ")))", id ? nil : "an id (\(webIDKeys.joined(separator: ", ")))",
            ]
            .compactMap { $0 }.joined(separator: " and ")
            out.append(
                .warning(
                    .targetHistoryMaskKeys,
                    "rule \(rule): history mask \(i + 1) has no \(missing): mobile counts the events recorded with it, web finds events by type and id and counts none",
                    at: h.location))
        }
    }
}
