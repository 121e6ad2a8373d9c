// libFuzzer target: the GitHub JSON decoder (`RecordFile(source:bytes:).mutations(of:)`), which
// runs the strict JSON parser, format detection, NDJSON / array / search-response framing, the
// CSV reader and the repository decoder.
//
// Any input must decode or throw an `InputError`; never trap. Every repository that decodes must
// survive the record encoding and its own JSON unchanged.
// Built and run by scripts/fuzz.sh; not part of the package.
import Foundation

@testable import LiveLog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecordFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let mutations: [Mutation]
  do {
    mutations = try RecordFile(source: "fuzz", bytes: bytes).mutations(of: Repository.self)
  } catch let error as InputError {
    _ = error.description
    return 0
  } catch {
    fatalError("RecordFile threw something other than an InputError: \(error)")
  }
  let schema = Repository.schema.declaration
  for mutation in mutations {
    guard case .upsert(let values) = mutation.change else { continue }
    let record = RecordValues(schema: schema, values: values)
    let event = Event(
      lsn: 1, time: CommitTime(microsecondsSince1970: 0), collection: schema.name, schemaVersion: 1,
      change: .upsert(record), endsCommit: true)
    let decoded = try? EventCodec.encode(event, collectionID: 1).withUnsafeBytes {
      try EventCodec.header($0, lsn: 1).event(recordSchema: schema)
    }
    guard decoded == event else {
      fatalError("record \(String(describing: record.primaryKey)) does not survive the event encoding")
    }
    let again: [Mutation]
    do {
      again = try RecordFile(source: "again", bytes: record.jsonBytes, format: .ndjson).mutations(
        of: Repository.self)
    } catch {
      fatalError("the JSON of record \(String(describing: record.primaryKey)) does not decode: \(error)")
    }
    guard again == [mutation] else {
      fatalError("record \(String(describing: record.primaryKey)) changes through its own JSON")
    }
  }
  return 0
}
