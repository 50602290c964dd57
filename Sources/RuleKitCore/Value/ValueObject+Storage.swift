// Invariants: the member storage is read through a pointer lent for the call; `storageAddress` is an
// identity only (compared, never dereferenced), the same for copies of one object while none is mutated.

extension ValueObject {
    /// The address of the member storage: the same for copies of one object, stable while it is not
    /// mutated (nil when empty). Lets validators memoize per object without hashing its location.
    package var storageAddress: UnsafeRawPointer? {
        _members.isEmpty ? nil : _members.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// The position of `key`, if present.
    @inlinable
    public func index(forKey key: String) -> Int? {
        if let idx = _index { return idx.positions[key] }
        return _members.withUnsafeBufferPointer { members in
            for i in members.indices where members[i].key == key { return i }
            return nil
        }
    }
}

extension Value {
    /// An identity for an object's or array's storage, the same for copies of the value while none is
    /// mutated (nil for other values, and for empty ones): validators memoize per container with it. Only
    /// compared, never turned back into a pointer.
    package var storageIdentity: UInt? {
        switch self {
        case .object(let o): o.storageAddress.map { UInt(bitPattern: $0) }
        case .array(let a): a.isEmpty ? nil : a.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
        default: nil
        }
    }
}
