@_spi(Replication) import LiveLog

/// One commit as one stream message: the payload is the commit's events in the log's own
/// encoding, byte for byte, each after its length (4 bytes, little-endian); the headers carry
/// the first and last LSN, and the message id (`Nats-Msg-Id`) is the stream's name and the
/// first LSN, so that a resend after a lost acknowledgement is stored once.
enum CommitMessage {
  static let firstLSNHeader = "LiveLog-First-LSN"
  static let lastLSNHeader = "LiveLog-Last-LSN"
  /// The checksum of the event the commit was made after (hex), which chains each commit to the
  /// history before it.
  static let previousHeader = "LiveLog-Previous-Checksum"
  static let messageIDHeader = "Nats-Msg-Id"
  /// `index/count` (from 0) on each part of a commit larger than a message; absent on a commit
  /// of one message.
  static let partHeader = "LiveLog-Part"
  static let headerNames = [firstLSNHeader, lastLSNHeader, previousHeader, messageIDHeader, partHeader]
  /// What a part's headers may take of the server's message limit (they need under 300 bytes).
  static let headerAllowance = 1024

  static func subject(stream: String) -> String { "livelog.\(stream).commits" }

  static func messageID(stream: String, firstLSN: UInt64) -> String { "\(stream):\(firstLSN)" }

  static func payload(_ commit: EncodedCommit) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(commit.events.reduce(0) { $0 + 4 + $1.count })
    for event in commit.events {
      withUnsafeBytes(of: UInt32(event.count).littleEndian) { bytes.append(contentsOf: $0) }
      bytes.append(contentsOf: event)
    }
    return bytes
  }

  static func headers(_ commit: EncodedCommit) -> [(String, String)] {
    [
      (firstLSNHeader, String(commit.firstLSN)), (lastLSNHeader, String(commit.lastLSN)),
      (previousHeader, String(commit.previousChecksum, radix: 16)),
    ]
  }

  /// The messages that carry `commit` when the server takes at most `maximumPayload` bytes a
  /// message: one, or parts that split its payload, each with the commit's headers and its
  /// `LiveLog-Part`. A part's message id names its place — the stream sequence the first part
  /// is published after — so that a commit published again at another place after its parts
  /// were abandoned is not taken for a duplicate of them.
  static func messages(
    _ commit: EncodedCommit, stream: String, maximumPayload: Int, after sequence: UInt64
  ) -> [(payload: [UInt8], headers: [(String, String)], id: String)] {
    let whole = payload(commit)
    let id = messageID(stream: stream, firstLSN: commit.firstLSN)
    let size = max(1, maximumPayload - headerAllowance)
    guard whole.count > size else { return [(whole, headers(commit), id)] }
    let count = (whole.count + size - 1) / size
    return (0..<count).map { index in
      let part = Array(whole[index * size..<min(whole.count, (index + 1) * size)])
      return (
        part, headers(commit) + [(partHeader, "\(index)/\(count)")], "\(id):\(index)/\(count)@\(sequence)"
      )
    }
  }

  /// What a message holds of its commit.
  enum Share: Equatable {
    case whole
    case part(index: Int, count: Int)
    /// Its `LiveLog-Part` header is not `index/count`.
    case unreadable
  }

  static func share(_ message: StreamMessage) -> Share {
    guard let text = message.headers[partHeader] else { return .whole }
    let fields = text.split(separator: "/")
    guard fields.count == 2, let index = Int(fields[0]), let count = Int(fields[1]), count >= 2, index >= 0,
      index < count
    else { return .unreadable }
    return .part(index: index, count: count)
  }

  /// The commit a message carries, checked against its headers; `reason` says what is wrong.
  static func commit(_ message: StreamMessage) -> (commit: EncodedCommit?, firstLSN: UInt64?, reason: String)
  {
    guard let first = message.headers[firstLSNHeader].flatMap(UInt64.init),
      let last = message.headers[lastLSNHeader].flatMap(UInt64.init), first >= 1, last >= first,
      let previous = message.headers[previousHeader].flatMap({ UInt32($0, radix: 16) })
    else {
      return (
        nil, nil, "the message has no valid \(firstLSNHeader), \(lastLSNHeader) and \(previousHeader) headers"
      )
    }
    var events: [[UInt8]] = []
    var offset = 0
    let bytes = message.payload
    while offset < bytes.count {
      guard offset + 4 <= bytes.count else { return (nil, first, "the payload ends inside a length") }
      let length = bytes.withUnsafeBytes {
        Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      }
      offset += 4
      guard length <= bytes.count - offset else { return (nil, first, "the payload ends inside an event") }
      events.append(Array(bytes[offset..<offset + length]))
      offset += length
    }
    guard UInt64(events.count) == last - first + 1 else {
      return (nil, first, "it holds \(events.count) events, not the \(last - first + 1) its headers name")
    }
    let commit = EncodedCommit(firstLSN: first, events: events, previousChecksum: previous)
    do {
      try commit.validate()
    } catch {
      return (nil, first, "\(error)")
    }
    return (commit, first, "")
  }
}
