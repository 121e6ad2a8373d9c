import Dispatch

/// Summary statistics of repeated timings, in seconds per operation.
struct Statistics: Codable, Sendable {
  var samples: Int
  var median: Double
  var p99: Double
  var min: Double
  var max: Double
  /// Median absolute deviation over the median: how noisy the run was.
  var spread: Double

  init(_ timings: [Double]) {
    let sorted = timings.sorted()
    samples = sorted.count
    guard let first = sorted.first, let last = sorted.last else {
      self.median = 0
      self.p99 = 0
      self.min = 0
      self.max = 0
      self.spread = 0
      return
    }
    let median = Statistics.quantile(sorted, 0.5)
    self.median = median
    p99 = Statistics.quantile(sorted, 0.99)
    min = first
    max = last
    let deviations = sorted.map { abs($0 - median) }.sorted()
    spread = median > 0 ? Statistics.quantile(deviations, 0.5) / median : 0
  }

  /// Nearest-rank quantile of an ascending array.
  static func quantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
    return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank))]
  }
}

/// Monotonic time in seconds.
@inline(__always)
func now() -> Double {
  Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// How many times to run a case before and while timing it.
struct Repetitions: Sendable {
  var warmup: Int
  var measured: Int
  /// Stop measuring early once this many seconds have gone by (at least `minimum` samples).
  var budget: Double
  var minimum: Int

  static let standard = Repetitions(warmup: 3, measured: 50, budget: 10, minimum: 5)
  static let quick = Repetitions(warmup: 1, measured: 15, budget: 2, minimum: 3)
  static let once = Repetitions(warmup: 0, measured: 1, budget: .infinity, minimum: 1)
}

/// Times `body` repeatedly; `setUp` runs before each repetition, untimed.
func measure(
  _ repetitions: Repetitions,
  setUp: () throws -> Void = {},
  _ body: () throws -> Void
) rethrows -> Statistics {
  for _ in 0..<repetitions.warmup {
    try setUp()
    try body()
  }
  var timings: [Double] = []
  let started = now()
  for index in 0..<repetitions.measured {
    try setUp()
    let start = now()
    try body()
    timings.append(now() - start)
    if index + 1 >= repetitions.minimum && now() - started > repetitions.budget { break }
  }
  return Statistics(timings)
}
