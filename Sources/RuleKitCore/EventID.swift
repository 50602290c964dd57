public import struct Foundation.UUID

/// Fresh event ids: random version-4 UUIDs, as `UUID()` makes, from a generator seeded once from the
/// system's randomness.
///
/// Foundation's `UUID()` on Linux opens, reads and closes `/dev/urandom` for every id: three system calls
/// per event, a tenth of a whole run's time on a stream of small events. Ids need to be unique, not
/// secret, so a fast generator (xoshiro256**) with 256 bits of system-random seed serves, each id taking 122
/// of its random bits like any version-4 UUID.
public enum EventID {
    private static let generator = Locked(Xoshiro256(seed: SystemRandomNumberGenerator()))

    /// A new random (version 4, RFC 4122 variant) UUID.
    public static func next() -> UUID {
        let (a, b) = generator.withLock { g in (g.next(), g.next()) }
        return make(a, b)
    }

    /// The UUID a canonical text spells: 36 characters, hyphens at offsets 8, 13, 18 and 23 and hex digits
    /// (either case) elsewhere; nil for any other text. On these texts it is `UUID(uuidString:)`, which on
    /// Linux reads them with `sscanf`: a sixth of `rulekit run`'s time over small events that carry ids.
    /// Other texts are left to `UUID(uuidString:)` itself, which reads some of them too (a space, a sign
    /// or `0x` within a group), so that every text keeps the id it had. `EventIDTests` compares the two.
    public static func canonical(_ text: String) -> UUID? {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return nil }
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        var digits = 0
        for (i, c) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            if digits < 16 { hi = hi << 4 | UInt64(v) } else { lo = lo << 4 | UInt64(v) }
            digits += 1
        }
        return uuid(hi, lo)
    }

    /// The UUID of 128 random bits, with the version and variant bits set.
    static func make(_ a: UInt64, _ b: UInt64) -> UUID {
        uuid((a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000, (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// The UUID whose bytes are `hi`'s then `lo`'s, most significant first.
    public static func uuid(_ hi: UInt64, _ lo: UInt64) -> UUID {
        func byte(_ w: UInt64, _ i: Int) -> UInt8 { UInt8(truncatingIfNeeded: w >> (56 - 8 * i)) }
        return UUID(
            uuid: (
                byte(hi, 0), byte(hi, 1), byte(hi, 2), byte(hi, 3), byte(hi, 4), byte(hi, 5), byte(hi, 6), byte(hi, 7),
                byte(lo, 0), byte(lo, 1), byte(lo, 2), byte(lo, 3), byte(lo, 4), byte(lo, 5), byte(lo, 6), byte(lo, 7)
            ))
    }
}

/// xoshiro256** (Blackman and Vigna): 256 bits of state, period 2^256 − 1.
struct Xoshiro256: RandomNumberGenerator {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    init<G: RandomNumberGenerator>(seed: G) {
        var g = seed
        repeat { s = (g.next(), g.next(), g.next(), g.next()) } while s == (0, 0, 0, 0)
    }

    mutating func next() -> UInt64 {
        let result = (s.1 &* 5).rotatedLeft(by: 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = s.3.rotatedLeft(by: 45)
        return result
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(by k: UInt64) -> UInt64 { (self << k) | (self >> (64 - k)) }
}
