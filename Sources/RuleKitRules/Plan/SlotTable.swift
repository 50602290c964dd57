/// The condition keys of a program by slot, with what the resolver's fast paths need to read them.
struct SlotTable: Sendable {
    /// The key of each slot.
    var keys: [SlotKey] = []
    /// The same keys as plain data (see `SlotPlan`), filled once every key is known.
    var plans: [SlotPlan] = []
}

/// How the resolver reads a slot on its fast paths, as plain data: reading it per event costs no
/// reference counting (a `SlotKey` copy retains its path).
struct SlotPlan: @unchecked Sendable {
    // @unchecked: `steps` points into the slot's `FlatPath`, immutable and kept alive by the table's keys.
    enum Kind: UInt8 {
        /// A cacheable event-data path: walked over `steps`.
        case data
        case type, source
        /// Anything else: the general resolver.
        case other
    }

    let kind: Kind
    let steps: UnsafeBufferPointer<FlatPath.Step>

    init(_ key: SlotKey) {
        switch key.ref {
        case .data(let path) where key.cacheable:
            kind = .data
            steps = path.unsafeSteps
        case .type:
            kind = .type
            steps = UnsafeBufferPointer(start: nil, count: 0)
        case .source:
            kind = .source
            steps = UnsafeBufferPointer(start: nil, count: 0)
        default:
            kind = .other
            steps = UnsafeBufferPointer(start: nil, count: 0)
        }
    }
}
