// The rule index's probe for one event: each anchor's key read in its lowercased string form, looked up
// in the byte table or scanned by the automaton in place.
//
// Invariants:
// 1. The texts are slices of the resolver's string-form pool, lent for the probe
//    (`withUnsafeBufferPointer`); no call into the resolver happens while they are lent, so the pool does
//    not move under them.
// 2. The probe only adds candidates: every candidate is evaluated in full by the interpreter, and a rule
//    is skipped only when one of its required predicates cannot hold. The oracle tests and the fuzzer
//    compare the index with a scan of every rule on every input.
internal import RuleKitCore

extension RuleIndex.EqualityAnchor {
    /// The rules filed under `text` (lowercased ASCII); only for an anchor with a `table`.
    @inline(__always)
    func rules(for text: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Void) {
        guard let table, let e = table.find(text) else { return }
        for i in tableRules[e] { body(i) }
    }
}

extension RuleIndex.PatternAnchor {
    /// The rules some pattern of which `text` (lowercased ASCII) matches, in one automaton pass (over the
    /// text's first or last bytes only when every pattern is a prefix, or every one a suffix).
    @inline(__always)
    func rules(for whole: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Void) {
        var text = whole
        if let window, window < whole.count {
            // A match of a pattern no longer than `window` at the start (end) lies within the first (last)
            // `window` bytes; positions below are then relative to that slice, as the checks expect.
            text = UnsafeBufferPointer(rebasing: fromEnd ? whole[(whole.count - window)...] : whole[..<window])
        }
        automaton.scan(text) { pid, end in
            let ok: Bool =
                switch modes[pid] {
                case .contains, .equals: true
                case .startsWith: end == automaton.lengths[pid]
                case .endsWith: end == text.count
                case .intEquals: false  // never a pattern
                }
            if ok { for i in rulesByPattern[pid] { body(i) } }
        }
    }
}

extension RuleIndex {
    /// Calls `body` with each candidate rule position for an event, ascending. The candidate set is a
    /// bit set kept in the resolver between events, so an event allocates nothing here.
    func forEachCandidate(_ r: inout Resolver, slots: SlotTable, _ body: (Int, inout Resolver) -> Void) {
        if isEmpty {
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

    func markCandidates(_ bits: inout [UInt64], _ r: inout Resolver, slots: SlotTable) {
        // Every probed key's string form first; the loops below only read them (no call into the
        // resolver between them, so the anchors are read without reference counting). The event-data
        // keys among them are walked together first.
        r.prewalk(probedSlots, slots)
        for slot in textSlots { _ = r.stringForm(slot, slots) }
        bits.withUnsafeMutableBufferPointer { bits in
            @inline(__always) func set(_ i: Int) { bits[i >> 6] |= 1 << UInt64(i & 63) }
            for i in always { set(i) }
            r.forms.pool.withUnsafeBufferPointer { pool in
                func text(_ slot: Int) -> UnsafeBufferPointer<UInt8>? {
                    let len = Int(r.forms.stringLength[slot])
                    let off = Int(r.forms.stringOffset[slot])
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
                    guard let t = text(a.key.slot) else {
                        a.allRules.forEach(set)
                        continue
                    }
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
            for a in intEqualities {
                guard let v = r.intForm(a.key.slot, slots), let list = a.rulesByValue[v] else { continue }
                for i in list { set(i) }
            }
        }
    }
}
