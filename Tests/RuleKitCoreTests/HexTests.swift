import RuleKitTestSupport
import Testing

@testable import RuleKitCore

/// Hexadecimal text against the standard library's radix formatting (the plain reference), over every byte.
struct HexTests {
    @Test func everyByteAsTwoDigits() {
        let bytes = (0...255).map(UInt8.init)
        let reference = bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
        #expect(Hex.lowercase(bytes) == reference)
        #expect(Hex.lowercase(bytes.reversed().prefix(3)) == "fffefd")
        #expect(Hex.lowercase([UInt8]()).isEmpty)
    }
}
