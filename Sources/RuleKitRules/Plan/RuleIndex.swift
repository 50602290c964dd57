/// Which rules an event can possibly match, so an event only pays for rules that can match it.
///
/// Each rule is filed under one predicate it requires (reached through `and` groups and single-member
/// groups): a string equality (`eq`), or a case-insensitive `co`/`sw`/`ew` on ASCII text. The one
/// chosen is the one the fewest rules share, preferring equalities and keys many rules use (so an event
/// resolves few keys). For an event, each indexed key is resolved once and converted as the matcher
/// would (string, lowercased); equalities are looked up in a table, patterns found in one Aho–Corasick
/// pass. Rules with historical conditions are never filed (skipping them would skip their history
/// queries, which the reference performs), nor are rules without a usable predicate: they are always
/// candidates. A rule that is a candidate is then evaluated in full, so the index only ever skips
/// rules that could not match.
struct RuleIndex: Sendable {
    enum Mode: UInt8, Sendable, Hashable {
        case equals, contains, startsWith, endsWith
    }

    struct Predicate: Hashable {
        var slot: Int
        var mode: Mode
        var value: String
    }

    /// Classes, not structs: iterating them per event then costs one retain, not one per field.
    final class EqualityAnchor: Sendable {
        let key: SlotKey
        let rulesByValue: [String: [Int]]
        /// The same keys as bytes (nil when one is not ASCII), and their rules in the table's key order.
        let table: ByteKeyTable?
        let tableRules: [[Int]]

        init(key: SlotKey, rulesByValue: [String: [Int]]) {
            self.key = key
            self.rulesByValue = rulesByValue
            let keys = Array(rulesByValue.keys)
            table = ByteKeyTable(keys: keys)
            tableRules = table == nil ? [] : keys.map { rulesByValue[$0]! }
        }

        /// The rules filed under `text` (lowercased ASCII); only for an anchor with a `table`.
        @inline(__always)
        func rules(for text: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Void) {
            guard let table, let e = table.find(text) else { return }
            for i in tableRules[e] { body(i) }
        }
    }

    final class PatternAnchor: Sendable {
        let key: SlotKey
        let automaton: AhoCorasick
        let modes: [Mode]
        let rulesByPattern: [[Int]]
        let allRules: [Int]

        init(key: SlotKey, automaton: AhoCorasick, modes: [Mode], rulesByPattern: [[Int]], allRules: [Int]) {
            self.key = key
            self.automaton = automaton
            self.modes = modes
            self.rulesByPattern = rulesByPattern
            self.allRules = allRules
        }

        /// The rules some pattern of which `text` (lowercased ASCII) matches, in one automaton pass.
        @inline(__always)
        func rules(for text: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Void) {
            automaton.scan(text) { pid, end in
                let ok: Bool = switch modes[pid] {
                case .contains, .equals: true
                case .startsWith: end == automaton.lengths[pid]
                case .endsWith: end == text.count
                }
                if ok { for i in rulesByPattern[pid] { body(i) } }
            }
        }
    }

    private(set) var equalities: [EqualityAnchor] = []
    private(set) var patterns: [PatternAnchor] = []
    private(set) var always: [Int] = []
    let ruleCount: Int
    /// The slots every event's probe reads (each anchor's key), ascending.
    private(set) var probedSlots: [Int] = []

    init(unindexed count: Int) {
        always = Array(0..<count)
        ruleCount = count
    }

    init(_ rules: [PlannedRule]) {
        ruleCount = rules.count
        // Each rule's usable predicates (deduplicated, as ids of distinct predicates, kept flat: rule i's
        // are `optionIDs[optionStart[i]..<optionStart[i + 1]]`), and per slot its key and how many
        // predicates use it. Slots are small dense integers: arrays, not dictionaries, hold what is per
        // slot or per predicate, so a predicate costs one hash (its id), however often it is looked at.
        var optionIDs: [Int] = []
        var optionStart: [Int] = [0]
        optionStart.reserveCapacity(rules.count + 1)
        var ids: [Predicate: Int] = [:]
        var distinct: [Predicate] = []
        var shared: [Int] = []
        var keys: [SlotKey?] = []
        var keyUse: [Int] = []
        var found: [(SlotKey, Predicate)] = []
        for i in rules.indices {
            found.removeAll(keepingCapacity: true)
            let start = optionIDs.count
            if !Self.collect(rules[i].condition, required: true, into: &found) {
                for (k, p) in found where Self.indexable(k.ref) {
                    let id: Int
                    if let known = ids[p] { id = known } else {
                        id = distinct.count
                        ids[p] = id
                        distinct.append(p)
                        shared.append(0)
                    }
                    guard !optionIDs[start...].contains(id) else { continue }
                    optionIDs.append(id)
                    if p.slot >= keys.count {
                        keys.append(contentsOf: repeatElement(nil, count: p.slot + 1 - keys.count))
                        keyUse.append(contentsOf: repeatElement(0, count: p.slot + 1 - keyUse.count))
                    }
                    if keys[p.slot] == nil { keys[p.slot] = k }
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
            var bestScore = 0, bestEq = false, bestUse = 0
            for id in optionIDs[optionStart[i]..<optionStart[i + 1]] {
                let p = distinct[id]
                let score = Self.score(p, sharedBy: shared[id]), eq = p.mode == .equals, use = keyUse[p.slot]
                if best < 0 || (score != bestScore ? score < bestScore : (eq != bestEq ? eq : use > bestUse)) {
                    (best, bestScore, bestEq, bestUse) = (id, score, eq, use)
                }
            }
            if best < 0 { always.append(rules[i].index) } else { filed[best].append(rules[i].index) }
        }
        var eqBuild: [[String: [Int]]?] = Array(repeating: nil, count: keys.count)
        var patternBuild: [[Predicate: [Int]]?] = Array(repeating: nil, count: keys.count)
        for id in distinct.indices where !filed[id].isEmpty {
            let p = distinct[id]
            if p.mode == .equals {
                if eqBuild[p.slot] == nil { eqBuild[p.slot] = [:] }
                eqBuild[p.slot]![p.value] = filed[id]
            } else {
                if patternBuild[p.slot] == nil { patternBuild[p.slot] = [:] }
                patternBuild[p.slot]![p] = filed[id]
            }
        }
        for slot in eqBuild.indices {
            guard let byValue = eqBuild[slot] else { continue }
            equalities.append(EqualityAnchor(key: keys[slot]!, rulesByValue: byValue))
        }
        probedSlots = keys.indices.filter { eqBuild[$0] != nil || patternBuild[$0] != nil }
        for slot in patternBuild.indices {
            guard let byPredicate = patternBuild[slot] else { continue }
            let ordered = byPredicate.sorted { ($0.key.value, $0.key.mode.rawValue) < ($1.key.value, $1.key.mode.rawValue) }
            patterns.append(PatternAnchor(
                key: keys[slot]!, automaton: AhoCorasick(patterns: ordered.map { Array($0.key.value.utf8) }),
                modes: ordered.map(\.key.mode), rulesByPattern: ordered.map(\.value),
                allRules: ordered.flatMap(\.value).sorted()))
        }
    }

    /// How many rules a predicate is expected to let through: the rules sharing it, more for very short
    /// patterns (a one-letter `co` matches most text).
    static func score(_ p: Predicate, sharedBy n: Int) -> Int {
        if p.mode != .equals && p.value.utf8.count < 3 { return n * 50 }
        return n
    }

    /// Keys that are cheap, pure and per-event: worth resolving for every event.
    static func indexable(_ ref: KeyRef) -> Bool {
        switch ref {
        case .type, .source, .data, .state, .xdm: true
        default: false
        }
    }

    /// Calls `body` with each candidate rule position for an event, ascending. The candidate set is a
    /// bit set kept in the resolver between events, so an event allocates nothing here.
    func forEachCandidate(_ r: inout Resolver, slots: SlotTable, _ body: (Int, inout Resolver) -> Void) {
        if equalities.isEmpty && patterns.isEmpty {
            for i in always { body(i, &r) }
            return
        }
        var bits = r.takeCandidateBits(words: (ruleCount + 63) / 64)
        markCandidates(&bits, &r, slots: slots)
        for w in bits.indices where bits[w] != 0 {
            var x = bits[w]
            bits[w] = 0
            while x != 0 {
                body(w << 6 | x.trailingZeroBitCount, &r)
                x &= x - 1
            }
        }
        r.returnCandidateBits(bits)
    }

    private func markCandidates(_ bits: inout [UInt64], _ r: inout Resolver, slots: SlotTable) {
        // Every probed key's string form first; the loops below only read them (no call into the
        // resolver between them, so the anchors are read without reference counting).
        for slot in probedSlots { _ = r.stringForm(slot, slots) }
        bits.withUnsafeMutableBufferPointer { bits in
            @inline(__always) func set(_ i: Int) { bits[i >> 6] |= 1 << UInt64(i & 63) }
            for i in always { set(i) }
            r.forms.pool.withUnsafeBufferPointer { pool in
                func text(_ slot: Int) -> UnsafeBufferPointer<UInt8>? {
                    let len = Int(r.forms.stringLength[slot]), off = Int(r.forms.stringOffset[slot])
                    return len < 0 ? nil : UnsafeBufferPointer(rebasing: pool[off..<(off + len)])
                }
                for a in equalities {
                    // ASCII text against ASCII keys: the bytes of the slot's lowercased form decide (the
                    // rest takes the String path below).
                    guard a.table != nil, let t = text(a.key.slot) else { continue }
                    a.rules(for: t, set)
                }
                for a in patterns {
                    // Non-ASCII text: the byte automaton cannot decide; every rule filed here is a candidate.
                    guard let t = text(a.key.slot) else { a.allRules.forEach(set); continue }
                    a.rules(for: t, set)
                }
            }
            for a in equalities where a.table == nil || r.forms.stringLength[a.key.slot] < 0 {
                let v = r.resolve(a.key) ?? .string("")
                let text: String
                if case .string(let s) = v { text = s } else { text = Conversion.string(v) }
                guard let list = a.rulesByValue[text.lowercased()] else { continue }
                for i in list { set(i) }
            }
        }
    }

    /// The predicates a condition requires (every one must hold for it to hold), when `required`; returns
    /// whether it holds a historical condition anywhere (such rules are never filed). One walk for both.
    static func collect(_ c: PlannedCondition, required: Bool, into out: inout [(SlotKey, Predicate)]) -> Bool {
        switch c {
        case .historical:
            return true
        case .and(let cs):
            var historical = false
            for x in cs where collect(x, required: required, into: &out) { historical = true }
            return historical
        case .or(let cs):
            var historical = false
            for x in cs where collect(x, required: required && cs.count == 1, into: &out) { historical = true }
            return historical
        case .unknownLogic(_, let cs):
            return cs.contains { collect($0, required: false, into: &out) }
        case .comparison where required:
            requiredPredicates(c, into: &out)
            return false
        default:
            return false
        }
    }

    /// The predicates a condition requires: every one must hold for it to hold.
    static func requiredPredicates(_ c: PlannedCondition, into out: inout [(SlotKey, Predicate)]) {
        switch c {
        case .comparison(let k, let op, .string(_, let lowered)):
            let mode: Mode? = switch op {
            case .equals: .equals
            case .contains: .contains
            case .startsWith: .startsWith
            case .endsWith: .endsWith
            default: nil
            }
            guard let mode else { return }
            // Patterns must be non-empty ASCII for the byte automaton; equalities work on any text.
            if mode != .equals && (lowered.isEmpty || !lowered.utf8.allSatisfy({ $0 < 0x80 })) { return }
            out.append((k, Predicate(slot: k.slot, mode: mode, value: lowered)))
        case .and(let cs): for x in cs { requiredPredicates(x, into: &out) }
        case .or(let cs) where cs.count == 1: requiredPredicates(cs[0], into: &out)
        default: break
        }
    }
}
