import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

/// `EventID.canonical` against Foundation's `UUID(uuidString:)`, the plain reference it stands in for.
@Suite struct EventIDTests {
    @Test func canonicalTextsReadAsFoundationReadsThem() {
        var g = SeededGenerator(state: 40)
        for i in 0..<5_000 {
            let u = EventID.uuid(g.next(), g.next())
            let upper = u.uuidString
            let mixed = String(
                upper.enumerated().map { i % 2 == 0 && $0.offset % 3 == 0 ? Character($0.element.lowercased()) : $0.element })
            for text in [upper, upper.lowercased(), mixed] {
                #expect(EventID.canonical(text) == u, "\(text)")
                #expect(UUID(uuidString: text) == u, "\(text)")
            }
        }
    }

    @Test func onMutatedTextsItReadsOnlyCanonicalOnesAndAsFoundationDoes() {
        var g = SeededGenerator(state: 41)
        // Bytes that sit at the edge of what either reader takes.
        let odd = Array("0123456789abcdefABCDEFgGxX+- .{}\u{0}é".unicodeScalars)
        var checked = 0
        for _ in 0..<20_000 {
            var chars = Array(EventID.uuid(g.next(), g.next()).uuidString.unicodeScalars)
            for _ in 0...g.int(3) {
                let at = g.int(chars.count)
                switch g.int(4) {
                case 0: chars.remove(at: at)
                case 1: chars.insert(g.pick(odd), at: at)
                default: chars[at] = g.pick(odd)
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: chars)
            let reference = UUID(uuidString: text)
            if let mine = EventID.canonical(text) {
                // Canonical: the same UUID as the reference.
                #expect(mine == reference, "\(text.debugDescription)")
            } else {
                // Not canonical: the reader falls back to the reference, whatever it makes of the text.
                let isCanonical =
                    text.utf8.count == 36
                    && text.utf8.enumerated().allSatisfy { i, c in
                        [8, 13, 18, 23].contains(i) ? c == UInt8(ascii: "-") : (c < 0x80 && Character(Unicode.Scalar(c)).isHexDigit)
                    }
                #expect(!isCanonical, "\(text.debugDescription)")
            }
            checked += 1
        }
        #expect(checked == 20_000)
        #expect(EventID.canonical("358b3f29-7afe-4200-8973-e880557cd8 1") == nil)
        #expect(EventID.canonical("") == nil)
        #expect(EventID.canonical("358b3f297afe42008973e880557cd851") == nil)
    }
}
