// Borrowed views of nested values: reference-count-free, read-only walks for the engine's hot paths.
//
// Invariants this file relies on (and every user must keep):
// 1. A view points into the storage of a value that stays alive and unmodified while the view is used.
//    Views are made only by `ValueObject.withUnsafeView` and `ValueObject.withViews(of:)`, each valid for
//    its closure (which holds the objects); no view is kept past it. `viewWhileHeld`, which both build on,
//    is internal to this module.
// 2. A child's view is derived from a pointer its parent's view handed out. The child's storage belongs to
//    the parent value, so invariant 1 for the root covers every view below it.
// 3. Views are `package`: only RuleKit's own modules, which keep 1 and 2, can make them. Debug builds
//    check invariant 1 where views are used (`UnsafeObjectView.isView(of:)`).

/// A borrowed, reference-count-free view of a value's structure (see the invariants above).
///
/// Reading `.object(let o)` out of a value stored in an array copies the payload: an atomic retain and
/// release on the object's storage. A rule resolving `xdm.commerce.order.priceTotal` pays that at every
/// level, and on event data that is not in cache the atomic write is where the walk stalls (the loads of
/// a plain read can overlap; a locked increment cannot). These views carry raw pointers instead.
///
/// - Important: A view is valid only while the value it was taken from is alive and unmodified.
@usableFromInline
package enum UnsafeValueView {
    /// An object: its members, whether a key may contain a '.', and whether it keeps a hash index.
    case object(UnsafeObjectView)
    /// An array's elements.
    case array(UnsafeBufferPointer<Value>)
    /// Any other value (null, bool, number, string): a leaf.
    case leaf
}

/// The members of an object, borrowed. See `UnsafeValueView`.
@usableFromInline
package struct UnsafeObjectView {
    /// The object's members, in order.
    @usableFromInline package let members: UnsafeBufferPointer<ValueObject.Member>
    /// As `ValueObject.mayHaveDottedKeys`.
    @usableFromInline package let mayHaveDottedKeys: Bool
    /// Whether the object keeps a hash index (it has many keys): `find` still answers, in linear time.
    @usableFromInline package let isIndexed: Bool
    /// As `ValueObject.mayHaveNonASCIIKeys`.
    @usableFromInline package let mayHaveNonASCIIKeys: Bool

    @inlinable
    package init(
        members: UnsafeBufferPointer<ValueObject.Member>, mayHaveDottedKeys: Bool, isIndexed: Bool,
        mayHaveNonASCIIKeys: Bool
    ) {
        self.members = members
        self.mayHaveDottedKeys = mayHaveDottedKeys
        self.isIndexed = isIndexed
        self.mayHaveNonASCIIKeys = mayHaveNonASCIIKeys
    }

    /// The value under `key` by a linear search. Keys compare with `String`'s `==` (canonical
    /// equivalence, as everywhere else). `asciiCount` is `key.utf8.count` when `key` is ASCII, else -1:
    /// among ASCII keys only one of that count can be equal, and a count is read without a call.
    @inlinable
    package func find(_ key: String, asciiCount: Int) -> UnsafePointer<Value>? {
        guard let base = members.baseAddress else { return nil }
        let byCount = asciiCount >= 0 && !mayHaveNonASCIIKeys
        var i = 0
        while i < members.count {
            let m = base + i
            if (!byCount || m.pointee.key.utf8.count == asciiCount) && m.pointee.key == key {
                return UnsafeRawPointer(m).advanced(by: MemoryLayout<ValueObject.Member>.offset(of: \.value)!)
                    .assumingMemoryBound(to: Value.self)
            }
            i += 1
        }
        return nil
    }
}

extension UnsafeObjectView {
    /// Whether this view still reads `object`'s storage: the check, in debug builds, that the object was
    /// not modified (or released and replaced) while the view was in use.
    package func isView(of object: ValueObject) -> Bool {
        object.isEmpty ? members.isEmpty : UnsafeRawPointer(members.baseAddress) == object.storageAddress
    }
}

extension ValueObject {
    /// Lends a view of this object's members to `body`; it must not escape the closure.
    @inlinable
    package func withUnsafeView<R>(_ body: (UnsafeObjectView) throws -> R) rethrows -> R {
        try _members.withUnsafeBufferPointer { members in
            try body(
                UnsafeObjectView(
                    members: members, mayHaveDottedKeys: mayHaveDottedKeys, isIndexed: _index != nil,
                    mayHaveNonASCIIKeys: mayHaveNonASCIIKeys))
        }
    }

    /// Lends views of `objects` (nil where an object is nil), in their order, to `body`; they must not escape
    /// it. The objects are held for the call: a batch of events walked together, where a `withUnsafeView`
    /// scope per event would nest as deep as the batch is long.
    @inlinable
    package static func withViews<R>(
        of objects: [ValueObject?], _ body: (UnsafeBufferPointer<UnsafeObjectView?>) throws -> R
    ) rethrows -> R {
        try withExtendedLifetime(objects) {
            try withUnsafeTemporaryAllocation(of: UnsafeObjectView?.self, capacity: objects.count) { views in
                for (i, o) in objects.enumerated() { views.initializeElement(at: i, to: o?.viewWhileHeld) }
                // The views are trivial values: nothing to deinitialize.
                return try body(UnsafeBufferPointer(views))
            }
        }
    }

    /// A view of this object for a caller that holds it, unmodified, for as long as it uses the view
    /// (invariant 1): `withViews(of:)`, and a child's view under its parent's (invariant 2).
    @inlinable
    var viewWhileHeld: UnsafeObjectView {
        UnsafeObjectView(
            members: UnsafeBufferPointer(start: _members._baseAddressIfContiguous, count: _members.count),
            mayHaveDottedKeys: mayHaveDottedKeys, isIndexed: _index != nil, mayHaveNonASCIIKeys: mayHaveNonASCIIKeys)
    }
}

extension UnsafePointer where Pointee == Value {
    /// The view of the value this pointer (handed out by a parent view) points to: its storage belongs to
    /// the parent, so it is valid as long as the parent's view is (invariant 2).
    @inlinable
    package var unsafeView: UnsafeValueView {
        switch pointee {
        case .object(let o): .object(o.viewWhileHeld)
        case .array(let a): .array(UnsafeBufferPointer(start: a._baseAddressIfContiguous, count: a.count))
        default: .leaf
        }
    }

    /// Whether the value pointed to is a leaf (not an object or array).
    @inlinable
    package var isLeaf: Bool {
        switch pointee {
        case .object, .array: false
        default: true
        }
    }
}

extension Value {
    /// Lends the UTF-8 bytes of a string of more than 15 bytes, in place, to `body`; nil for shorter
    /// strings (held inside the value itself: copying one costs nothing) and other values.
    @inlinable
    package func withLongStringUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard case .string(let s) = self, s.utf8.count > 15 else { return nil }
        return s.utf8.withContiguousStorageIfAvailable(body)
    }
}
