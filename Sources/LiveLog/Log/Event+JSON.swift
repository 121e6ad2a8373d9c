extension Event {
  /// The event as one line of NDJSON (without the newline), as `livelog log --format ndjson`
  /// prints it:
  /// `{"lsn":1,"time":"…","collection":"repositories","schema_version":1,"op":"upsert","id":…,
  /// "commit_end":true,"record":{…}}`; deletes have no `record`, and schema events have `schema`
  /// (the new version) instead of `id` and `record`.
  public var jsonBytes: [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("lsn")
    writer.integer(lsn)
    writer.key("time")
    writer.string(time.iso8601)
    writer.key("collection")
    writer.string(collection)
    writer.key("schema_version")
    writer.integer(schemaVersion)
    change.writeOperation(to: &writer)
    writer.key("commit_end")
    writer.bool(endsCommit)
    change.writeContent(to: &writer, slots: false)
    writer.endObject()
    return writer.bytes
  }
}

extension Event.Change {
  /// Writes `"op"` and, for a record's change, `"id"` (its key): how every JSON form of an event
  /// (the log's, the export's) names what it does.
  func writeOperation(to writer: inout JSONWriter) {
    writer.key("op")
    switch self {
    case .upsert(let record):
      writer.string("upsert")
      writer.key("id")
      if let key = record.primaryKey {
        RecordJSONShape.write(key.fieldValue, to: &writer)
      } else {
        writer.null()
      }
    case .delete(let key):
      writer.string("delete")
      writer.key("id")
      RecordJSONShape.write(key.fieldValue, to: &writer)
    case .schema:
      writer.string("schema")
    }
  }

  /// Writes what the event carries: an upsert's `"record"` (shaped by its schema version) or a
  /// schema event's `"schema"` (`slots`: in its stored form); a delete carries nothing more.
  func writeContent(to writer: inout JSONWriter, slots: Bool) {
    switch self {
    case .upsert(let record):
      writer.key("record")
      RecordJSONShape(record.schema).write(record.values, to: &writer)
    case .schema(let schema):
      writer.key("schema")
      schema.write(to: &writer, slots: slots)
    case .delete: break
    }
  }
}
