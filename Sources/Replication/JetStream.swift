import CNATS
import Foundation

/// A connection to NATS and its JetStream context: the few calls replication makes, in Swift
/// types. nats.c's connection and JetStream context may be used from any thread (the library
/// locks them itself), which is why this class is `@unchecked Sendable`; it holds no Swift state
/// of its own that changes.
final class JetStream: @unchecked Sendable {
  private let connection: OpaquePointer
  let context: OpaquePointer
  /// How long a request (a publish's acknowledgement, a stream lookup) may take, in ms.
  let timeout: Int64

  /// Connects to the configuration's servers, with its request timeout.
  convenience init(_ configuration: ReplicationConfiguration) throws(ReplicationError) {
    try self.init(servers: configuration.servers, timeout: configuration.timeoutMilliseconds)
  }

  /// Connects to the first of `servers` that answers; reconnects on its own later.
  init(servers: [String], timeout: Int64) throws(ReplicationError) {
    self.timeout = timeout
    var options: OpaquePointer?
    try NATSCall.check(natsOptions_Create(&options), "natsOptions_Create", servers)
    defer { natsOptions_Destroy(options) }
    let status = CStrings.with(servers) { pointers, count in
      natsOptions_SetServers(options, pointers, Int32(count))
    }
    try NATSCall.check(status, "natsOptions_SetServers", servers)
    try NATSCall.check(natsOptions_SetTimeout(options, timeout), "natsOptions_SetTimeout", servers)
    try NATSCall.check(natsOptions_SetMaxReconnect(options, -1), "natsOptions_SetMaxReconnect", servers)
    try NATSCall.check(natsOptions_SetReconnectWait(options, 100), "natsOptions_SetReconnectWait", servers)
    var connection: OpaquePointer?
    try NATSCall.check(natsConnection_Connect(&connection, options), "natsConnection_Connect", servers)
    guard let connection else { throw .nats(operation: "natsConnection_Connect", detail: "no connection") }
    var jsOptions = jsOptions()
    jsOptions_Init(&jsOptions)
    jsOptions.Wait = timeout
    var context: OpaquePointer?
    let jsStatus = natsConnection_JetStream(&context, connection, &jsOptions)
    guard jsStatus == NATS_OK, let context else {
      natsConnection_Destroy(connection)
      throw NATSCall.error(jsStatus, "natsConnection_JetStream", servers)
    }
    self.connection = connection
    self.context = context
  }

  deinit {
    jsCtx_Destroy(context)
    natsConnection_Close(connection)
    natsConnection_Destroy(connection)
  }

  /// The largest message (headers and payload) the connected server takes, in bytes.
  var maximumPayload: Int { Int(natsConnection_GetMaxPayload(connection)) }

  /// The stream's state, or `nil` when there is no such stream.
  func streamState(_ name: String) throws(ReplicationError) -> StreamState? {
    var info: UnsafeMutablePointer<jsStreamInfo>?
    var code = jsErrCode(0)
    let status = js_GetStreamInfo(&info, context, name, nil, &code)
    defer { jsStreamInfo_Destroy(info) }
    if status == NATS_NOT_FOUND || code == JSStreamNotFoundErr { return nil }
    try NATSCall.check(status, "js_GetStreamInfo(\(name))", code: code)
    guard let info else {
      throw .nats(operation: "js_GetStreamInfo(\(name))", detail: "no stream information")
    }
    return StreamState(
      firstSequence: info.pointee.State.FirstSeq, lastSequence: info.pointee.State.LastSeq,
      leader: info.pointee.Cluster?.pointee.Leader.map { String(cString: $0) })
  }

  /// Creates the stream (file storage, `replicas` copies, no limits) unless it exists.
  func addStream(_ name: String, subject: String, replicas: Int) throws(ReplicationError) {
    var config = jsStreamConfig()
    jsStreamConfig_Init(&config)
    var info: UnsafeMutablePointer<jsStreamInfo>?
    var code = jsErrCode(0)
    let status = name.withCString { cName in
      subject.withCString { cSubject in
        var subjects: [UnsafePointer<CChar>?] = [cSubject]
        return subjects.withUnsafeMutableBufferPointer { list in
          config.Name = cName
          config.Subjects = list.baseAddress
          config.SubjectsLen = 1
          config.Storage = js_FileStorage
          config.Replicas = Int64(replicas)
          config.MaxMsgs = -1
          config.MaxBytes = -1
          config.MaxAge = 0
          config.MaxMsgSize = -1
          config.Discard = js_DiscardNew
          return js_AddStream(&info, context, &config, nil, &code)
        }
      }
    }
    jsStreamInfo_Destroy(info)
    if code == JSStreamNameExistErr { return }
    try NATSCall.check(status, "js_AddStream(\(name))", code: code)
  }

  /// Deletes the stream (tests that rewind a stream under a replica).
  func deleteStream(_ name: String) throws(ReplicationError) {
    var code = jsErrCode(0)
    try NATSCall.check(js_DeleteStream(context, name, nil, &code), "js_DeleteStream(\(name))", code: code)
  }

  /// Publishes `payload` with `headers`, deduplicated by `messageID`, on the condition that the
  /// stream's last sequence is `expectedLastSequence`.
  func publish(
    subject: String, payload: [UInt8], headers: [(String, String)], messageID: String,
    expectedLastSequence: UInt64
  ) throws(ReplicationError) -> PublishOutcome {
    var message: OpaquePointer?
    let created = payload.withUnsafeBytes { bytes in
      natsMsg_Create(
        &message, subject, nil, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
    }
    try NATSCall.check(created, "natsMsg_Create")
    defer { natsMsg_Destroy(message) }
    for (key, value) in headers {
      try NATSCall.check(natsMsgHeader_Set(message, key, value), "natsMsgHeader_Set(\(key))")
    }
    var options = jsPubOptions()
    jsPubOptions_Init(&options)
    options.MaxWait = timeout
    options.ExpectLastSeq = expectedLastSequence
    var ack: UnsafeMutablePointer<jsPubAck>?
    var code = jsErrCode(0)
    let status = messageID.withCString { id in
      options.MsgId = id
      return js_PublishMsg(&ack, context, message, &options, &code)
    }
    defer { jsPubAck_Destroy(ack) }
    if code == JSStreamWrongLastSequenceErr { return .wrongLastSequence }
    if status == NATS_MAX_PAYLOAD { return .tooLarge(NATSCall.describe(status, code: code)) }
    if status == NATS_TIMEOUT || status == NATS_NO_RESPONDERS || status == NATS_CONNECTION_DISCONNECTED
      || status == NATS_CONNECTION_CLOSED
    {
      return .noAnswer(NATSCall.describe(status, code: code))
    }
    try NATSCall.check(status, "js_PublishMsg(\(subject))", code: code)
    guard let ack else { throw .nats(operation: "js_PublishMsg(\(subject))", detail: "no acknowledgement") }
    return .stored(sequence: ack.pointee.Sequence, duplicate: ack.pointee.Duplicate)
  }

  /// The message at `sequence` of the stream, or `nil` when it has none there.
  func message(_ stream: String, at sequence: UInt64) throws(ReplicationError) -> StreamMessage? {
    var message: OpaquePointer?
    var code = jsErrCode(0)
    let status = js_GetMsg(&message, context, stream, sequence, nil, &code)
    defer { natsMsg_Destroy(message) }
    if status == NATS_NOT_FOUND || code == JSNoMessageFoundErr || code == JSStreamNotFoundErr { return nil }
    try NATSCall.check(status, "js_GetMsg(\(stream), \(sequence))", code: code)
    guard let message else { return nil }
    return StreamMessage(message, sequence: natsMsg_GetSequence(message), pending: 0)
  }

  /// An ordered consumer of `subject` from `sequence` on: messages in stream order, none twice.
  func subscribe(_ stream: String, subject: String, from sequence: UInt64) throws(ReplicationError)
    -> OrderedSubscription
  {
    var options = jsSubOptions()
    jsSubOptions_Init(&options)
    options.Ordered = true
    options.Config.DeliverPolicy = js_DeliverByStartSequence
    options.Config.OptStartSeq = max(sequence, 1)
    var subscription: OpaquePointer?
    var code = jsErrCode(0)
    let status = stream.withCString { cStream in
      options.Stream = cStream
      return js_SubscribeSync(&subscription, context, subject, nil, &options, &code)
    }
    try NATSCall.check(status, "js_SubscribeSync(\(subject))", code: code)
    guard let subscription else {
      throw .nats(operation: "js_SubscribeSync(\(subject))", detail: "no subscription")
    }
    return OrderedSubscription(subscription)
  }
}

/// What the server said of a stream.
struct StreamState: Sendable, Hashable {
  /// The sequence of the stream's first message: above 1 once the stream was purged (and the
  /// head + 1 when it holds none).
  var firstSequence: UInt64
  var lastSequence: UInt64
  /// The name of the server that leads the stream, in a cluster.
  var leader: String?
}

/// How a publish ended.
enum PublishOutcome: Sendable, Hashable {
  /// Stored at `sequence`; `duplicate` when a message with the same id was stored before.
  case stored(sequence: UInt64, duplicate: Bool)
  /// The stream's last sequence was not the expected one: another writer published first.
  case wrongLastSequence
  /// The server takes no message this large.
  case tooLarge(String)
  /// No acknowledgement came (timeout, no server): the message may or may not be stored.
  case noAnswer(String)
}

/// A message of a stream, copied out of nats.c's.
struct StreamMessage: Sendable {
  var sequence: UInt64
  var payload: [UInt8]
  var headers: [String: String]
  /// Messages of the stream after this one, as the consumer knew when it delivered it.
  var pending: UInt64

  init(_ message: OpaquePointer, sequence: UInt64, pending: UInt64) {
    self.sequence = sequence
    self.pending = pending
    let count = Int(natsMsg_GetDataLength(message))
    if count > 0, let data = natsMsg_GetData(message) {
      payload = Array(UnsafeRawBufferPointer(start: data, count: count))
    } else {
      payload = []
    }
    var headers: [String: String] = [:]
    for key in CommitMessage.headerNames {
      var value: UnsafePointer<CChar>?
      if natsMsgHeader_Get(message, key, &value) == NATS_OK, let value {
        headers[key] = String(cString: value)
      }
    }
    self.headers = headers
  }
}

/// An ordered push consumer's subscription.
final class OrderedSubscription: @unchecked Sendable {
  // Used by one thread at a time (the follower's loop); nats.c locks the subscription itself.
  private let subscription: OpaquePointer

  init(_ subscription: OpaquePointer) { self.subscription = subscription }

  deinit {
    natsSubscription_Unsubscribe(subscription)
    natsSubscription_Destroy(subscription)
  }

  /// The next message, or `nil` when none came within `timeout` ms.
  func next(timeout: Int64) throws(ReplicationError) -> StreamMessage? {
    var message: OpaquePointer?
    let status = natsSubscription_NextMsg(&message, subscription, timeout)
    defer { natsMsg_Destroy(message) }
    if status == NATS_TIMEOUT { return nil }
    try NATSCall.check(status, "natsSubscription_NextMsg")
    guard let message else { return nil }
    var meta: UnsafeMutablePointer<jsMsgMetaData>?
    try NATSCall.check(natsMsg_GetMetaData(&meta, message), "natsMsg_GetMetaData")
    defer { jsMsgMetaData_Destroy(meta) }
    guard let meta else { throw .nats(operation: "natsMsg_GetMetaData", detail: "no metadata") }
    return StreamMessage(message, sequence: meta.pointee.Sequence.Stream, pending: meta.pointee.NumPending)
  }
}

/// nats.c's statuses as `ReplicationError`s.
enum NATSCall {
  static func check(
    _ status: natsStatus, _ operation: String, _ servers: [String] = [], code: jsErrCode = jsErrCode(0)
  )
    throws(ReplicationError)
  {
    guard status == NATS_OK else { throw error(status, operation, servers, code: code) }
  }

  static func error(
    _ status: natsStatus, _ operation: String, _ servers: [String], code: jsErrCode = jsErrCode(0)
  )
    -> ReplicationError
  {
    if status == NATS_NO_SERVER || (operation == "natsConnection_Connect" && status == NATS_TIMEOUT) {
      return .unreachable(servers: servers, detail: describe(status, code: code))
    }
    return .nats(operation: operation, detail: describe(status, code: code))
  }

  static func describe(_ status: natsStatus, code: jsErrCode) -> String {
    var text = String(cString: natsStatus_GetText(status))
    var last = natsStatus(0)
    if let detail = nats_GetLastError(&last), detail.pointee != 0 {
      let message = String(cString: detail)
      if message != text { text += ": " + message }
    }
    if code.rawValue != 0 { text += " (JetStream error \(code.rawValue))" }
    return text
  }
}

/// C string arrays that live for the length of a call.
enum CStrings {
  static func with<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?, Int) -> R)
    -> R
  {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress, strings.count) }
  }
}
