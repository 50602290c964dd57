/// Which rules an event can possibly match, by its type and source.
///
/// A rule whose condition requires `~type eq X` (and maybe `~source eq Y`) — through `and` groups and
/// single-member groups — is filed under the lowercased values (the string operators are
/// case-insensitive). Rules with historical conditions are never filed: skipping them would skip their
/// history queries, which the reference performs. Everything else is always a candidate.
struct RuleIndex: Sendable {
    private var byTypeAndSource: [String: [Int]] = [:]
    private var byType: [String: [Int]] = [:]
    private var always: [Int] = []

    init(unindexed count: Int) {
        always = Array(0..<count)
    }

    init(_ rules: [PlannedRule]) {
        for r in rules {
            if Self.hasHistorical(r.condition) {
                always.append(r.index)
                continue
            }
            let type = Self.required(.type, in: r.condition)
            let source = Self.required(.source, in: r.condition)
            switch (type, source) {
            case (let t?, let s?): byTypeAndSource[t + "\u{0}" + s, default: []].append(r.index)
            case (let t?, nil): byType[t, default: []].append(r.index)
            default: always.append(r.index)
            }
        }
    }

    /// Candidate rule positions for an event, ascending.
    func candidates(type: String, source: String) -> [Int] {
        let t = type.lowercased()
        let a = byTypeAndSource[t + "\u{0}" + source.lowercased()] ?? []
        let b = byType[t] ?? []
        if a.isEmpty && b.isEmpty { return always }
        return merge(merge(a, b), always)
    }

    private func merge(_ x: [Int], _ y: [Int]) -> [Int] {
        if x.isEmpty { return y }
        if y.isEmpty { return x }
        var out: [Int] = []
        out.reserveCapacity(x.count + y.count)
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if x[i] < y[j] { out.append(x[i]); i += 1 } else { out.append(y[j]); j += 1 }
        }
        out.append(contentsOf: x[i...])
        out.append(contentsOf: y[j...])
        return out
    }

    /// The lowercased value a condition requires `key` to equal, if it requires one.
    static func required(_ key: KeyRef, in c: PlannedCondition) -> String? {
        switch c {
        case .comparison(let k, .equals, .string(_, let lowered)) where k == key: return lowered
        case .and(let cs): return cs.lazy.compactMap { required(key, in: $0) }.first
        case .or(let cs) where cs.count == 1: return required(key, in: cs[0])
        default: return nil
        }
    }

    static func hasHistorical(_ c: PlannedCondition) -> Bool {
        switch c {
        case .historical: true
        case .and(let cs), .or(let cs), .unknownLogic(_, let cs): cs.contains(where: hasHistorical)
        default: false
        }
    }
}
