/// A FIFO queue on a growable ring buffer: O(1) append and removal at the front.
struct RingQueue<Element> {
    private var storage: [Element?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var first: Element? { count == 0 ? nil : storage[head] }

    mutating func append(_ e: Element) {
        if count == storage.count { grow() }
        storage[(head + count) & (storage.count - 1)] = e
        count += 1
    }

    @discardableResult
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let e = storage[head]
        storage[head] = nil
        head = (head + 1) & (storage.count - 1)
        count -= 1
        return e
    }

    /// Calls `body` on the first `limit` elements (fewer when there are fewer), oldest first.
    func forEach(upTo limit: Int, _ body: (Element) -> Void) {
        for i in 0..<min(limit, count) { body(storage[(head + i) & (storage.count - 1)]!) }
    }

    /// The newest element that satisfies `predicate`, searching from the back.
    func last(where predicate: (Element) -> Bool) -> Element? {
        var i = count - 1
        while i >= 0 {
            if let e = storage[(head + i) & (storage.count - 1)], predicate(e) { return e }
            i -= 1
        }
        return nil
    }

    private mutating func grow() {
        var bigger = [Element?](repeating: nil, count: storage.count * 2)
        for i in 0..<count { bigger[i] = storage[(head + i) & (storage.count - 1)] }
        storage = bigger
        head = 0
    }
}
