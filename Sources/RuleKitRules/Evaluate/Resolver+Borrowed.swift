// The resolver's fast paths: slot values read over a borrowed view of the event data, converted into
// the per-pass forms the interpreter compares.
//
// Invariants:
// 1. `dataView` (or `tapeView`, for data kept as a tape) is set only by `borrowingData`, for the closure
//    it runs, from the event's own data (held by the resolver for the pass); it is nil outside. Debug
//    builds check, at every use, that the view still reads the event's data (`isView(of:)`).
// 2. `prewalks` hold walks over that view for the current pass only: an entry is read only when its stamp
//    is the pass's `generation`, and a new pass (`reset`) never starts inside `borrowingData`.
// 3. With no view (outside `borrowingData`, or an event without data) every reader falls back to the
//    general path (`slotValue` → `resolve`), the plain reference the trace and the oracle tests use.
internal import Foundation
internal import RuleKitCore

extension Resolver {
    /// Runs `body` with the event's data lent to the fast paths for this pass.
    @inline(__always)
    mutating func borrowingData<R>(_ body: (inout Resolver) -> R) -> R {
        // The event is held here for the pass: the resolver's own copy may not be read while `self` is lent.
        let event = self.event
        return event.withDataView { data in
            switch data {
            case .tape(let tape):
                return tape.withUnsafeView { view in
                    // Brought into this core's cache at once, not one dependent miss per key passed over.
                    touched &+= view.touchAll()
                    tapeView = view
                    defer { tapeView = nil }
                    return body(&self)
                }
            case .none:
                return body(&self)
            case .tree, .overlay:
                guard let object = data.object else { return body(&self) }
                return object.withUnsafeView { view in
                    dataView = view
                    defer { dataView = nil }
                    return body(&self)
                }
            }
        }
    }

    /// Walks the `.data` slots among `slotList` not walked yet this pass, all at once (see
    /// `FlatLookup.multiWalk`), and records their walks: the rule index's probe reads several keys of
    /// every event, and their walks into data out of cache then wait on memory together.
    mutating func prewalk(_ slotList: [Int], _ slots: SlotTable) {
        guard let root = dataView else { return }
        let count = slotList.count
        withUnsafeTemporaryAllocation(of: UnsafeBufferPointer<FlatPath.Step>.self, capacity: count) { paths in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { chosen in
                var n = 0
                for slot in slotList
                where slots.plans[slot].kind == .data
                    && !(slot < prewalkStamps.count && prewalkStamps[slot] == generation)
                {
                    paths.initializeElement(at: n, to: slots.plans[slot].steps)
                    chosen.initializeElement(at: n, to: slot)
                    n += 1
                }
                guard n > 1 else { return }
                withUnsafeTemporaryAllocation(of: FlatLookup.Walk?.self, capacity: n) { out in
                    touched &+= FlatLookup.multiWalk(root, UnsafeBufferPointer(rebasing: paths[0..<n]), into: out)
                    for k in 0..<n {
                        if let w = out[k] { presetWalk(chosen[k], w) }
                    }
                }
            }
        }
    }

    /// Records a `.data` slot's walk, done ahead for this pass's event (see `Evaluator.forEachMatch`).
    mutating func presetWalk(_ slot: Int, _ walk: FlatLookup.Walk) {
        if slot >= prewalkStamps.count {
            prewalkStamps.append(contentsOf: repeatElement(0, count: slot + 1 - prewalkStamps.count))
            prewalks.append(contentsOf: repeatElement(.missing, count: slot + 1 - prewalks.count))
        }
        prewalks[slot] = walk
        prewalkStamps[slot] = generation
    }

    /// A `.data` slot's walk over the borrowed event data, or nil when only the general path can tell
    /// (no event data makes every key "", and dotted keys or indexed objects on the way).
    @inline(__always)
    func dataWalk(_ slot: Int, _ plan: SlotPlan) -> FlatLookup.Walk? {
        guard plan.kind == .data else { return nil }
        guard let root = dataView else {
            guard let tape = tapeView else { return nil }
            assert(event.document?.isViewed(by: tape) ?? false, "the borrowed view is not the event's tape")
            let w = FlatLookup.tapeWalk(tape, plan.steps)
            if case .slow = w { return nil }
            return w
        }
        assert(event.data.map(root.isView(of:)) ?? false, "the borrowed view is not the event's data")
        if slot < prewalkStamps.count && prewalkStamps[slot] == generation { return prewalks[slot] }
        let w = FlatLookup.plainWalk(root, plan.steps)
        if case .slow = w { return nil }
        return w
    }

    /// The leaf a walk found, or nil (missing, or a container).
    @inline(__always)
    func leaf(_ w: FlatLookup.Walk) -> Value? {
        switch w {
        case .found(let p): p.isLeaf ? p.pointee : Optional<Value>.none
        case .inTape(let n): tapeView!.value(at: n)
        default: nil
        }
    }

    /// The slot's string form, lowercased, as (offset, length) in `forms.pool`; length -1 when not ASCII.
    mutating func stringForm(_ slot: Int, _ slots: SlotTable) -> (Int, Int) {
        touchForms(slot)
        if forms.ready[slot] & 1 != 0 { return (Int(forms.stringOffset[slot]), Int(forms.stringLength[slot])) }
        let plan = slots.plans[slot]
        let length: Int
        if let w = dataWalk(slot, plan) {
            // Read in place; a missing key or a container is "" (the reference's flattened map has no entry).
            switch w {
            case .found(let v): length = forms.appendLowercasedASCII(of: v)
            case .inTape(let n): length = forms.appendLowercasedASCII(of: n, in: tapeView!)
            default: length = 0
            }
        } else if plan.kind == .type {
            length = forms.appendLowercasedASCII(event.type)
        } else if plan.kind == .source {
            length = forms.appendLowercasedASCII(event.source)
        } else {
            let v = slotValue(slot, slots) ?? .string("")
            if case .string(let s) = v {
                length = forms.appendLowercasedASCII(s)
            } else {
                length = forms.appendLowercasedASCII(Conversion.string(v))
            }
        }
        let offset = forms.pool.count - max(length, 0)
        forms.ready[slot] |= 1
        forms.stringOffset[slot] = Int32(offset)
        forms.stringLength[slot] = Int32(length)
        return (offset, length)
    }

    /// The slot's `int(...)` conversion (a missing key is "", which does not convert).
    mutating func intForm(_ slot: Int, _ slots: SlotTable) -> Int64? {
        touchForms(slot)
        if forms.ready[slot] & 2 == 0 {
            let v: Int64?
            if let w = dataWalk(slot, slots.plans[slot]) {
                v = leaf(w).flatMap(Conversion.int)
            } else {
                v = Conversion.int(slotValue(slot, slots) ?? .string(""))
            }
            forms.ints[slot] = v ?? 0
            forms.intOK[slot] = v != nil
            forms.ready[slot] |= 2
        }
        return forms.intOK[slot] ? forms.ints[slot] : nil
    }

    /// The slot's `double(...)` conversion.
    mutating func doubleForm(_ slot: Int, _ slots: SlotTable) -> Double? {
        touchForms(slot)
        if forms.ready[slot] & 4 == 0 {
            let v: Double?
            if let w = dataWalk(slot, slots.plans[slot]) {
                v = leaf(w).flatMap(Conversion.double)
            } else {
                v = Conversion.double(slotValue(slot, slots) ?? .string(""))
            }
            forms.doubles[slot] = v ?? 0
            forms.doubleOK[slot] = v != nil
            forms.ready[slot] |= 4
        }
        return forms.doubleOK[slot] ? forms.doubles[slot] : nil
    }

    /// Whether the slot's key exists (its value is not nil).
    mutating func exists(_ slot: Int, _ slots: SlotTable) -> Bool {
        if let w = dataWalk(slot, slots.plans[slot]) {
            switch w {
            case .found(let p): return p.isLeaf
            case .inTape: return true
            default: return false
            }
        }
        if case .none = slotValue(slot, slots) { return false }
        return true
    }

}
