import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Stores for the repair, damage and salvage tests: real GitHub repositories from
/// Tests/Fixtures/github, committed in batches, and copies of them to damage.
enum DamageSupport {
  /// A store at `path` holding the first `count` repositories of repos-00.ndjson, committed in
  /// batches of `batch` (each batch a commit); returns the acknowledged LSNs.
  @discardableResult
  static func makeStore(at path: String, count: Int = 600, batch: Int = 20) throws -> [Int] {
    let lines = try String(contentsOfFile: Fixtures.path("api-repos/repos-00.ndjson"), encoding: .utf8)
      .split(separator: "\n").prefix(count)
    let input = path + ".input.ndjson"
    try Reliability.write(lines.joined(separator: "\n") + "\n", to: input)
    defer { try? FileManager.default.removeItem(atPath: input) }
    let result = try CommandLineTool(store: path).run([
      "ingest", "--batch", String(batch), "--progress-lsn", input,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return LimitTests.progress(result.stdout)
  }

  /// Copies the store directory `from` to `to` (which must not exist).
  static func copy(_ from: String, to: String) throws {
    try FileManager.default.copyItem(atPath: from, toPath: to)
  }

  /// The store's log as exported (the events and their checksums, byte for byte).
  static func export(_ store: String) throws -> String {
    let result = try CommandLineTool(store: store).run(["export"])
    #expect(result.status == 0, "export of \(store): \(result.stderr)")
    return result.stdout
  }

  /// Overwrites `count` bytes of `file` at `offset` with `bytes` (repeated), or zeroes them.
  static func overwrite(_ file: String, at offset: Int, count: Int, with byte: UInt8 = 0) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    handle.write(Data(repeating: byte, count: count))
  }

  /// Flips bit `bit` of the byte at `offset` of `file`.
  static func flip(_ file: String, at offset: Int, bit: Int) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    let old = handle.readData(ofLength: 1).first ?? 0
    try handle.seek(toOffset: UInt64(offset))
    handle.write(Data([old ^ UInt8(1 << bit)]))
  }

  static func truncate(_ file: String, to size: Int) {
    #expect(Glibc.truncate(file, off_t(size)) == 0)
  }

  /// The result must not be a death by signal, and a failure must say what to do.
  static func expectNoSignal(_ result: CommandLineTool.Result, _ what: String) {
    #expect(!result.signalled, "\(what) died of signal \(result.status): \(result.stderr.suffix(600))")
    #expect(result.status == 0 || result.status == 1 || result.status == 2, "\(what): exit \(result.status)")
    if result.status != 0 {
      #expect(
        result.stderr.hasPrefix("error:") || result.stderr.contains("failed")
          || result.stderr.contains("differs"),
        "\(what): exit \(result.status) with \(result.stdout.suffix(300)) \(result.stderr.prefix(300))")
    }
  }
}
