/// Which rules an event can possibly match, so an event only pays for rules that can match it.
///
/// Each rule that requires a string equality (`{key: K, eq: V}` reached through `and` groups and
/// single-member groups) is filed under one of them: the (key, lowercased value) pair shared by the
/// fewest rules, preferring keys many rules use so an event resolves few keys. For an event, each
/// indexed key is resolved once, converted as the matcher would (string, lowercased — the string
/// operators are case-insensitive), and looked up. Rules with historical conditions are never filed
/// (skipping them would skip their history queries, which the reference performs), nor are rules
/// without a usable equality; they are always candidates.
struct RuleIndex: Sendable {
    struct Anchor: Sendable {
        var key: SlotKey
        var rulesByValue: [String: [Int]]
    }

    private(set) var anchors: [Anchor] = []
    private(set) var always: [Int] = []
    let ruleCount: Int

    init(unindexed count: Int) {
        always = Array(0..<count)
        ruleCount = count
    }

    init(_ rules: [PlannedRule]) {
        ruleCount = rules.count
        var options: [[(SlotKey, String)]] = []
        var pairCount: [String: Int] = [:]
        var keyCount: [Int: Int] = [:]
        for r in rules {
            var eqs: [(SlotKey, String)] = []
            if !Self.hasHistorical(r.condition) { Self.requiredEqualities(r.condition, into: &eqs) }
            eqs = eqs.filter { Self.indexable($0.0.ref) }
            options.append(eqs)
            for (k, v) in Set(eqs.map { PairKey(slot: $0.0.slot, value: $0.1) }).map({ ($0.slot, $0.value) }) {
                pairCount["\(k)\u{0}\(v)", default: 0] += 1
                keyCount[k, default: 0] += 1
            }
        }
        var bySlot: [Int: Int] = [:]
        for (i, eqs) in options.enumerated() {
            let best = eqs.min { a, b in
                let ca = pairCount["\(a.0.slot)\u{0}\(a.1)"]!, cb = pairCount["\(b.0.slot)\u{0}\(b.1)"]!
                if ca != cb { return ca < cb }
                return keyCount[a.0.slot]! > keyCount[b.0.slot]!
            }
            guard let (key, value) = best else {
                always.append(rules[i].index)
                continue
            }
            if bySlot[key.slot] == nil {
                bySlot[key.slot] = anchors.count
                anchors.append(Anchor(key: key, rulesByValue: [:]))
            }
            anchors[bySlot[key.slot]!].rulesByValue[value, default: []].append(rules[i].index)
        }
    }

    struct PairKey: Hashable {
        var slot: Int
        var value: String
    }

    /// Keys that are cheap, pure and per-event: worth resolving for every event.
    static func indexable(_ ref: KeyRef) -> Bool {
        switch ref {
        case .type, .source, .data, .state, .xdm: true
        default: false
        }
    }

    /// Candidate rule positions for an event, ascending.
    func candidates(_ r: inout Resolver) -> [Int] {
        if anchors.isEmpty { return always }
        var bits = [UInt64](repeating: 0, count: (ruleCount + 63) / 64)
        for i in always { bits[i >> 6] |= 1 << UInt64(i & 63) }
        for a in anchors {
            let v = r.resolve(a.key) ?? .string("")
            let text: String
            if case .string(let s) = v { text = s } else { text = Conversion.string(v) }
            guard let list = a.rulesByValue[text.lowercased()] else { continue }
            for i in list { bits[i >> 6] |= 1 << UInt64(i & 63) }
        }
        var out: [Int] = []
        for (w, word) in bits.enumerated() where word != 0 {
            var x = word
            while x != 0 {
                let b = x.trailingZeroBitCount
                out.append(w << 6 | b)
                x &= x - 1
            }
        }
        return out
    }

    /// The string equalities a condition requires: every one of them must hold for it to hold.
    static func requiredEqualities(_ c: PlannedCondition, into out: inout [(SlotKey, String)]) {
        switch c {
        case .comparison(let k, .equals, .string(_, let lowered)): out.append((k, lowered))
        case .and(let cs): for x in cs { requiredEqualities(x, into: &out) }
        case .or(let cs) where cs.count == 1: requiredEqualities(cs[0], into: &out)
        default: break
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
