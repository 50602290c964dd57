// The plain walk of a flattened key path over borrowed views of event data (see RuleKitCore's
// `BorrowedViews.swift` for the views' invariants), one event at a time, several paths of one event at
// once, or one path across a group of events.
//
// Invariants:
// 1. Every view walked comes from a root the caller lends for the walk (`withUnsafeView`, or a batch of
//    events it holds in a `let`); a `Walk.found` pointer is used only while that root still is.
// 2. `FlatPath.Step` buffers belong to their `FlatPath`, which outlives every walk over it (the plan keeps
//    its paths).
// 3. A walk never decides what the reference's flattened map could answer otherwise: whenever a dotted key
//    or a large (hash-indexed) object is on the way it answers `.slow`, and the safe `dottedFind` decides.
//    `FlatLookup.leaf` is the plain reference path the oracle tests compare the interpreter with.
internal import RuleKitCore

extension FlatLookup {
    /// The leaf under `path` in `root`, or nil: the plain walk over a borrowed view first, the dotted-key
    /// search when only it can tell.
    static func leaf(_ path: FlatPath, in root: ValueObject) -> Value? {
        let found: Value?
        switch root.withUnsafeView({ plainWalk($0, path.unsafeSteps).value }) {
        case .found(let v):
            // Not `isLeaf(v) ? v : nil`: Value is nil-literal expressible, that nil would be .null.
            found = isLeaf(v) ? v : Optional<Value>.none
        case .missing: found = nil
        case .slow: found = dottedFind(root, path, 0)
        }
        assert(found == referenceLeaf(path, in: root), "the plain walk and the reference disagree on \(path.raw)")
        return found
    }

    enum Walk {
        /// The value at the end of the plain walk (a leaf or not: callers tell).
        case found(UnsafePointer<Value>)
        case missing
        /// Only `dottedFind` can tell: the plain walk failed where an object on the way may have a dotted
        /// key, or it met a large object (searched through its hash index).
        case slow
        /// A leaf of the event's tape, by node index (see `tapeWalk`).
        case inTape(Int)

        /// The walk's answer with the value copied out, for use after the view's scope.
        var value: Answer {
            switch self {
            case .found(let p): .found(p.pointee)
            case .missing: .missing
            // A tape leaf needs its tape: the general path reads it.
            case .slow, .inTape: .slow
            }
        }
    }

    /// A walk's answer, owning its value.
    enum Answer {
        case found(Value)
        case missing
        case slow
    }

    /// Where one step of a walk leaves it.
    enum Advance {
        case next(UnsafeValueView)
        case done(Walk)
    }

    /// One step of the plain walk from `view` by `step`. `sawDotted` notes objects that may have dotted
    /// keys: the plain walk goes through them (the flattened map's first answer, as `dottedFind` tries
    /// the plain key first at every level), but a failure after one is not final.
    @inline(__always)
    static func advance(_ view: UnsafeValueView, _ step: FlatPath.Step, last: Bool, _ sawDotted: inout Bool) -> Advance {
        let v: UnsafePointer<Value>
        switch view {
        case .object(let o):
            // Past a few dozen keys a linear search loses to the object's hash index (the general path).
            if o.isIndexed && o.members.count > 64 { return .done(.slow) }
            if o.mayHaveDottedKeys { sawDotted = true }
            guard let found = o.find(step.key, asciiCount: step.asciiCount) else { return .done(sawDotted ? .slow : .missing) }
            v = found
        case .array(let a):
            guard step.arrayIndex >= 0, step.arrayIndex < a.count, let base = a.baseAddress else {
                return .done(sawDotted ? .slow : .missing)
            }
            v = base + step.arrayIndex
        case .leaf:
            return .done(sawDotted ? .slow : .missing)
        }
        if !last { return .next(v.unsafeView) }
        // A container at the end is no leaf: after a dotted object, some other spelling may reach one.
        if sawDotted && !v.isLeaf { return .done(.slow) }
        return .done(.found(v))
    }

    /// The walk by plain segments, on borrowed views (the resolver holds the event): no reference
    /// counting on the way down.
    static func plainWalk(_ root: UnsafeObjectView, _ steps: UnsafeBufferPointer<FlatPath.Step>) -> Walk {
        var view = UnsafeValueView.object(root)
        var sawDotted = false
        var i = 0
        while true {
            switch advance(view, steps[i], last: i == steps.count - 1, &sawDotted) {
            case .next(let next): view = next
            case .done(let w): return w
            }
            i += 1
        }
    }
}

extension FlatLookup {
    /// The plain walk over a tape (see `JSONTape.swift`): the same answers as `plainWalk` over the object
    /// the tape stands for. A leaf is `.inTape`; a container at the end is `.missing` (it has no entry in
    /// the flattened map, as `plainWalk`'s callers read a found container); `.slow` where only the dotted
    /// search can tell, and for a key that is not ASCII (it may equal an ASCII key canonically: the Kelvin
    /// sign and `K`).
    static func tapeWalk(_ tape: UnsafeTapeView, _ steps: UnsafeBufferPointer<FlatPath.Step>) -> Walk {
        var node = 0
        var sawDotted = false
        for step in steps {
            let n = tape.nodes[node]
            switch n.kind {
            case .object:
                if n.flags & JSONTape.Node.dottedFlag != 0 { sawDotted = true }
                guard step.asciiCount >= 0 else { return .slow }
                guard let v = tape.member(of: node, key: step.keyBytes, tag: step.keyTag) else { return sawDotted ? .slow : .missing }
                node = v
            case .array:
                guard let e = tape.element(of: node, at: step.arrayIndex) else { return sawDotted ? .slow : .missing }
                node = e
            default:
                return sawDotted ? .slow : .missing
            }
        }
        if tape.nodes[node].isLeaf { return .inTape(node) }
        return sawDotted ? .slow : .missing
    }

    /// The leaf under `path` in the object `tape` stands for, or nil; `.none` when only the general path
    /// (the object made from the tape) can tell.
    static func leaf(_ path: FlatPath, in tape: JSONTape) -> Value?? {
        tape.withUnsafeView { t -> Value?? in
            switch tapeWalk(t, path.unsafeSteps) {
            case .inTape(let n): return .some(t.value(at: n))
            case .missing: return .some(nil)
            default: return .none
            }
        }
    }
}

extension FlatLookup {
    /// `plainWalk` for a group of roots at once, level by level (see `Evaluator.forEachMatch`). A nil
    /// root (an event without data) or a walk that needs the general path (a dotted key, an indexed
    /// object) leaves nil: the resolver then walks that one itself.
    /// Returns a byte sum of what it touched (kept by the caller, so the touching loads are not elided).
    @discardableResult
    static func groupWalk(
        _ roots: UnsafeBufferPointer<UnsafeObjectView?>, _ steps: UnsafeBufferPointer<FlatPath.Step>,
        into out: UnsafeMutableBufferPointer<Walk?>
    ) -> UInt8 {
        walkTogether(roots.count, root: { roots[$0] }, steps: { _ in steps }, into: out)
    }

    /// `plainWalk` of several paths from one root at once: the group walk across the keys of one event
    /// instead of across events (see `Resolver.prewalk`).
    @discardableResult
    static func multiWalk(
        _ root: UnsafeObjectView, _ paths: UnsafeBufferPointer<UnsafeBufferPointer<FlatPath.Step>>,
        into out: UnsafeMutableBufferPointer<Walk?>
    ) -> UInt8 {
        walkTogether(paths.count, root: { _ in root }, steps: { paths[$0] }, into: out)
    }

    /// Walks `count` (root, steps) pairs level by level, so the loads of different walks are independent
    /// and the processor overlaps their waits. Initializes `out[0..<count]`: each walk's result, nil where
    /// the root is nil or only the general path can finish.
    @inline(__always)
    private static func walkTogether(
        _ count: Int, root: (Int) -> UnsafeObjectView?,
        steps: (Int) -> UnsafeBufferPointer<FlatPath.Step>,
        into out: UnsafeMutableBufferPointer<Walk?>
    ) -> UInt8 {
        var touched: UInt8 = 0
        withUnsafeTemporaryAllocation(
            of: (view: UnsafeValueView, sawDotted: Bool, open: Bool).self,
            capacity: count
        ) { current in
            // `current[k]`: where walk k stands, and whether it is still going.
            var pending = 0
            for k in 0..<count {
                out.initializeElement(at: k, to: nil)
                if let r = root(k), !steps(k).isEmpty {
                    current.initializeElement(at: k, to: (.object(r), false, true))
                    pending += 1
                } else {
                    current.initializeElement(at: k, to: (.leaf, false, false))
                }
            }
            var level = 0
            while pending > 0 {
                for k in 0..<count where current[k].open {
                    let path = steps(k)
                    switch advance(current[k].view, path[level], last: level == path.count - 1, &current[k].sawDotted) {
                    case .next(let next):
                        current[k].view = next
                    case .done(let w):
                        if case .found(let v) = w, let last = v.pointee.withLongStringUTF8({ $0[$0.count - 1] }) {
                            // A long string's bytes are one more allocation: fetched now, with the others.
                            touched &+= last
                        }
                        // A walk only the general path can finish stays nil: the resolver walks it itself.
                        if case .slow = w {} else { out[k] = w }
                        current[k].open = false
                        pending -= 1
                    }
                }
                level += 1
            }
            _ = current.deinitialize()
        }
        return touched
    }
}
