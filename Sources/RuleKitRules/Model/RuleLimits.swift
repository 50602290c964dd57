public import RuleKitCore

/// Bounds on a rule set's size, checked when a rules file is loaded, so that planning and evaluation
/// stay proportionate to what a rule author could mean. The readers already bound the bytes, depth and
/// alias expansion of a file (`ReaderLimits`); these bound what the file describes.
public struct RuleLimits: Sendable, Hashable {
    /// Most rules in one set.
    public var maxRules: Int
    /// Most condition nodes (groups, matchers, historical conditions) in one set.
    public var maxConditions: Int
    /// Longest consequence string that holds `{% %}` tokens, in bytes.
    public var maxTemplateBytes: Int

    /// Limits; each defaults to the value shown.
    ///
    /// - Parameters:
    ///   - maxRules: the most rules.
    ///   - maxConditions: the most conditions, nested ones included.
    ///   - maxTemplateBytes: the most bytes of a consequence's templates.
    public init(maxRules: Int = 100_000, maxConditions: Int = 1_000_000, maxTemplateBytes: Int = 1 << 20) {
        self.maxRules = maxRules
        self.maxConditions = maxConditions
        self.maxTemplateBytes = maxTemplateBytes
    }

    /// The limits every rules load uses unless given others.
    public static let `default` = RuleLimits()

    /// The errors of `set` against these limits (empty when within them), located where the limit
    /// was passed.
    ///
    /// - Parameter set: the rules.
    /// - Returns: the errors.
    public func check(_ set: RuleSet) -> [Diagnostic] {
        var out: [Diagnostic] = []
        if set.rules.count > maxRules {
            out.append(
                .error(
                    .limitExceeded, "the rule set has \(set.rules.count) rules, over the limit of \(maxRules)",
                    at: set.rules[maxRules].location))
        }
        var conditions = 0
        var stack: [Condition] = []
        ruleLoop: for rule in set.rules {
            stack.append(rule.condition)
            while let c = stack.popLast() {
                conditions += 1
                if conditions > maxConditions {
                    out.append(
                        .error(
                            .limitExceeded, "the rule set has more than \(maxConditions) conditions",
                            at: c.location ?? rule.location))
                    break ruleLoop
                }
                stack.append(contentsOf: c.definition.conditions ?? [])
            }
        }
        for rule in set.rules {
            for q in rule.consequences {
                if let long = longTemplate(in: .object(q.detail)) {
                    out.append(
                        .error(
                            .limitExceeded,
                            "a consequence string of \(long) bytes holds tokens; templates are limited to \(maxTemplateBytes) bytes",
                            at: q.location ?? rule.location))
                }
            }
        }
        return out
    }

    /// The size of the first over-long string with a `{%` in `value`, if any (iterative: values are
    /// user data).
    func longTemplate(in value: Value) -> Int? {
        var stack = [value]
        while let v = stack.popLast() {
            switch v {
            case .string(let s) where s.utf8.count > maxTemplateBytes && Template.containsOpen(s): return s.utf8.count
            case .array(let a): stack.append(contentsOf: a)
            case .object(let o): for (_, m) in o { stack.append(m) }
            default: break
            }
        }
        return nil
    }
}
