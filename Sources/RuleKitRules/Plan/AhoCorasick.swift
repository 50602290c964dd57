/// A multi-pattern matcher over lowercased ASCII bytes (Aho–Corasick): finds every occurrence of every
/// pattern in one pass over the text, so the index can tell which `co`/`sw`/`ew` rules can match an
/// event without testing each rule.
struct AhoCorasick: Sendable {
    /// Dense transitions: state * 128 + byte → next state.
    private var next: [Int32] = []
    private var fail: [Int32] = []
    /// Patterns ending at each state (its own), and the next state down the fail chain that has some.
    private var outputs: [[Int32]] = []
    private var outputLink: [Int32] = []
    private(set) var lengths: [Int] = []

    init(patterns: [[UInt8]]) {
        addState()
        for (pid, p) in patterns.enumerated() {
            var s: Int32 = 0
            for b in p {
                let i = Int(s) * 128 + Int(b)
                if next[i] < 0 {
                    next[i] = Int32(outputs.count)
                    addState()
                }
                s = next[i]
            }
            outputs[Int(s)].append(Int32(pid))
            lengths.append(p.count)
        }
        // Breadth-first: fail links, then complete the transition table.
        var queue: [Int32] = []
        for b in 0..<128 {
            if next[b] < 0 { next[b] = 0 } else {
                fail[Int(next[b])] = 0
                queue.append(next[b])
            }
        }
        var head = 0
        while head < queue.count {
            let s = Int(queue[head])
            head += 1
            let f = Int(fail[s])
            outputLink[s] = outputs[f].isEmpty ? outputLink[f] : Int32(f)
            for b in 0..<128 {
                let i = s * 128 + b
                if next[i] < 0 {
                    next[i] = next[f * 128 + b]
                } else {
                    fail[Int(next[i])] = next[f * 128 + b]
                    queue.append(next[i])
                }
            }
        }
    }

    private mutating func addState() {
        next.append(contentsOf: repeatElement(-1, count: 128))
        fail.append(0)
        outputs.append([])
        outputLink.append(-1)
    }

    /// Calls `found(pattern, endOffset)` for every occurrence in `text` (lowercased ASCII).
    func scan(_ text: UnsafeBufferPointer<UInt8>, _ found: (Int, Int) -> Void) {
        var s = 0
        for (i, b) in text.enumerated() {
            s = Int(next[s * 128 + Int(b & 0x7F)])
            var o = s
            while o > 0 {
                for p in outputs[o] { found(Int(p), i + 1) }
                o = Int(outputLink[o])
            }
        }
    }
}
