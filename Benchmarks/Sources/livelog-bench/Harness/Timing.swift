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
  /// Go on past `measured` samples until the timed runs add up to this many seconds, up to
  /// `maximum` samples: fifty runs of a 20 µs query take a millisecond, which one burst of the
  /// machine's other work covers whole, moving that case's median by as much as twice.
  var minimumTime: Double = 0
  var maximum = 0

  static let standard = Repetitions(warmup: 3, measured: 50, budget: 10, minimum: 5)
  static let quick = Repetitions(warmup: 1, measured: 15, budget: 2, minimum: 3)
  static let once = Repetitions(warmup: 0, measured: 1, budget: .infinity, minimum: 1)
}

/// Times `body` repeatedly; `setUp` runs before each repetition, untimed.
func measure(
  _ repetitions: Repetitions,
  setUp: () throws -> Void = {},
  _ body: () throws -> Void
) throws -> Statistics {
  try withoutActuallyEscaping(body) { try measureInTurns(repetitions, turns: 1, setUp: setUp, [$0])[0] }
}

/// Times each of `bodies` as `measure` does, in `turns` turns: a share of every body's samples,
/// then the next share of each, and so on, so that a stretch of the machine's other work falls on
/// all of them alike rather than on one, and their ratio stays clear of it. Each turn takes its
/// share of every bound (samples, timed seconds, budget) and one sample at least, unless the
/// budget is spent; every other turn runs the bodies in reverse, so that none always goes first.
func measureInTurns(
  _ repetitions: Repetitions, turns: Int = 5, setUp: () throws -> Void = {}, _ bodies: [() throws -> Void]
) throws -> [Statistics] {
  for body in bodies {
    for _ in 0..<repetitions.warmup {
      try setUp()
      try body()
    }
  }
  let turns = max(turns, 1)
  /// The first `turn` turns' share of `total`, rounded up.
  func share(_ total: Int, _ turn: Int) -> Int {
    total / turns * turn + (total % turns * turn + turns - 1) / turns
  }
  let maximum = max(repetitions.maximum, repetitions.measured)
  var timings = Array(repeating: [Double](), count: bodies.count)
  var timed = Array(repeating: 0.0, count: bodies.count)
  var spent = Array(repeating: 0.0, count: bodies.count)
  for turn in 1...turns {
    let fraction = Double(turn) / Double(turns)
    for index in turn % 2 == 1 ? Array(bodies.indices) : bodies.indices.reversed() {
      let started = now()
      var taken = 0
      while timings[index].count < share(maximum, turn) {
        let count = timings[index].count
        let enough =
          count >= share(repetitions.measured, turn) && timed[index] >= repetitions.minimumTime * fraction
        let overBudget =
          count >= share(repetitions.minimum, turn)
          && spent[index] + now() - started > repetitions.budget * fraction
        if (taken > 0 && enough) || (count > 0 && overBudget) { break }
        try setUp()
        let start = now()
        try bodies[index]()
        let time = now() - start
        timings[index].append(time)
        timed[index] += time
        taken += 1
      }
      spent[index] += now() - started
    }
  }
  return timings.map(Statistics.init)
}
