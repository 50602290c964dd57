// An event's identity read where its data is kept: a member walk on the tape when the data is a tape,
// so that finding whose history an event belongs to does not make the event's whole data into a tree.
//
// Invariants: the walk only uses `JSONTape.withUnsafeView` (the view never leaves the closure) and the
// view's checked lookups (`member(of:key:)`, `element(of:at:)`, `value(at:)`), which stay inside the
// tape's nodes (JSONTape invariants 2 and 6). The plain reference is `HistoryIdentity.value(at:in:)` on
// `event.data`; `HistoryIdentityTests` compares the two on tapes and trees.

extension HistoryIdentity {
    /// The identity at `path` in `event`'s data, as `value(at:in:)` reads it from `event.data`, without
    /// making a tree of data kept as a tape.
    public static func value(at path: [String], of event: Event) -> String? {
        guard let tape = event.document, !path.isEmpty else { return value(at: path, in: event.data) }
        return tape.withUnsafeView { view -> String? in
            var node = 0
            for step in path {
                switch view.nodes[node].kind {
                case .object:
                    var key = step
                    let found = key.withUTF8 { view.member(of: node, key: $0) }
                    guard let next = found else { return nil }
                    node = next
                case .array:
                    guard let i = Int(step), let next = view.element(of: node, at: i) else { return nil }
                    node = next
                default: return nil
                }
            }
            switch view.value(at: node) {
            case .string(let s): return s
            case let v where v.isScalarForIdentity: return JSONWriter.string(v)
            default: return nil
            }
        }
    }
}

extension Value {
    /// Numbers and booleans: the scalars an identity may be written from.
    fileprivate var isScalarForIdentity: Bool {
        switch self {
        case .int, .double, .bool: true
        default: false
        }
    }
}
