/// Borrowed, reference-count-free views of nested values, for read-only walks on hot paths.
///
/// Reading `.object(let o)` out of a value stored in an array copies the payload: an atomic retain and
/// release on the object's storage. A rule resolving `xdm.commerce.order.priceTotal` pays that at every
/// level, and on event data that is not in cache the atomic write is where the walk stalls (the loads of
/// a plain read can overlap; a locked increment cannot). These views carry raw pointers instead.
///
/// - Important: A view is valid only while the value it was taken from is alive and unmodified. Take it
///   inside a scope that holds that value (the resolver holds its event for the whole pass).
public enum UnsafeValueView {
    /// An object: its members, whether a key may contain a '.', and whether it keeps a hash index.
    case object(UnsafeObjectView)
    /// An array's elements.
    case array(UnsafeBufferPointer<Value>)
    /// Any other value (null, bool, number, string): a leaf.
    case leaf
}

/// The members of an object, borrowed. See `UnsafeValueView`.
public struct UnsafeObjectView {
    /// The object's members, in order.
    public let members: UnsafeBufferPointer<ValueObject.Member>
    /// As `ValueObject.mayHaveDottedKeys`.
    public let mayHaveDottedKeys: Bool
    /// Whether the object keeps a hash index (it has many keys): `find` still answers, in linear time.
    public let isIndexed: Bool
    /// As `ValueObject.mayHaveNonASCIIKeys`.
    public let mayHaveNonASCIIKeys: Bool

    @inlinable
    init(
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
    public func find(_ key: String, asciiCount: Int) -> UnsafePointer<Value>? {
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

extension ValueObject {
    /// A borrowed view of this object's members. See `UnsafeValueView` for when it stays valid.
    @inlinable
    public var unsafeView: UnsafeObjectView {
        UnsafeObjectView(
            members: _members.withUnsafeBufferPointer { $0 }, mayHaveDottedKeys: mayHaveDottedKeys,
            isIndexed: _index != nil, mayHaveNonASCIIKeys: mayHaveNonASCIIKeys)
    }
}

extension Value {
    /// A borrowed view of this value's structure. See `UnsafeValueView` for when it stays valid.
    @inlinable
    public var unsafeView: UnsafeValueView {
        switch self {
        case .object(let o): .object(o.unsafeView)
        case .array(let a): .array(a.withUnsafeBufferPointer { $0 })
        default: .leaf
        }
    }
}

extension Value {
    /// The UTF-8 bytes of a string of more than 15 bytes, read in place (no copy, no reference count);
    /// nil for shorter strings (held inside the value itself: copying one costs nothing) and other values.
    /// See `UnsafeValueView` for when the pointer stays valid.
    @inlinable
    public var unsafeLongStringUTF8: UnsafeBufferPointer<UInt8>? {
        guard case .string(let s) = self, s.utf8.count > 15 else { return nil }
        // Longer than a small string, so stored out of line: the pointer is to the string's own storage.
        return s.utf8.withContiguousStorageIfAvailable { $0 }
    }
}
