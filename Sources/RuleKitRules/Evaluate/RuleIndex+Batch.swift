// Invariants:
// 1. `walk(slot, g)` answers come from group walks over the batch's roots, valid while the caller holds
//    the batch (see `BatchMatching.swift`); texts are read through buffers lent for the call.
// 2. The group probe only ever adds candidates; every candidate is evaluated in full by the interpreter.
internal import RuleKitCore

/// The rule index's probe for a group of events at once (see `Evaluator.forEachMatch`): anchor by
/// anchor, each event's text read where the group walk found it, so an event with no candidate rule
/// costs no resolver pass at all.
extension RuleIndex {
    /// Whether every anchor's key can be read without a resolver (event data, `~type`, `~source`).
    func probesWithoutResolver(_ slots: SlotTable) -> Bool {
        probedSlots.allSatisfy { slots.plans[$0].kind == .data || slots.plans[$0].kind == .type || slots.plans[$0].kind == .source }
    }

    /// Sets `bits[g * words ..< (g + 1) * words]` to event g's candidates, for the `count` events of a
    /// group. `walk(slot, g)` is the group walk of a data slot (nil: only a resolver can tell). An event
    /// whose probe needs the general path (a walk left undecided, text that is not ASCII, keys that are
    /// not) gets `decided[g] = false`, and its bits are then meaningless: the caller probes it alone.
    func markCandidates(
        group events: ArraySlice<Event>, slots: SlotTable, words: Int,
        walk: (Int, Int) -> FlatLookup.Walk?,
        bits: UnsafeMutableBufferPointer<UInt64>, decided: UnsafeMutableBufferPointer<Bool>,
        scratch: inout [UInt8]
    ) {
        let count = events.count
        for g in 0..<count {
            decided[g] = true
            for w in 0..<words { bits[g * words + w] = 0 }
            for i in always { bits[g * words + i >> 6] |= 1 << UInt64(i & 63) }
        }
        @inline(__always) func mark(_ g: Int, _ rule: Int) { bits[g * words + rule >> 6] |= 1 << UInt64(rule & 63) }
        // The lowercased text of one anchor's key for event g, in `scratch`; false when undecided.
        func text(_ slot: Int, _ g: Int) -> Bool {
            scratch.removeAll(keepingCapacity: true)
            let event = events[events.startIndex + g]
            switch slots.plans[slot].kind {
            case .type: SlotForms.append(event.type, to: &scratch)
            case .source: SlotForms.append(event.source, to: &scratch)
            default:
                switch walk(slot, g) {
                case .found(let v): SlotForms.append(of: v, to: &scratch)
                case .missing: return true  // "" (the reference's flattened map has no entry)
                default: return false
                }
            }
            return SlotForms.lowercase(&scratch, from: 0)
        }
        for a in equalities {
            guard a.table != nil else {
                for g in 0..<count { decided[g] = false }
                continue
            }
            for g in 0..<count where decided[g] {
                guard text(a.key.slot, g) else {
                    decided[g] = false
                    continue
                }
                scratch.withUnsafeBufferPointer { t in a.rules(for: t) { mark(g, $0) } }
            }
        }
        for a in intEqualities {
            for g in 0..<count where decided[g] {
                let event = events[events.startIndex + g]
                let v: Int64?
                switch slots.plans[a.key.slot].kind {
                case .type: v = Conversion.int(.string(event.type))
                case .source: v = Conversion.int(.string(event.source))
                default:
                    switch walk(a.key.slot, g) {
                    case .found(let p): v = p.isLeaf ? Conversion.int(p.pointee) : nil
                    case .missing: v = nil  // `int("")`: no value
                    default:
                        decided[g] = false
                        continue
                    }
                }
                guard let v, let list = a.rulesByValue[v] else { continue }
                for i in list { mark(g, i) }
            }
        }
        for a in patterns {
            for g in 0..<count where decided[g] {
                guard text(a.key.slot, g) else {
                    decided[g] = false
                    continue
                }
                scratch.withUnsafeBufferPointer { t in a.rules(for: t) { mark(g, $0) } }
            }
        }
    }
}
