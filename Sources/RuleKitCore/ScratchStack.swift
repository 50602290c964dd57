/// A reader's scratch stack for the children of the containers it has open.
///
/// When a container closes, its children are moved (not copied) into an array of exactly their count:
/// one allocation per container, no regrowth, and the containers of a document laid out in text order,
/// children before parents. Copying a slice and then removing it would retain and release every child.
/// Noncopyable, so it lives in the reader's own stack frame: no runtime exclusivity checks, and the
/// storage is freed (with whatever an error left on it) when the reader ends.
struct ScratchStack<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    /// Read in place (no copy of the element).
    subscript(i: Int) -> Element {
        unsafeAddress {
            precondition(i >= 0 && i < count, "index out of range")
            return UnsafePointer(base + i)
        }
        unsafeMutableAddress {
            precondition(i >= 0 && i < count, "index out of range")
            return base + i
        }
    }

    /// Drops the elements from `start` on.
    mutating func removeAll(from start: Int) {
        precondition(start >= 0 && start <= count, "start out of range")
        (base + start).deinitialize(count: count - start)
        count = start
    }

    /// Moves the elements from `start` on into a new array of exactly their count.
    mutating func popArray(from start: Int) -> [Element] {
        precondition(start >= 0 && start <= count, "start out of range")
        let n = count - start
        guard n > 0 else { return [] }
        // reserve + append: `Array(unsafeUninitializedCapacity:)` reaches an unspecialized initializer.
        var out: [Element] = []
        out.reserveCapacity(n)
        for i in start..<count { out.append((base + i).move()) }
        count = start
        return out
    }
}
