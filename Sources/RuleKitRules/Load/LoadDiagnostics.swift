public import RuleKitCore

/// What a loader produced: the rule set (nil when any error makes the whole source unusable, as the
/// reference refuses a structurally broken `rules.json`) and everything it noticed, sorted.
public struct RulesLoadResult: Sendable {
    /// The rule set, or nil when an error made the source unusable.
    public var ruleSet: RuleSet?
    /// Everything the loader noticed, sorted by location.
    public var diagnostics: [Diagnostic]
    /// What was read, errors or not: never run, but an editor's outline and completion still show the
    /// rules and data elements of a file that is being fixed.
    public var partial: RuleSet?
    /// The format the source was read in, when `RuleSetLoader` told it (a Launch `rules.json` keeps the
    /// reference's leniency when run: what a device drops silently is reported, not refused).
    public var format: RuleSetLoader.Format?

    /// A result with `ruleSet` and its findings; `partial` is what was read (by default, `ruleSet`).
    ///
    /// - Parameters:
    ///   - ruleSet: the rules (nil: an error was found).
    ///   - diagnostics: the findings.
    ///   - partial: what was read (nil: `ruleSet`).
    public init(ruleSet: RuleSet?, diagnostics: [Diagnostic], partial: RuleSet? = nil) {
        self.ruleSet = ruleSet
        self.diagnostics = diagnostics
        self.partial = partial ?? ruleSet
    }

    /// The error findings only.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }

    /// The rule set, or a `DiagnosticError` with the errors.
    public func get() throws(DiagnosticError) -> RuleSet {
        guard let ruleSet else { throw DiagnosticError(errors.isEmpty ? diagnostics : errors) }
        return ruleSet
    }
}

/// Shared helpers of the loaders: typed reads from a cursor, each failure becoming a located diagnostic.
struct LoaderContext {
    var diagnostics = Diagnostics(cap: 500)

    mutating func error(_ code: DiagnosticCode, _ message: String, _ at: some RulesNode) {
        diagnostics.append(.error(code, message, at: at.location, pointer: at.pointer))
    }

    mutating func warning(_ code: DiagnosticCode, _ message: @autoclosure () -> String, _ at: some RulesNode) {
        guard diagnostics.acceptsWarnings else { return diagnostics.countDropped() }
        diagnostics.append(.warning(code, message(), at: at.location, pointer: at.pointer))
    }

    mutating func warnKey(_ code: DiagnosticCode, _ message: @autoclosure () -> String, _ at: some RulesNode) {
        guard diagnostics.acceptsWarnings else { return diagnostics.countDropped() }
        diagnostics.append(.warning(code, message(), at: at.keyLocation, pointer: at.pointer))
    }

    /// Reports keys of `object` outside `known` as warnings (the reference ignores them).
    mutating func unknownKeys<N: RulesNode>(_ object: N, known: Set<String>, what: String) {
        object.forEachMember { k, v in
            if !known.contains(k) { unknownKey(k, object, v, known: known, what: what) }
        }
    }

    /// Reports member `member` of `object`, whose key is outside `known`; its node is made only when the
    /// warning is kept.
    mutating func unknownKey<N: RulesNode>(_ key: String, _ object: N, _ member: N.Member, known: Set<String>, what: String) {
        guard diagnostics.acceptsWarnings else { return diagnostics.countDropped() }
        unknownKey(key, object.node(member), known: known, what: what)
    }

    /// Reports one key outside `known` (for loaders that walk an object's members once).
    mutating func unknownKey(_ key: String, _ at: some RulesNode, known: Set<String>, what: String) {
        guard diagnostics.acceptsWarnings else { return diagnostics.countDropped() }
        let suggestion = closest(key, in: known)
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        diagnostics.append(
            .warning(.rulesUnknownKey, "unknown key '\(key)' in \(what) is ignored\(hint)", at: at.keyLocation, pointer: at.pointer)
                .suggesting(suggestion))
    }

    /// An integer, accepting integral doubles as the reference's decoder does.
    static func integer(_ v: Value) -> Int64? {
        switch v {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }
}

/// The closest candidate by edit distance, if close enough to be a likely typo; of candidates as close,
/// the first in lexicographic order (candidates often come as a `Set`, whose order changes from one run to
/// the next: the same file must get the same hint every time).
///
/// A file with many unknown keys asks this for each against every known key (an editor asks on every
/// keystroke): candidates whose length alone puts them out of reach are passed over, and ASCII text is
/// compared as bytes. `referenceClosest` is the plain form the tests compare it with.
func closest(_ word: String, in candidates: some Sequence<String>) -> String? {
    let lowered = word.lowercased()
    let wordCount = word.count
    let loweredCount = lowered.count
    let ascii = lowered.utf8.allSatisfy { $0 < 0x80 } ? Array(lowered.utf8) : nil
    var best: (String, Int)?
    for c in candidates {
        let limit = max(1, min(wordCount, c.count) / 3)
        let lc = c.lowercased()
        // The distance is at least the difference in length.
        let floor = abs(loweredCount - lc.count)
        if floor > limit { continue }
        if let (_, bd) = best, floor > bd { continue }
        let d: Int
        if let ascii, lc.utf8.allSatisfy({ $0 < 0x80 }) {
            d = levenshtein(ascii, Array(lc.utf8))
        } else {
            d = editDistance(lowered, lc)
        }
        guard d <= limit else { continue }
        if let (b, bd) = best, d > bd || (d == bd && b < c) { continue }
        best = (c, d)
    }
    return best?.0
}

/// `closest` as first written: every candidate's distance, in characters.
func referenceClosest(_ word: String, in candidates: some Sequence<String>) -> String? {
    var best: (String, Int)?
    for c in candidates {
        let d = editDistance(word.lowercased(), c.lowercased())
        guard d <= max(1, min(word.count, c.count) / 3) else { continue }
        if let (b, bd) = best, d > bd || (d == bd && b < c) { continue }
        best = (c, d)
    }
    return best?.0
}

/// The Levenshtein distance between two strings, in characters (for "did you mean").
package func editDistance(_ a: String, _ b: String) -> Int {
    levenshtein(Array(a), Array(b))
}

func levenshtein<E: Equatable>(_ a: [E], _ b: [E]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var prev = Array(0...b.count)
    var cur = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        cur[0] = i
        for j in 1...b.count {
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&prev, &cur)
    }
    return prev[b.count]
}
