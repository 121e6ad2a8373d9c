// libFuzzer target: the event decoder (`EventCodec.header(_:lsn:)`, then the event's record under
// the repositories schema), which must refuse damaged bytes with `StoreError.corruptEvent` and
// never trap or read out of bounds.
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
  let decoded: (event: Event, collection: UInt32)
  do {
    decoded = try decode(bytes, lsn: lsn)
  } catch let error as StoreError {
    guard case .corruptEvent = error else { fatalError("unexpected error kind: \(error)") }
    return 0
  } catch {
    fatalError("the decoder threw something other than a StoreError: \(error)")
  }
  guard let encoded = try? EventCodec.encode(decoded.event, collectionID: decoded.collection),
    let again = try? decode(encoded, lsn: lsn), again.event == decoded.event
  else {
    fatalError("a decoded event does not survive re-encoding (lsn \(lsn))")
  }
  return 0
}

/// The event in `bytes`, a record decoded under the repositories schema whatever collection it
/// names, and the collection id it names.
private func decode(_ bytes: [UInt8], lsn: UInt64) throws -> (event: Event, collection: UInt32) {
  try bytes.withUnsafeBytes { raw in
    let header = try EventCodec.header(raw, lsn: lsn)
    let event = try header.event(recordSchema: header.kind == .schema ? nil : Repository.schema.declaration)
    return (event, header.collection)
  }
}

private func event(
  lsn: UInt64, time: CommitTime, _ change: Event.Change, ends: Bool, row: UInt64, previous: UInt64? = nil
)
  -> Event
{
  Event(
    lsn: lsn, time: time, collection: "repositories", schemaVersion: 1, change: change, endsCommit: ends,
    row: row,
    previousLSN: previous)
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
    event(lsn: 1, time: time, .upsert(Repository(id: 1, fullName: "a/b").recordValues), ends: true, row: 1),
    event(lsn: 9, time: time, .upsert(full.recordValues), ends: false, row: 3, previous: 4),
    event(lsn: 300, time: time, .delete(.integer(-99)), ends: true, row: 2, previous: 200),
    event(lsn: 301, time: time, .schema(Repository.schema.declaration), ends: true, row: 0),
  ]
  for (index, event) in events.enumerated() {
    // Format 2 (collection 1) and, for the record events, format 1 (collection 0).
    for collection: UInt32 in [1, 0] {
      guard let bytes = try? EventCodec.encode(event, collectionID: collection) else { continue }
      var seed: [UInt8] = [UInt8(index % 2 == 0 ? 1 : 3)]
      withUnsafeBytes(of: event.lsn.littleEndian) { seed.append(contentsOf: $0) }
      seed.append(contentsOf: bytes)
      _ = FileManager.default.createFile(
        atPath: "\(directory)/seed-\(index)-\(collection)", contents: Data(seed))
    }
  }
  return 0
}
