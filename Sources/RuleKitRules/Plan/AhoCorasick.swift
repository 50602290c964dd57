// Invariants:
// 1. The automaton is immutable after `init`; a scan reads the text through a buffer the caller lends for
//    the call and keeps nothing.
// 2. Its answers are only candidates: every rule it lets through is evaluated in full, and the oracle
//    tests check (against a scan of every rule) that it never holds back a rule that matches.
/// A multi-pattern matcher over lowercased ASCII bytes (Aho–Corasick): finds every occurrence of every
/// pattern in one pass over the text, so the index can tell which `co`/`sw`/`ew` rules can match an
/// event without testing each rule.
///
/// The root's transitions are a dense table; every other state keeps a short list of edges (patterns
/// such as URLs share long prefixes, so most states have one child). Building is linear in the total
/// pattern length, with no 128-wide row per state: a thousand URL patterns plan in well under a
/// millisecond.
struct AhoCorasick: Sendable {
    /// Edges: target state, byte, and the next edge of the same state (-1 ends the list).
    private var edgeTarget: [Int32] = []
    private var edgeByte: [UInt8] = []
    private var edgeNext: [Int32] = []
    /// First edge of each state (-1: none).
    private var firstEdge: [Int32] = [-1]
    private var root = [Int32](repeating: 0, count: 128)
    private var fail: [Int32] = [0]
    /// First pattern ending at each state (-1: none); further ones chained through `patternNext`.
    private var firstPattern: [Int32] = [-1]
    private var patternNext: [Int32] = []
    /// The next state down the fail chain where some pattern ends (-1: none).
    private var outputLink: [Int32] = [-1]
    private(set) var lengths: [Int] = []

    init(patterns: [[UInt8]]) {
        // At most one state and one edge per pattern byte: reserved once, so building never regrows.
        let bound = patterns.reduce(1) { $0 + $1.count }
        firstEdge.reserveCapacity(bound)
        fail.reserveCapacity(bound)
        firstPattern.reserveCapacity(bound)
        outputLink.reserveCapacity(bound)
        edgeTarget.reserveCapacity(bound)
        edgeByte.reserveCapacity(bound)
        edgeNext.reserveCapacity(bound)
        patternNext.reserveCapacity(patterns.count)
        lengths.reserveCapacity(patterns.count)
        var rootChild = [Int32](repeating: -1, count: 128)
        for (pid, p) in patterns.enumerated() {
            var s: Int32 = 0
            for b in p {
                let b = b & 0x7F
                if s == 0 {
                    if rootChild[Int(b)] < 0 {
                        rootChild[Int(b)] = newState()
                        addEdge(0, b, rootChild[Int(b)])
                    }
                    s = rootChild[Int(b)]
                } else if let t = child(s, b) {
                    s = t
                } else {
                    let t = newState()
                    addEdge(s, b, t)
                    s = t
                }
            }
            patternNext.append(firstPattern[Int(s)])
            firstPattern[Int(s)] = Int32(pid)
            lengths.append(p.count)
        }
        for b in 0..<128 { root[b] = max(rootChild[b], 0) }
        // Breadth-first over the trie: a state's fail link is the longest proper suffix that is a state.
        var queue: [Int32] = []
        var e = firstEdge[0]
        while e >= 0 {
            queue.append(edgeTarget[Int(e)])
            e = edgeNext[Int(e)]
        }
        var head = 0
        while head < queue.count {
            let s = queue[head]
            head += 1
            let f = fail[Int(s)]
            outputLink[Int(s)] = s == 0 ? -1 : (firstPattern[Int(f)] >= 0 ? f : outputLink[Int(f)])
            var e = firstEdge[Int(s)]
            while e >= 0 {
                let t = edgeTarget[Int(e)]
                let b = edgeByte[Int(e)]
                fail[Int(t)] = step(f, b)
                queue.append(t)
                e = edgeNext[Int(e)]
            }
        }
    }

    private mutating func newState() -> Int32 {
        firstEdge.append(-1)
        fail.append(0)
        firstPattern.append(-1)
        outputLink.append(-1)
        return Int32(firstEdge.count - 1)
    }

    private mutating func addEdge(_ s: Int32, _ b: UInt8, _ t: Int32) {
        edgeTarget.append(t)
        edgeByte.append(b)
        edgeNext.append(firstEdge[Int(s)])
        firstEdge[Int(s)] = Int32(edgeTarget.count - 1)
    }

    private func child(_ s: Int32, _ b: UInt8) -> Int32? {
        var e = firstEdge[Int(s)]
        while e >= 0 {
            if edgeByte[Int(e)] == b { return edgeTarget[Int(e)] }
            e = edgeNext[Int(e)]
        }
        return nil
    }

    /// The automaton's transition from `s` on `b`, following fail links.
    private func step(_ s: Int32, _ b: UInt8) -> Int32 {
        var s = s
        while s != 0 {
            if let t = child(s, b) { return t }
            s = fail[Int(s)]
        }
        return root[Int(b)]
    }

    /// Calls `found(pattern, endOffset)` for every occurrence in `text` (lowercased ASCII).
    func scan(_ text: UnsafeBufferPointer<UInt8>, _ found: (Int, Int) -> Void) {
        var s: Int32 = 0
        for (i, b) in text.enumerated() {
            s = step(s, b & 0x7F)
            var o = firstPattern[Int(s)] >= 0 ? s : outputLink[Int(s)]
            while o > 0 {
                var p = firstPattern[Int(o)]
                while p >= 0 {
                    found(Int(p), i + 1)
                    p = patternNext[Int(p)]
                }
                o = outputLink[Int(o)]
            }
        }
    }
}
