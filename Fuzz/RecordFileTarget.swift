// libFuzzer target: the GitHub JSON decoder (`RecordFile(source:bytes:).mutations()`), which
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
    mutations = try RecordFile(source: "fuzz", bytes: bytes).mutations()
  } catch let error as InputError {
    _ = error.description
    return 0
  } catch {
    fatalError("RecordFile threw something other than an InputError: \(error)")
  }
  for case .upsert(let repository) in mutations {
    let event = Event(
      lsn: 1, time: CommitTime(microsecondsSince1970: 0), mutation: .upsert(repository), endsCommit: true)
    guard let decoded = try? Event(decoding: event.encodedBytes, lsn: 1), decoded == event else {
      fatalError("repository \(repository.id) does not survive the event encoding")
    }
    let json = repository.jsonBytes
    let again: [Mutation]
    do {
      again = try RecordFile(source: "again", bytes: json, format: .ndjson).mutations()
    } catch {
      fatalError("the JSON of repository \(repository.id) does not decode: \(error)")
    }
    guard again == [.upsert(repository)] else {
      fatalError("repository \(repository.id) changes through its own JSON")
    }
  }
  return 0
}
