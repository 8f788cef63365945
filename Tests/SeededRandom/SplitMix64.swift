/// SplitMix64: a tiny, well-mixed generator with a fixed seed, so a failing random case is the same
/// case on every run and every machine. Shared by the test targets that draw random cases.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
