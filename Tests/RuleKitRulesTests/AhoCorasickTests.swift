import Testing

@testable import RuleKitRules

@Suite struct AhoCorasickTests {
    /// Every (pattern, end) a naive search finds, for comparison.
    func naive(_ patterns: [[UInt8]], _ text: [UInt8]) -> Set<[Int]> {
        var out = Set<[Int]>()
        for (pid, p) in patterns.enumerated() where !p.isEmpty && p.count <= text.count {
            for start in 0...(text.count - p.count) where Array(text[start..<(start + p.count)]) == p {
                out.insert([pid, start + p.count])
            }
        }
        return out
    }

    @Test func findsEveryOccurrenceLikeANaiveSearch() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("abc./".utf8)
        for _ in 0..<300 {
            let patterns = (0..<Int.random(in: 1...12, using: &rng)).map { _ in
                (0..<Int.random(in: 1...5, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            }
            let text = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            let ac = AhoCorasick(patterns: patterns)
            var found = Set<[Int]>()
            text.withUnsafeBufferPointer { buf in ac.scan(buf) { found.insert([$0, $1]) } }
            #expect(found == naive(patterns, text), "patterns \(patterns) text \(text)")
            for (pid, p) in patterns.enumerated() { #expect(ac.lengths[pid] == p.count) }
        }
    }

    @Test func sharedPrefixesAndDuplicatePatterns() {
        let patterns = ["https://shop.example.com/", "https://shop.example.com/cart", "cart", "cart"].map { Array($0.utf8) }
        let ac = AhoCorasick(patterns: patterns)
        let text = Array("https://shop.example.com/cart/x".utf8)
        var found = Set<[Int]>()
        text.withUnsafeBufferPointer { buf in ac.scan(buf) { found.insert([$0, $1]) } }
        #expect(found == [[0, 25], [1, 29], [2, 29], [3, 29]])
    }
}
