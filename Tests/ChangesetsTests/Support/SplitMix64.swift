@_exported import TestSupport

// The property tests' draws on the shared generator.
extension SplitMix64 {
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
