/// The log as portable NDJSON: one event per line, commit boundaries and checksums included.
///
/// ```
/// {"lsn":1,"time":"2026-11-29T13:15:18.348728Z","time_us":1764422118348728,"op":"upsert",
///  "id":14444757,"row":1,"previous":null,"commit_end":false,"record":{…},"checksum":"6f0a1c2e"}
/// ```
///
/// `checksum` is the CRC-32C the log stores for the event: an import re-encodes each line and
/// refuses it unless the checksum agrees, so damage in transit cannot slip in. The same log
/// always exports to the same bytes.
enum LogExport {
  /// One event as a line (without the newline).
  static func line(_ event: Event, checksum: UInt32) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("lsn")
    writer.integer(event.lsn)
    writer.key("time")
    writer.string(event.time.iso8601)
    writer.key("time_us")
    writer.integer(event.time.microsecondsSince1970)
    writer.key("op")
    switch event.mutation {
    case .upsert: writer.string("upsert")
    case .delete: writer.string("delete")
    }
    writer.key("id")
    writer.integer(event.mutation.id)
    writer.key("row")
    writer.integer(event.row)
    writer.key("previous")
    if let previous = event.previousLSN { writer.integer(previous) } else { writer.null() }
    writer.key("commit_end")
    writer.bool(event.endsCommit)
    if case .upsert(let repository) = event.mutation {
      writer.key("record")
      repository.write(to: &writer)
    }
    writer.key("checksum")
    writer.string(hex(checksum))
    writer.endObject()
    return writer.bytes
  }

  static func hex(_ value: UInt32) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: 8 - text.count) + text
  }

  /// The checksum stored in an event's bytes.
  static func storedChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(
      littleEndian: bytes.loadUnaligned(
        fromByteOffset: bytes.count - EventCodec.checksumSize, as: UInt32.self))
  }

  /// Reads one exported line back into an event and its log bytes, checking its checksum.
  static func parse(_ object: JSONObject, locator: SourceLocator) throws(InputError) -> (Event, [UInt8]) {
    let decoder = RepositoryDecoder(locator: locator)
    func member(_ key: String) throws(InputError) -> JSONObject.Member {
      guard let member = object[key] else { throw locator.error(at: 0, field: key, "missing") }
      return member
    }
    let lsn = try decoder.integer(try member("lsn"), "lsn")
    guard lsn >= 1 else { throw locator.error(at: 0, field: "lsn", "must be at least 1") }
    let time = try decoder.integer(try member("time_us"), "time_us")
    let row = try decoder.integer(try member("row"), "row")
    guard row >= 1 else { throw locator.error(at: 0, field: "row", "must be at least 1") }
    var previous: UInt64?
    let previousMember = try member("previous")
    if case .null = previousMember.value {
      previous = nil
    } else {
      let value = try decoder.integer(previousMember, "previous")
      guard value >= 1, value < lsn else {
        throw locator.error(at: previousMember.offset, field: "previous", "must be an earlier LSN")
      }
      previous = UInt64(value)
    }
    guard case .bool(let endsCommit) = try member("commit_end").value else {
      throw locator.error(at: 0, field: "commit_end", "expected true or false")
    }
    guard case .string(let op) = try member("op").value else {
      throw locator.error(at: 0, field: "op", "expected \"upsert\" or \"delete\"")
    }
    let mutation: Mutation
    switch op {
    case "upsert":
      let recordMember = try member("record")
      guard case .object(let record) = recordMember.value else {
        throw locator.error(at: recordMember.offset, field: "record", "expected a repository object")
      }
      mutation = .upsert(try decoder.decode(record, at: recordMember.offset))
    case "delete":
      mutation = .delete(id: try decoder.integer(try member("id"), "id"))
    default:
      throw locator.error(
        at: 0, field: "op", "expected \"upsert\" or \"delete\", found \"\(ControlEscaping.excerpt(op))\"")
    }
    let event = Event(
      lsn: UInt64(lsn), time: CommitTime(microsecondsSince1970: time), mutation: mutation,
      endsCommit: endsCommit,
      row: UInt64(row), previousLSN: previous)
    let bytes = EventCodec.encode(event)
    let checksumMember = try member("checksum")
    guard case .string(let expected) = checksumMember.value,
      expected == hex(bytes.withUnsafeBytes { storedChecksum($0) })
    else {
      throw locator.error(
        at: checksumMember.offset, field: "checksum",
        "does not match the event: the export was damaged or edited (LSN \(lsn))")
    }
    return (event, bytes)
  }
}

/// What an import did.
public struct ImportSummary: Sendable, Hashable {
  /// Events the store already held, identical: skipped.
  public var skipped = 0
  /// Events appended.
  public var appended = 0
  /// The store's version after the import.
  public var version: UInt64 = 0
}

extension Store {
  /// Writes the log from `first` through its end as NDJSON lines to `write` (see `LogExport`).
  public func export(from first: UInt64 = 1, _ write: ([UInt8]) throws -> Void) throws {
    let snapshot = try environment.makeSnapshot()
    try snapshot.read { txn in
      let last = try log.lastLSN(txn)
      try log.forEachRaw(from: max(first, 1), through: last, txn) { lsn, bytes in
        let event = try EventCodec.decode(bytes, lsn: lsn)
        try write(LogExport.line(event, checksum: LogExport.storedChecksum(bytes)))
        return true
      }
    }
  }

  /// Imports an export: events at or below the store's version must be identical to the stored
  /// ones and are skipped; the rest must continue the log without a gap. Everything is checked
  /// before anything is written; a gap, a conflict or a damaged line writes nothing.
  public func importEvents(from file: RecordFile) throws -> ImportSummary {
    guard !options.readOnly else { throw StoreError.readOnly(path: directory) }
    var events: [(lsn: UInt64, bytes: [UInt8])] = []
    try file.forEachJSONLine { object, locator in
      let (event, bytes) = try LogExport.parse(object, locator: locator)
      if let last = events.last, event.lsn != last.lsn + 1 {
        throw locator.error(
          at: 0, field: "lsn", "\(event.lsn) does not follow \(last.lsn): the export has a gap")
      }
      events.append((event.lsn, bytes))
    }
    var summary = ImportSummary()
    let version = try self.version()
    try environment.read { txn in
      for event in events where event.lsn <= version {
        guard let stored = try txn.get(log.database, event.lsn), stored.elementsEqual(event.bytes) else {
          throw StoreError.corruptEvent(
            lsn: event.lsn,
            reason: "the import's event differs from the stored one: the logs diverged; nothing was written")
        }
        summary.skipped += 1
      }
    }
    let fresh = events.filter { $0.lsn > version }
    if let first = fresh.first, first.lsn != version + 1 {
      throw StoreError.corruptEvent(
        lsn: first.lsn,
        reason:
          "the store ends at \(version): importing from \(first.lsn) would leave a gap; nothing was written")
    }
    try appendRawEvents(fresh)
    summary.appended = fresh.count
    summary.version = try self.version()
    return summary
  }
}
