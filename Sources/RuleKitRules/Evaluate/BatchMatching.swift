// Invariants:
// 1. The roots of a group are views lent by `ValueObject.withViews(of:)` for the group's closure, and the
//    walks made from them are used only inside it (the next group overwrites them before reading).
// 2. The resolver gets each event's data lent for its own pass (`Resolver.borrowingData`).
// The plain reference is event-by-event matching (`Evaluator.matchingRules`), which tests and the fuzzer
// compare with on every input.
public import RuleKitCore

/// Matching many events against one rule set: the same answers as `Evaluator.matchingRules` event by
/// event, faster on streams whose data is out of cache.
///
/// One event at a time, the rule index's key walks wait on memory at each level of each object in turn
/// (`xdm` → `commerce` → `order` → `priceTotal`, each object a separate allocation); on 10,000 parsed
/// events (40 MB) that waiting is most of an event's cost. Here the walks of a group of events advance
/// level by level across the group, so the loads of different events are independent and the processor
/// overlaps their waits. The index is then probed anchor by anchor for the whole group, and only an event
/// with candidate rules is evaluated (as usual, its index keys already walked).
extension Evaluator {
    /// Events per group: enough loads in flight to overlap their waits, few enough that the group's
    /// walked objects are still in cache when its events are evaluated.
    static let batchGroup = 16

    /// Calls `body(event, rule)` for each rule of `set` that matches each event, in event order and rule
    /// order within an event (positions in `events` and in `set.rules`). `r` is reset for every event; its
    /// runtime answers shared-state keys and the clock as in per-event matching.
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - events: the events.
    ///   - r: the resolver (reset for each event).
    ///   - body: hears each match: the event's and the rule's positions.
    public static func forEachMatch(
        _ set: CompiledRuleSet, events: [Event], _ r: inout Resolver, _ body: (_ event: Int, _ rule: Int) -> Void
    ) {
        let slots = set.program.slots
        // The index's keys that walk event data: walked ahead, group by group.
        let walked = set.index.probedSlots.filter { slots.plans[$0].kind == .data }
        let group = batchGroup
        var held = [ValueObject?](repeating: nil, count: group)
        var walks = [FlatLookup.Walk?](repeating: nil, count: group * walked.count)
        var walkIndex = [Int](repeating: -1, count: slots.plans.count)
        for (k, slot) in walked.enumerated() { walkIndex[slot] = k }
        // The group probe needs no resolver when every anchor reads event data, `~type` or `~source`.
        let groupProbe = set.index.probesWithoutResolver(slots)
        let words = (set.rules.count + 63) / 64
        var bits = [UInt64](repeating: 0, count: group * words)
        var decided = [Bool](repeating: false, count: group)
        var scratch: [UInt8] = []
        var start = 0
        while start < events.count {
            let n = min(group, events.count - start)
            // Data kept as a tape is walked by each event's resolver (asking for `data` would make a tree).
            for g in 0..<group {
                held[g] =
                    g < n
                    ? events[start + g].withDataView { d -> ValueObject? in
                        if case .tape = d { return nil }
                        return d.object
                    } : nil
            }
            ValueObject.withViews(of: held) { roots in
                walks.withUnsafeMutableBufferPointer { walks in
                    for k in walked.indices {
                        r.touched &+= FlatLookup.groupWalk(
                            UnsafeBufferPointer(rebasing: roots[0..<n]), slots.plans[walked[k]].steps,
                            into: UnsafeMutableBufferPointer(rebasing: walks[(k * group)..<(k * group + n)]))
                    }
                }
                if groupProbe {
                    bits.withUnsafeMutableBufferPointer { bits in
                        decided.withUnsafeMutableBufferPointer { decided in
                            set.index.markCandidates(
                                group: events[start..<(start + n)], slots: slots, words: words,
                                walk: { slot, g in walks[walkIndex[slot] * group + g] },
                                bits: bits, decided: decided, scratch: &scratch)
                        }
                    }
                }
                for g in 0..<n {
                    let probed = groupProbe && decided[g]
                    // No candidate: nothing to evaluate, no resolver pass.
                    if probed && !bits[(g * words)..<((g + 1) * words)].contains(where: { $0 != 0 }) { continue }
                    r.reset(event: events[start + g])
                    for k in walked.indices {
                        if let w = walks[k * group + g] { r.presetWalk(walked[k], w) }
                    }
                    r.borrowingData { r in
                        if probed {
                            for w in 0..<words {
                                var x = bits[g * words + w]
                                while x != 0 {
                                    let i = w << 6 | x.trailingZeroBitCount
                                    if Interpreter.matches(set.program, rule: i, &r) { body(start + g, i) }
                                    x &= x - 1
                                }
                            }
                        } else {
                            set.index.forEachCandidate(&r, slots: slots) { i, r in
                                if Interpreter.matches(set.program, rule: i, &r) { body(start + g, i) }
                            }
                        }
                    }
                }
            }
            start += n
        }
    }

    /// How many (event, rule) matches `events` make against `set` (see `forEachMatch`).
    ///
    /// - Parameters:
    ///   - set: the plan.
    ///   - events: the events.
    ///   - r: the resolver (reset for each event).
    /// - Returns: the count.
    public static func matchCount(_ set: CompiledRuleSet, events: [Event], _ r: inout Resolver) -> Int {
        var n = 0
        forEachMatch(set, events: events, &r) { _, _ in n += 1 }
        return n
    }
}
