import CNATS

extension JetStream {
  /// Removes the stream's messages below `sequence` (`js_PurgeStream` with a sequence): the
  /// stream's first sequence becomes `sequence`, and later messages keep theirs.
  func purge(_ stream: String, below sequence: UInt64) throws(ReplicationError) {
    var options = jsOptions()
    jsOptions_Init(&options)
    options.Wait = timeout
    options.Stream.Purge.Sequence = sequence
    var code = jsErrCode(0)
    try NATSCall.check(
      js_PurgeStream(context, stream, &options, &code), "js_PurgeStream(\(stream), below \(sequence))",
      code: code)
  }

  /// The key-value bucket `name` (file storage, one value per key, `replicas` copies), made
  /// when there is none.
  func bucket(_ name: String, replicas: Int) throws(ReplicationError) -> KeyValueBucket {
    var found: OpaquePointer?
    let status = js_KeyValue(&found, context, name)
    if status == NATS_OK, let found { return KeyValueBucket(found, name: name) }
    guard status == NATS_NOT_FOUND else { throw NATSCall.error(status, "js_KeyValue(\(name))", []) }
    var config = kvConfig()
    kvConfig_Init(&config)
    var made: OpaquePointer?
    let created = name.withCString { cName in
      config.Bucket = cName
      config.History = 1
      config.StorageType = js_FileStorage
      config.Replicas = Int32(replicas)
      return js_CreateKeyValue(&made, context, &config)
    }
    try NATSCall.check(created, "js_CreateKeyValue(\(name))")
    guard let made else { throw .nats(operation: "js_CreateKeyValue(\(name))", detail: "no bucket") }
    return KeyValueBucket(made, name: name)
  }
}

/// A JetStream key-value bucket of short text values.
final class KeyValueBucket: @unchecked Sendable {
  // nats.c locks the bucket's state itself; this holds nothing else that changes.
  private let handle: OpaquePointer
  let name: String

  init(_ handle: OpaquePointer, name: String) {
    self.handle = handle
    self.name = name
  }

  deinit { kvStore_Destroy(handle) }

  func put(_ key: String, _ value: String) throws(ReplicationError) {
    var revision: UInt64 = 0
    try NATSCall.check(kvStore_PutString(&revision, handle, key, value), "kvStore_PutString(\(name), \(key))")
  }

  /// The key's value, or `nil` when it has none (or was deleted).
  func get(_ key: String) throws(ReplicationError) -> String? {
    var entry: OpaquePointer?
    let status = kvStore_Get(&entry, handle, key)
    defer { kvEntry_Destroy(entry) }
    if status == NATS_NOT_FOUND { return nil }
    try NATSCall.check(status, "kvStore_Get(\(name), \(key))")
    guard let entry, let value = kvEntry_ValueString(entry) else { return nil }
    return String(cString: value)
  }

  func delete(_ key: String) throws(ReplicationError) {
    try NATSCall.check(kvStore_Delete(handle, key), "kvStore_Delete(\(name), \(key))")
  }

  /// Every key that has a value.
  func keys() throws(ReplicationError) -> [String] {
    var list = kvKeysList()
    let status = kvStore_Keys(&list, handle, nil)
    defer { kvKeysList_Destroy(&list) }
    if status == NATS_NOT_FOUND { return [] }
    try NATSCall.check(status, "kvStore_Keys(\(name))")
    guard let keys = list.Keys else { return [] }
    return (0..<Int(list.Count)).compactMap { keys[$0].map { String(cString: $0) } }
  }
}
