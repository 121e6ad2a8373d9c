/// A deterministic generator (Steele, Lea and Flood's SplitMix64), so that every property test
/// replays the same cases and a failure names a seed that reproduces it.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  /// True with probability `p`.
  mutating func chance(_ p: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < p
  }

  /// A size in 0...2000, mostly small so that thousands of cases stay fast in debug builds.
  mutating func size() -> Int {
    switch Int.random(in: 0..<100, using: &self) {
    case 0..<60: return Int.random(in: 0...40, using: &self)
    case 60..<92: return Int.random(in: 0...300, using: &self)
    default: return Int.random(in: 0...2_000, using: &self)
    }
  }
}
