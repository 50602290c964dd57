import Foundation
import Testing

@testable import RuleKitCore

/// `RecordKey` against the plain reference, the keys' texts: two keys are equal exactly when their texts
/// are, whether they are read as causes or kept as text.
@Suite struct RecordKeyTests {
    @Test func equalExactlyWhenTheTextsAre() {
        var rng = SystemRandomNumberGenerator()
        var texts: [String] = []
        for _ in 0..<200 {
            let cause = UUID()
            let ordinal = Int.random(in: 0..<3, using: &rng)
            let key = HistoryRecord.key(cause: cause, ordinal: ordinal)
            texts.append(key)
            // Near spellings of the same key: each must stay apart from it.
            texts.append(key.lowercased())
            texts.append(cause.uuidString + "/0" + String(ordinal))
            texts.append(cause.uuidString + "/" + String(ordinal + 10))
            texts.append(cause.uuidString + String(ordinal))
            texts.append(String(key.dropFirst()))
            texts.append(key.replacingOccurrences(of: "-", with: "_"))
        }
        let longest = "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF/999999999999999999"
        texts += ["", "s1", "/0", longest, longest + "9", String(repeating: "F", count: 36) + "/0"]
        #expect(RecordKey(longest) != .text(longest), "the longest ordinal is read as a cause")
        #expect(RecordKey(longest + "9") == .text(longest + "9"), "a longer one is text")
        let sample = Array(texts.prefix(400))
        for a in sample {
            for b in sample { #expect((RecordKey(a) == RecordKey(b)) == (a == b), "\(a) \(b)") }
        }
        // The keys the working set makes are read as causes.
        let made = HistoryRecord.key(cause: UUID(), ordinal: 12)
        if case .text = RecordKey(made) { Issue.record("\(made) was not read as a cause") }
    }
}
