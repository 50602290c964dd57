/// The scratch stack the YAML builder keeps the children of open collections on.
///
/// When a collection closes, its children are moved (not copied) into the collection's own array: an
/// `Array` slice copy followed by `removeSubrange` would retain and then release every key and value,
/// two atomic operations per node of the document.
final class MoveStack<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    private func grow() {
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
    }

    /// Moves the elements from `start` on into a new array of exactly their count.
    func popArray(from start: Int) -> [Element] {
        precondition(start >= 0 && start <= count, "start out of range")
        let n = count - start
        guard n > 0 else { return [] }
        // reserveCapacity + append rather than `init(unsafeUninitializedCapacity:)`, which here calls the
        // stdlib's unspecialized buffer initializer and looks the storage type's metadata up every time.
        var out: [Element] = []
        out.reserveCapacity(n)
        for i in start..<count { out.append((base + i).move()) }
        count = start
        return out
    }
}
