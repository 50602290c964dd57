/// Which rules an event can possibly match, so an event only pays for rules that can match it.
///
/// Each rule is filed under one predicate it requires (reached through `and` groups and single-member
/// groups): a string equality (`eq`), an integer equality (`eq` with an Int value), or a
/// case-insensitive `co`/`sw`/`ew` on ASCII text. The one chosen is the one the fewest rules share,
/// preferring equalities and keys many rules use (so an event resolves few keys). For an event, each
/// indexed key is resolved once and converted as the matcher would (string, lowercased; or `int(...)`);
/// equalities are looked up in a table, patterns found in one Aho–Corasick pass. Rules with historical
/// conditions are never filed (skipping them would skip their history queries, which the reference
/// performs), nor are rules without a usable predicate: they are always candidates. A rule that is a candidate is then evaluated in full, so the index only ever skips
/// rules that could not match.
struct RuleIndex: Sendable {
    enum Mode: UInt8, Sendable, Hashable {
        case equals, contains, startsWith, endsWith
        /// `eq` with an Int value: `int(key) == number`.
        case intEquals

        var isEquality: Bool { self == .equals || self == .intEquals }
    }

    struct Predicate: Hashable {
        var slot: Int
        var mode: Mode
        /// The lowercased text (string modes).
        var value: String
        /// The value of an `intEquals`.
        var number: Int64 = 0
    }

    /// Classes, not structs: iterating them per event then costs one retain, not one per field.
    final class EqualityAnchor: Sendable {
        let key: SlotKey
        /// For text the byte table cannot decide (non-ASCII text, or a non-ASCII key).
        let rulesByValue: [String: [Int]]
        /// The same keys as bytes (nil when one is not ASCII), and their rules in the table's key order.
        let table: ByteKeyTable?
        let tableRules: [[Int]]

        init(key: SlotKey, values: [String], rules: [[Int]]) {
            self.key = key
            var byValue = [String: [Int]](minimumCapacity: values.count)
            for i in values.indices { byValue[values[i]] = rules[i] }
            rulesByValue = byValue
            table = ByteKeyTable(keys: values)
            tableRules = table == nil ? [] : rules
        }
    }

    /// Integer equalities on one key: the rules filed under each value. A key whose `int(...)` conversion
    /// fails lets none of them through (a comparison with a missing side is false).
    final class IntAnchor: Sendable {
        let key: SlotKey
        let rulesByValue: [Int64: [Int]]

        init(key: SlotKey, values: [Int64], rules: [[Int]]) {
            self.key = key
            var byValue = [Int64: [Int]](minimumCapacity: values.count)
            for i in values.indices { byValue[values[i]] = rules[i] }
            rulesByValue = byValue
        }
    }

    final class PatternAnchor: Sendable {
        let key: SlotKey
        let automaton: AhoCorasick
        let modes: [Mode]
        let rulesByPattern: [[Int]]
        let allRules: [Int]
        /// Where in a text its patterns can match: only in the first (all `sw`) or the last (all `ew`)
        /// `window` bytes, or anywhere (`window` nil). The automaton scans only that much.
        let window: Int?
        let fromEnd: Bool

        init(key: SlotKey, automaton: AhoCorasick, modes: [Mode], rulesByPattern: [[Int]], allRules: [Int]) {
            self.key = key
            self.automaton = automaton
            self.modes = modes
            self.rulesByPattern = rulesByPattern
            self.allRules = allRules
            let longest = automaton.lengths.max() ?? 0
            if modes.allSatisfy({ $0 == .startsWith }) {
                (window, fromEnd) = (longest, false)
            } else if modes.allSatisfy({ $0 == .endsWith }) {
                (window, fromEnd) = (longest, true)
            } else {
                (window, fromEnd) = (nil, false)
            }
        }
    }

    var equalities: [EqualityAnchor] = []
    var intEqualities: [IntAnchor] = []
    var patterns: [PatternAnchor] = []
    var always: [Int] = []
    let ruleCount: Int
    /// The slots every event's probe reads (each anchor's key), ascending.
    private(set) var probedSlots: [Int] = []
    /// Those of them read as lowercased text (the keys of string equalities and patterns), ascending.
    private(set) var textSlots: [Int] = []

    /// Whether any rule is filed under a predicate (else every rule is always a candidate).
    var isEmpty: Bool { equalities.isEmpty && intEqualities.isEmpty && patterns.isEmpty }

    init(unindexed count: Int) {
        always = Array(0..<count)
        ruleCount = count
    }

    init(_ rules: [PlannedRule]) {
        ruleCount = rules.count
        // Each rule's usable predicates, as ids of distinct predicates (numbered in first-seen order),
        // kept flat: rule i's are `optionIDs[optionStart[i]..<optionStart[i + 1]]`.
        var optionIDs: [Int] = []
        var optionStart: [Int] = [0]
        optionStart.reserveCapacity(rules.count + 1)
        var ids: [Predicate: Int] = [:]
        var distinct: [Predicate] = []
        var shared: [Int] = []
        var keys: [SlotKey?] = []
        var keyUse: [Int] = []
        var found: [Predicate] = []
        for i in rules.indices {
            found.removeAll(keepingCapacity: true)
            let start = optionIDs.count
            if !Self.collect(rules[i].condition, required: true, keys: &keys, into: &found) {
                for p in found {
                    let id: Int
                    if let known = ids[p] {
                        id = known
                    } else {
                        id = distinct.count
                        ids[p] = id
                        distinct.append(p)
                        shared.append(0)
                    }
                    guard !optionIDs[start...].contains(id) else { continue }
                    optionIDs.append(id)
                    if p.slot >= keyUse.count {
                        keyUse.append(contentsOf: repeatElement(0, count: p.slot + 1 - keyUse.count))
                    }
                    shared[id] += 1
                    keyUse[p.slot] += 1
                }
            }
            optionStart.append(optionIDs.count)
        }
        // Each rule filed under one predicate: the rules of each predicate, in rule order.
        var filed = [[Int]](repeating: [], count: distinct.count)
        for i in rules.indices {
            // Fewest rules let through first; then equalities; then keys many rules use.
            var best = -1
            var bestScore = 0
            var bestEq = false
            var bestUse = 0
            for id in optionIDs[optionStart[i]..<optionStart[i + 1]] {
                let slot = distinct[id].slot
                let mode = distinct[id].mode
                let score = Self.score(mode: mode, length: distinct[id].value.utf8.count, sharedBy: shared[id])
                let eq = mode.isEquality
                let use = keyUse[slot]
                if best < 0 || (score != bestScore ? score < bestScore : (eq != bestEq ? eq : use > bestUse)) {
                    (best, bestScore, bestEq, bestUse) = (id, score, eq, use)
                }
            }
            if best < 0 { always.append(rules[i].index) } else { filed[best].append(rules[i].index) }
        }
        // Per slot, its filed predicates in first-seen order (deterministic, as the plan must be).
        var eqIDs = [[Int]](repeating: [], count: keys.count)
        var intIDs = [[Int]](repeating: [], count: keys.count)
        var patternIDs = [[Int]](repeating: [], count: keys.count)
        for id in distinct.indices where !filed[id].isEmpty {
            switch distinct[id].mode {
            case .equals: eqIDs[distinct[id].slot].append(id)
            case .intEquals: intIDs[distinct[id].slot].append(id)
            default: patternIDs[distinct[id].slot].append(id)
            }
        }
        for slot in eqIDs.indices where !eqIDs[slot].isEmpty {
            let list = eqIDs[slot]
            equalities.append(
                EqualityAnchor(
                    key: keys[slot]!, values: list.map { distinct[$0].value },
                    rules: list.map { filed[$0] }))
        }
        for slot in intIDs.indices where !intIDs[slot].isEmpty {
            let list = intIDs[slot]
            intEqualities.append(
                IntAnchor(key: keys[slot]!, values: list.map { distinct[$0].number }, rules: list.map { filed[$0] }))
        }
        textSlots = keys.indices.filter { !eqIDs[$0].isEmpty || !patternIDs[$0].isEmpty }
        probedSlots = keys.indices.filter { !eqIDs[$0].isEmpty || !patternIDs[$0].isEmpty || !intIDs[$0].isEmpty }
        for slot in patternIDs.indices where !patternIDs[slot].isEmpty {
            let list = patternIDs[slot]
            patterns.append(
                PatternAnchor(
                    key: keys[slot]!, automaton: AhoCorasick(patterns: list.map { Array(distinct[$0].value.utf8) }),
                    modes: list.map { distinct[$0].mode }, rulesByPattern: list.map { filed[$0] },
                    allRules: list.flatMap { filed[$0] }.sorted()))
        }
    }

    /// How many rules a predicate is expected to let through: the rules sharing it, more for very short
    /// patterns (a one-letter `co` matches most text).
    static func score(mode: Mode, length: Int, sharedBy n: Int) -> Int {
        if !mode.isEquality && length < 3 { return n * 50 }
        return n
    }

    /// Notes `k` as the key of its slot (the first seen).
    private static func note(_ k: SlotKey, in keys: inout [SlotKey?]) {
        if k.slot >= keys.count { keys.append(contentsOf: repeatElement(nil, count: k.slot + 1 - keys.count)) }
        if keys[k.slot] == nil { keys[k.slot] = k }
    }

    /// Keys that are cheap, pure and per-event: worth resolving for every event.
    static func indexable(_ ref: KeyRef) -> Bool {
        switch ref {
        case .type, .source, .data, .state, .xdm: true
        default: false
        }
    }

    /// The indexable predicates a condition requires (every one must hold for it to hold), when
    /// `required`, with the key of each slot they read (the first seen); returns whether it holds a
    /// historical condition anywhere (such rules are never filed). One walk for both.
    static func collect(
        _ c: PlannedCondition, required: Bool, keys: inout [SlotKey?],
        into out: inout [Predicate]
    ) -> Bool {
        switch c {
        case .historical:
            return true
        case .and(let cs):
            var historical = false
            for x in cs where collect(x, required: required, keys: &keys, into: &out) { historical = true }
            return historical
        case .or(let cs):
            var historical = false
            for x in cs where collect(x, required: required && cs.count == 1, keys: &keys, into: &out) {
                historical = true
            }
            return historical
        case .unknownLogic(_, let cs):
            return cs.contains { collect($0, required: false, keys: &keys, into: &out) }
        case .comparison(let k, let op, .string(_, let lowered)) where required:
            let mode: Mode? =
                switch op {
                case .equals: .equals
                case .contains: .contains
                case .startsWith: .startsWith
                case .endsWith: .endsWith
                default: nil
                }
            guard let mode, indexable(k.ref) else { return false }
            // Patterns must be non-empty ASCII for the byte automaton; equalities work on any text.
            if mode != .equals && (lowered.isEmpty || !lowered.utf8.allSatisfy({ $0 < 0x80 })) { return false }
            note(k, in: &keys)
            out.append(Predicate(slot: k.slot, mode: mode, value: lowered))
            return false
        case .comparison(let k, .equals, .int(let number)) where required:
            guard indexable(k.ref) else { return false }
            note(k, in: &keys)
            out.append(Predicate(slot: k.slot, mode: .intEquals, value: "", number: number))
            return false
        default:
            return false
        }
    }
}
