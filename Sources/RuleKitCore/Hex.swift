// Bytes as lowercase hexadecimal: digests in tombstones, postbacks' idempotency keys and signatures.

/// Lowercase hexadecimal text of bytes.
public enum Hex {
    /// `bytes` as two lowercase hexadecimal digits each.
    ///
    /// Inlinable, so that a caller's sequence (a digest's prefix) is specialized where it is called: the
    /// generic loop through witness tables cost two microseconds per postback key.
    ///
    /// - Parameter bytes: the bytes.
    /// - Returns: the text, twice as many characters as bytes.
    @inlinable
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digit(byte >> 4))
            out.append(digit(byte & 0x0F))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The lowercase hexadecimal digit of `n` (0–15).
    @inlinable
    static func digit(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 + n : 0x57 + n }
}
