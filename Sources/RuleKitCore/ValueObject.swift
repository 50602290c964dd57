/// An object of `Value`s that keeps its keys in insertion order.
///
/// Small objects (the common case in event data) are searched linearly, which beats hashing below a
/// couple of dozen keys; larger ones keep a hash index beside the ordered storage.
///
/// - Complexity: lookup O(n) for small objects, O(1) expected once the index exists; append O(1).
public struct ValueObject: Sendable {
    @usableFromInline var _keys: [String]
    @usableFromInline var _values: [Value]
    @usableFromInline var _index: [String: Int]?

    /// The key count from which a hash index is kept.
    @usableFromInline static var indexThreshold: Int { 24 }

    public init() {
        _keys = []
        _values = []
        _index = nil
    }

    public init(minimumCapacity: Int) {
        self.init()
        _keys.reserveCapacity(minimumCapacity)
        _values.reserveCapacity(minimumCapacity)
    }

    /// Builds an object from pairs; a later duplicate key replaces the earlier value in place.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }

    public var count: Int { _keys.count }
    public var isEmpty: Bool { _keys.isEmpty }
    public var keys: [String] { _keys }
    public var values: [Value] { _values }

    /// The position of `key`, if present.
    @inlinable
    public func index(forKey key: String) -> Int? {
        if let idx = _index { return idx[key] }
        for i in _keys.indices where _keys[i] == key { return i }
        return nil
    }

    public subscript(key: String) -> Value? {
        get {
            guard let i = index(forKey: key) else { return nil }
            return _values[i]
        }
        set {
            if let i = index(forKey: key) {
                if let v = newValue {
                    _values[i] = v
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
        _keys.append(key)
        _values.append(value)
        if _index != nil {
            _index![key] = _keys.count - 1
        } else if _keys.count >= Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Removes the member at `position`, keeping the order of the others.
    public mutating func remove(at position: Int) {
        _keys.remove(at: position)
        _values.remove(at: position)
        if _index != nil { rebuildIndex() }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        guard let i = index(forKey: key) else { return nil }
        let v = _values[i]
        remove(at: i)
        return v
    }

    public func key(at position: Int) -> String { _keys[position] }
    public func value(at position: Int) -> Value { _values[position] }

    /// Updates the value at a known position.
    public mutating func setValue(_ value: Value, at position: Int) { _values[position] = value }

    private mutating func rebuildIndex() {
        if _keys.count < Self.indexThreshold {
            _index = nil
            return
        }
        var idx = [String: Int](minimumCapacity: _keys.count)
        for (i, k) in _keys.enumerated() { idx[k] = i }
        _index = idx
    }
}

extension ValueObject: Sequence {
    public struct Iterator: IteratorProtocol {
        let object: ValueObject
        var position = 0
        public mutating func next() -> (key: String, value: Value)? {
            guard position < object._keys.count else { return nil }
            defer { position += 1 }
            return (object._keys[position], object._values[position])
        }
    }

    public func makeIterator() -> Iterator { Iterator(object: self) }
    public var underestimatedCount: Int { count }
}

extension ValueObject: Equatable {
    /// Equal when both hold the same keys with equal values, in any order.
    public static func == (lhs: ValueObject, rhs: ValueObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs._keys == rhs._keys { return lhs._values == rhs._values }
        for (k, v) in lhs {
            guard let w = rhs[k], w == v else { return false }
        }
        return true
    }
}

extension ValueObject: Hashable {
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
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(elements)
    }
}
