// Invariants: the one pointer use here compares two arrays' base addresses, for identity only (the same
// storage); nothing is read through them.

/// An object of `Value`s that keeps its keys in insertion order.
///
/// Members live in one contiguous array (one allocation per object). Small objects, the common case in
/// event data, are searched linearly, which beats hashing below a couple of dozen keys; larger ones keep
/// a hash index beside the members. The struct is two words, which keeps `Value` at 24 bytes a slot.
///
/// - Complexity: lookup O(n) for small objects, O(1) expected once the index exists; append O(1).
public struct ValueObject: Sendable {
    /// One key and its value.
    public struct Member: Sendable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: Value

        /// A member named `key` holding `value`.
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// A hash index from key to position, shared copy-on-write between copies of an object.
    @usableFromInline
    final class Index: @unchecked Sendable {
        // Mutated only while uniquely referenced (see `mutableIndex`), so sharing it is safe.
        @usableFromInline var positions: [String: Int]
        init(_ positions: [String: Int]) { self.positions = positions }
    }

    @usableFromInline var _members: [Member]
    @usableFromInline var _index: Index?
    /// What the keys may hold (never reset by removal: the flags may only over-report). Fits in
    /// `Value`'s existing padding.
    /// - `dotted`: some key has a '.'. Launch key lookups must also try dotted keys (`"a.b": 1` answers
    ///   `a.b`); most objects have none, and this lets a missed lookup skip the scan for them.
    /// - `nonASCII`: some key is not ASCII. When none is, an ASCII key can only equal a key of the same
    ///   UTF-8 count (otherwise canonical equivalence may equate different byte counts), so a search
    ///   compares counts before it calls `String`'s equality.
    @usableFromInline var _keyFlags: UInt8 = 0
    @usableFromInline static var dottedFlag: UInt8 { 1 }
    @usableFromInline static var nonASCIIFlag: UInt8 { 2 }

    /// The flags one key sets, in one pass over its bytes.
    static func flags(of key: String) -> UInt8 {
        var f: UInt8 = 0
        for b in key.utf8 {
            if b == 0x2E { f |= dottedFlag } else if b >= 0x80 { f |= nonASCIIFlag }
        }
        return f
    }

    /// Whether `self` and `other` are copies of one object (one member storage), and so the same in
    /// every way, text included. `false` does not mean they differ.
    package func sharesStorage(with other: ValueObject) -> Bool {
        _members.withUnsafeBufferPointer { a in
            other._members.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count }
        } && _keyFlags == other._keyFlags
    }

    /// The key count from which a hash index is kept.
    static var indexThreshold: Int { 24 }

    /// An empty object.
    public init() {
        _members = []
        _index = nil
    }

    /// An empty object with room for `minimumCapacity` members.
    public init(minimumCapacity: Int) {
        self.init()
        _members.reserveCapacity(minimumCapacity)
    }

    /// Builds an object from members whose keys the caller knows are distinct.
    public init(members: [Member]) {
        var f: UInt8 = 0
        for m in members { f |= Self.flags(of: m.key) }
        self.init(members: members, anyKeyHasDot: f & Self.dottedFlag != 0, allKeysASCII: f & Self.nonASCIIFlag == 0)
    }

    /// Builds an object from members whose keys the caller knows are distinct, when the caller also knows
    /// whether any key contains a '.' and whether all are ASCII (a reader has seen each key's bytes;
    /// scanning them again costs). `allKeysASCII: false` is always safe (lookups are then a little slower).
    public init(members: [Member], anyKeyHasDot: Bool, allKeysASCII: Bool = false) {
        _members = members
        _keyFlags = (anyKeyHasDot ? Self.dottedFlag : 0) | (allKeysASCII ? 0 : Self.nonASCIIFlag)
        _index = nil
        if members.count >= Self.indexThreshold { rebuildIndex() }
    }

    /// Builds an object from parallel key and value arrays whose keys the caller knows are distinct.
    public init(keys: [String], values: [Value]) {
        precondition(keys.count == values.count, "keys and values differ in count")
        self.init(members: zip(keys, values).map { Member(key: $0, value: $1) })
    }

    /// Builds an object from pairs; a later duplicate key replaces the earlier value in place.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }

    // The small accessors below are inlinable: loaders and the resolver call them for every node, from
    // other modules, where an opaque call also costs a retain of what it returns.

    /// False when no key of the object contains a '.' (true may over-report after removals).
    @inlinable public var mayHaveDottedKeys: Bool { _keyFlags & Self.dottedFlag != 0 }

    /// False when every key of the object is ASCII (true may over-report after removals).
    @inlinable public var mayHaveNonASCIIKeys: Bool { _keyFlags & Self.nonASCIIFlag != 0 }

    /// How many members the object has.
    @inlinable public var count: Int { _members.count }
    /// Whether the object has no members.
    @inlinable public var isEmpty: Bool { _members.isEmpty }
    /// The member names, in order.
    public var keys: [String] { _members.map(\.key) }
    /// The member values, in order.
    public var values: [Value] { _members.map(\.value) }
    /// The members, in order.
    public var members: [Member] { _members }

    /// The value of member `key`; setting nil removes it, setting a new key appends it.
    public subscript(key: String) -> Value? {
        @inlinable get {
            guard let i = index(forKey: key) else { return nil }
            return _members[i].value
        }
        set {
            if let i = index(forKey: key) {
                if let v = newValue {
                    _members[i].value = v
                } else {
                    remove(at: i)
                }
            } else if let v = newValue {
                appendNew(key: key, value: v)
            }
        }
    }

    /// Appends a key the caller knows is absent (readers check duplicates themselves).
    public mutating func appendNew(key: String, value: Value) {
        _members.append(Member(key: key, value: value))
        _keyFlags |= Self.flags(of: key)
        if _index != nil {
            mutableIndex().positions[key] = _members.count - 1
        } else if _members.count >= Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Removes the member at `position`, keeping the order of the others.
    public mutating func remove(at position: Int) {
        _members.remove(at: position)
        if _index != nil { rebuildIndex() }
    }

    /// Removes member `key` and returns its value, or nil if there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        guard let i = index(forKey: key) else { return nil }
        let v = _members[i].value
        remove(at: i)
        return v
    }

    /// The name of the member at `position`.
    @inlinable public func key(at position: Int) -> String { _members[position].key }
    /// The value of the member at `position`.
    @inlinable public func value(at position: Int) -> Value { _members[position].value }

    /// Updates the value at a known position.
    public mutating func setValue(_ value: Value, at position: Int) { _members[position].value = value }

    private mutating func mutableIndex() -> Index {
        if !isKnownUniquelyReferenced(&_index!) { _index = Index(_index!.positions) }
        return _index!
    }

    private mutating func rebuildIndex() {
        if _members.count < Self.indexThreshold {
            _index = nil
            return
        }
        var idx = [String: Int](minimumCapacity: _members.count)
        for (i, m) in _members.enumerated() { idx[m.key] = i }
        _index = Index(idx)
    }
}

extension ValueObject: Sequence {
    /// Yields members as `(key, value)` pairs, in order.
    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[Member]>
        /// The next member, or nil after the last.
        public mutating func next() -> (key: String, value: Value)? {
            base.next().map { ($0.key, $0.value) }
        }
    }

    /// Iterates the members in order.
    public func makeIterator() -> Iterator { Iterator(base: _members.makeIterator()) }
    /// The member count.
    public var underestimatedCount: Int { count }
}

extension ValueObject: Equatable {
    /// Equal when both hold the same keys with equal values, in any order.
    public static func == (lhs: ValueObject, rhs: ValueObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Copies of one object share their storage: equal without a look at the members (an event's data
        // is compared with itself after rules left it unchanged, every event).
        if lhs.count > 0 && lhs.storageAddress == rhs.storageAddress { return true }
        var sameOrder = true
        for i in lhs._members.indices where lhs._members[i].key != rhs._members[i].key {
            sameOrder = false
            break
        }
        if sameOrder {
            for i in lhs._members.indices where lhs._members[i].value != rhs._members[i].value { return false }
            return true
        }
        for (k, v) in lhs {
            guard let w = rhs[k], w == v else { return false }
        }
        return true
    }
}

extension ValueObject: Hashable {
    /// Hashes the members regardless of order, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        // Order-insensitive, to agree with ==.
        var acc = 0
        for (k, v) in self {
            var h = Hasher()
            h.combine(k)
            h.combine(v)
            acc ^= h.finalize()
        }
        hasher.combine(count)
        hasher.combine(acc)
    }
}

extension ValueObject: ExpressibleByDictionaryLiteral {
    /// A literal; a repeated key keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(elements)
    }
}
