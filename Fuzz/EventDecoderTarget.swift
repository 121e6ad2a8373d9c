// libFuzzer target: the event decoder (`Event(decoding:lsn:)`), which must refuse damaged bytes
// with `StoreError.corruptEvent` and never trap or read out of bounds.
//
// Input: byte 0 chooses the mode, bytes 1...8 are the LSN (little-endian), the rest is the event.
// In odd modes the harness rewrites the last four bytes with the valid checksum, so that mutations
// get past the checksum into the header, the record codec and the delete payload. An event that
// decodes must encode back to an event that decodes to the same value.
// Built and run by scripts/fuzz.sh; not part of the package.
import Foundation

@testable import LiveLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 9 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  var lsn: UInt64 = 0
  for index in 0..<8 { lsn |= UInt64(input[1 + index]) << (8 * UInt64(index)) }
  var bytes = Array(input[9...])
  if input[0] & 1 == 1 && bytes.count >= 4 {
    let body = bytes.count - 4
    let prefix = withUnsafeBytes(of: lsn.littleEndian) { CRC32C.checksum($0) }
    let crc = bytes.withUnsafeBytes {
      CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<body]), continuing: prefix)
    }
    withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(body..., with: $0) }
  }
  let event: Event
  do {
    event = try Event(decoding: bytes, lsn: lsn)
  } catch let error as StoreError {
    guard case .corruptEvent = error else { fatalError("unexpected error kind: \(error)") }
    return 0
  } catch {
    fatalError("the decoder threw something other than a StoreError: \(error)")
  }
  guard let again = try? Event(decoding: event.encodedBytes, lsn: lsn), again == event else {
    fatalError("a decoded event does not survive re-encoding (lsn \(lsn))")
  }
  return 0
}

/// Writes seed inputs (valid events in this target's layout) when LIVELOG_FUZZ_SEEDS names a
/// directory: called by libFuzzer before the first input.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzEventDecoderInitialize(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
  guard let directory = ProcessInfo.processInfo.environment["LIVELOG_FUZZ_SEEDS"], !directory.isEmpty else {
    return 0
  }
  var full = Repository(id: 42, fullName: "octo/cat")
  full.name = "cat"
  full.description = "naïve — 🐙"
  full.language = "Swift"
  full.topics = ["a", "b"]
  full.stargazersCount = -5
  full.isFork = true
  full.createdAt = Timestamp(secondsSince1970: 1_600_000_000)
  let time = CommitTime(microsecondsSince1970: 1_700_000_000_000_000)
  let events = [
    Event(
      lsn: 1, time: time, mutation: .upsert(Repository(id: 1, fullName: "a/b")), endsCommit: true, row: 1),
    Event(lsn: 9, time: time, mutation: .upsert(full), endsCommit: false, row: 3, previousLSN: 4),
    Event(lsn: 300, time: time, mutation: .delete(id: -99), endsCommit: true, row: 2, previousLSN: 200),
  ]
  for (index, event) in events.enumerated() {
    var seed: [UInt8] = [UInt8(index % 2 == 0 ? 1 : 3)]
    withUnsafeBytes(of: event.lsn.littleEndian) { seed.append(contentsOf: $0) }
    seed.append(contentsOf: event.encodedBytes)
    _ = FileManager.default.createFile(atPath: "\(directory)/seed-\(index)", contents: Data(seed))
  }
  return 0
}
