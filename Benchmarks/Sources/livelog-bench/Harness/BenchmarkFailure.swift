/// A benchmark whose result failed its own sanity check.
struct BenchmarkFailure: Error, CustomStringConvertible {
  var description: String

  init(_ description: String) {
    self.description = description
  }
}
