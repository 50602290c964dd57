internal import RuleKitCore

/// Finds the leaf the reference's flattened map holds under a dotted key, without flattening.
///
/// Walks the segments; at each object, a key that itself contains dots is also tried when it spells the
/// next few segments (the flattened map cannot tell `{"a.b": 1}` from `{"a": {"b": 1}}`).
enum FlatLookup {
    /// The leaf under `path` in `root`, or nil, found the plain way: no views, no pointers. The reference
    /// the fast `leaf(_:in:)` is checked against in debug builds.
    static func referenceLeaf(_ path: FlatPath, in root: ValueObject) -> Value? {
        dottedFind(root, path, 0)
    }

    static func isLeaf(_ v: Value) -> Bool {
        switch v {
        case .object, .array: false
        default: true
        }
    }

    static func dottedFind(_ o: ValueObject, _ path: FlatPath, _ i: Int) -> Value? {
        if let c = o[path.segments[i]], let f = descend(c, path, i + 1) { return f }
        guard o.mayHaveDottedKeys else { return nil }
        for m in o.members where m.key.utf8.withContiguousStorageIfAvailable({ $0.contains(0x2E) }) ?? m.key.utf8.contains(0x2E) {
            if let j = path.end(ofDottedKey: m.key, from: i), let f = descend(m.value, path, j) { return f }
        }
        return nil
    }

    @inline(__always)
    static func descend(_ v: Value, _ path: FlatPath, _ i: Int) -> Value? {
        if i == path.segments.count {
            // Not `isLeaf(v) ? v : nil`: Value is nil-literal expressible, and that nil would be .null.
            if isLeaf(v) { return v }
            return Optional<Value>.none
        }
        switch v {
        case .object(let o): return dottedFind(o, path, i)
        case .array(let a):
            guard let k = path.indexes[i], k < a.count else { return nil }
            return descend(a[k], path, i + 1)
        default: return nil
        }
    }
}
