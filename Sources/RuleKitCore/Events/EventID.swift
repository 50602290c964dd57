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
