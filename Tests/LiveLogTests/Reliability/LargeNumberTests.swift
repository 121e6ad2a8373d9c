import Foundation
import Testing

/// LSNs and counts from the command line are UInt64 up to 2^64-1; none may reach a conversion
/// to Int that traps (SIGILL): `replay --to 9223372036854775808` did.
@Suite struct LargeNumberTests {
  @Test func everyLSNOptionTakesTheLargestNumbersWithoutASignal() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 20, batch: 10)
    let tool = CommandLineTool(store: store)
    for number in ["9223372036854775807", "9223372036854775808", "18446744073709551615"] {
      for arguments in [
        ["replay", "--to", number], ["replay", "--into", directory.child("into-\(number)"), "--to", number],
        ["log", "--from", number], ["log", "--from", "1", "--to", number], ["export", "--from", number],
        ["diff", "id > 0", "--from", "0", "--to", number],
        ["diff", "id > 0", "--from", number, "--to", number],
        ["query", "id > 0", "--as-of", number], ["watch", "id > 0", "--from", number],
      ] {
        let result = try tool.run(arguments)
        #expect(!result.signalled, "\(arguments): signal \(result.status)")
        #expect([0, 1, 2].contains(result.status), "\(arguments): \(result.status)")
        if result.status != 0 {
          #expect(
            result.stderr.contains(number),
            "\(arguments): the message does not name the LSN: \(result.stderr)")
        }
      }
    }
    // The store is as it was, and nothing was left where --into was refused.
    #expect(try tool.run(["verify"]).status == 0)
    #expect(!FileManager.default.fileExists(atPath: directory.child("into-18446744073709551615")))
  }
}
