// Bytes as lowercase hexadecimal: digests in tombstones, postbacks' idempotency keys and signatures.

/// Lowercase hexadecimal text of bytes.
public enum Hex {
    /// `bytes` as two lowercase hexadecimal digits each.
    ///
    /// - Parameter bytes: the bytes.
    /// - Returns: the text, twice as many characters as bytes.
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
