/// A small deterministic generator (SplitMix64) for generated test cases: the same seed gives the same
/// cases on every run.
public struct SeededGenerator: RandomNumberGenerator {
    /// The generator's whole state.
    public var state: UInt64

    /// A generator starting from `state`.
    public init(state: UInt64) { self.state = state }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` (`n` > 0).
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// One element of a non-empty array.
    public mutating func pick<T>(_ xs: [T]) -> T { xs[int(xs.count)] }
    /// True `percent` times in a hundred.
    public mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
}
