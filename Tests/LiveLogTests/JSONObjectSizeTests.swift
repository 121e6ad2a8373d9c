import Foundation
import Testing

@testable import LiveLog

/// An object's duplicate-key check is linear: each key against every earlier one made an object
/// of n keys cost n² comparisons (10k keys 0.56 s, 40k 7.5 s, a million more than 11 minutes).
@Suite struct JSONObjectSizeTests {
  /// `{"k0": 0, "k1": 1, ...}` with `count` keys, a repository's `id` and `full_name` first, and
  /// optionally the first key again at the end.
  static func object(keys count: Int, repeatingFirst: Bool = false) -> [UInt8] {
    var text = #"{"id": 7, "full_name": "a/b""#
    text.reserveCapacity(count * 14)
    for index in 0..<count { text += #", "k\#(index)": \#(index)"# }
    if repeatingFirst { text += #", "k0": 0"# }
    return Array((text + "}").utf8)
  }

  @Test func aMillionKeysAreReadInLinearTime() throws {
    let bytes = Self.object(keys: 1_000_000)
    let started = Date()
    let mutations = try RecordFile(source: "big.json", bytes: bytes, format: .ndjson).mutations()
    let elapsed = Date().timeIntervalSince(started)
    #expect(mutations.count == 1)
    // About a second optimized; the quadratic check needed hours. The bound leaves room for a
    // machine busy with other tests.
    #expect(elapsed < 30, "a million keys took \(elapsed) s")
  }

  @Test func aDuplicateAfterTwoHundredThousandKeysIsFoundWhereItIs() throws {
    let bytes = Self.object(keys: 200_000, repeatingFirst: true)
    let started = Date()
    #expect {
      _ = try JSONParser.parse(bytes)
    } throws: { error in
      guard let error = error as? JSONSyntaxError else { return false }
      // The offset of the repeated key, the last one of the object.
      return error.message == #"duplicate key "k0" in object"# && error.offset == bytes.count - 8
    }
    #expect(Date().timeIntervalSince(started) < 10)
  }

  /// Small objects (below the set's threshold) and large ones find the same duplicates.
  @Test(arguments: [2, 15, 16, 17, 40])
  func duplicatesAreFoundAtEverySize(keys: Int) {
    for position in [0, keys / 2, keys - 1] {
      var text = "{"
      for index in 0..<keys { text += (index > 0 ? "," : "") + #""k\#(index)":1"# }
      text += #","k\#(position)":2}"#
      #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(text.utf8)) }
    }
  }
}
