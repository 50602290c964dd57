// Invariants:
// 1. `base` is memory this noncopyable stack allocates (on the first push), owns and frees: elements
//    `0..<count` are initialized, the rest not; it is never shared (noncopyable, kept in the reader's stack
//    frame). Before the first push, `capacity` is 0 and `base` a placeholder that is never read or freed.
// 2. Every index is checked (`precondition`) before it is read or moved.
/// A reader's scratch stack for the children of the containers it has open (the JSON and YAML readers').
///
/// When a container closes, its children are moved (not copied) into an array of exactly their count:
/// one allocation per container, no regrowth, and the containers of a document laid out in text order,
/// children before parents. Copying a slice and then removing it would retain and release every child.
/// Noncopyable, so it lives in the reader's own stack frame: no runtime exclusivity checks, and the
/// storage is freed (with whatever an error left on it) when the reader ends.
@usableFromInline
package struct ScratchStack<Element>: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<Element>
    @usableFromInline var capacity: Int
    @usableFromInline var _count = 0
    @usableFromInline let initialCapacity: Int
    /// How many elements are on the stack.
    @inlinable package var count: Int { _count }

    /// An empty stack with room for `capacity` elements before it grows. Nothing is allocated before the
    /// first push: a reader made for one short line may never use some of its stacks.
    package init(capacity: Int = 64) {
        self.capacity = 0
        initialCapacity = max(capacity, 1)
        base = UnsafeMutablePointer(bitPattern: MemoryLayout<Element>.alignment)!
    }

    deinit {
        base.deinitialize(count: _count)
        if capacity > 0 { base.deallocate() }
    }

    /// Pushes `element`, growing the storage when full.
    @inlinable
    package mutating func append(_ element: consuming Element) {
        if _count == capacity { grow() }
        (base + _count).initialize(to: element)
        _count += 1
    }

    @usableFromInline
    mutating func grow() {
        guard capacity > 0 else {
            base = .allocate(capacity: initialCapacity)
            capacity = initialCapacity
            return
        }
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: _count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    /// Read in place (no copy of the element).
    @inlinable
    package subscript(i: Int) -> Element {
        unsafeAddress {
            precondition(i >= 0 && i < _count, "index out of range")
            return UnsafePointer(base + i)
        }
        unsafeMutableAddress {
            precondition(i >= 0 && i < _count, "index out of range")
            return base + i
        }
    }

    /// Drops the elements from `start` on.
    @inlinable
    package mutating func removeAll(from start: Int) {
        precondition(start >= 0 && start <= count, "start out of range")
        (base + start).deinitialize(count: _count - start)
        _count = start
    }

    /// Moves the elements from `start` on into a new array of exactly their count.
    @inlinable
    package mutating func popArray(from start: Int) -> [Element] {
        precondition(start >= 0 && start <= _count, "start out of range")
        let n = _count - start
        guard n > 0 else { return [] }
        // reserve + append: `Array(unsafeUninitializedCapacity:)` reaches an unspecialized initializer.
        var out: [Element] = []
        out.reserveCapacity(n)
        for i in start..<_count { out.append((base + i).move()) }
        _count = start
        return out
    }
}
