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
    writer.key("op")
    switch change {
    case .upsert(let record):
      writer.string("upsert")
      writer.key("id")
      if let key = record.primaryKey {
        RecordJSONShape.write(key.fieldValue, to: &writer)
      } else {
        writer.null()
      }
      writer.key("commit_end")
      writer.bool(endsCommit)
      writer.key("record")
      RecordJSONShape(record.schema).write(record.values, to: &writer)
    case .delete(let key):
      writer.string("delete")
      writer.key("id")
      RecordJSONShape.write(key.fieldValue, to: &writer)
      writer.key("commit_end")
      writer.bool(endsCommit)
    case .schema(let schema):
      writer.string("schema")
      writer.key("commit_end")
      writer.bool(endsCommit)
      writer.key("schema")
      schema.write(to: &writer, slots: false)
    }
    writer.endObject()
    return writer.bytes
  }
}
