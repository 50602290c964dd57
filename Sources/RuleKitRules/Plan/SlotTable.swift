// Invariants:
// 1. `SlotPlan.steps` points into the `FlatPath` of the slot's key; the table holds every key (`keys`),
//    so the steps live as long as the table, and are immutable.
/// The condition keys of a program by slot, with what the resolver's fast paths need to read them.
struct SlotTable: Sendable {
    /// The key of each slot.
    var keys: [SlotKey] = []
    /// The same keys as plain data (see `SlotPlan`), filled once every key is known.
    var plans: [SlotPlan] = []
    /// The extensions whose shared states the keys read, by `SlotPlan.state` (the plan's kind says
    /// whether the standard or the XDM state).
    var states: [String] = []

    /// Fills `plans` (and `states`) from `keys`.
    mutating func plan() {
        var ids: [String: Int32] = [:]
        plans = keys.map { key in
            var plan = SlotPlan(key)
            let name: String? =
                switch key.ref {
                case .state(let name, _), .xdm(let name, _): name
                default: nil
                }
            if plan.kind == .state || plan.kind == .xdm, let name {
                let tag = (plan.kind == .xdm ? "x:" : "s:") + name
                if let id = ids[tag] {
                    plan.state = id
                } else {
                    plan.state = Int32(states.count)
                    ids[tag] = plan.state
                    states.append(name)
                }
            }
            return plan
        }
    }
}

/// How the resolver reads a slot on its fast paths, as plain data: reading it per event costs no
/// reference counting (a `SlotKey` copy retains its path).
struct SlotPlan: @unchecked Sendable {
    // @unchecked: `steps` points into the slot's `FlatPath`, immutable and kept alive by the table's keys.
    enum Kind: UInt8 {
        /// A cacheable event-data path: walked over `steps`.
        case data
        case type, source
        /// A cacheable `~state.` / `~xdm.` key: its shared state is `SlotTable.states[state]`.
        case state, xdm
        /// Anything else: the general resolver.
        case other
    }

    let kind: Kind
    let steps: UnsafeBufferPointer<FlatPath.Step>
    var state: Int32 = -1

    init(_ key: SlotKey) {
        kind =
            switch key.ref {
            case .data where key.cacheable: .data
            case .type: .type
            case .source: .source
            case .state where key.cacheable: .state
            case .xdm where key.cacheable: .xdm
            default: .other
            }
        if kind == .data, case .data(let path) = key.ref {
            steps = path.unsafeSteps
        } else {
            steps = UnsafeBufferPointer(start: nil, count: 0)
        }
    }
}
