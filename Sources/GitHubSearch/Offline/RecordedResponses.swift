public import Foundation
internal import Synchronization

#if canImport(FoundationNetworking)
  public import FoundationNetworking
#endif

/// An offline GitHub: answers search requests from recorded responses in a directory, for tests
/// and the demo on machines without internet access.
///
/// The directory holds `manifest.json` (see `Docs/GitHubClient.md`), whose entries name a request
/// (term, language, page, page size), a status, headers and a body file. Matching:
/// - Entries with the same request form a sequence, answered in manifest order, one per request:
///   successive fetches of one search can bring successive recordings. The last one repeats.
/// - A 200 entry with an `ETag` answers 304 (headers only) when the request's `If-None-Match`
///   names that ETag, as GitHub would.
/// - Header values may say `{{now}}` or `{{now+SECONDS}}` (or `-`), replaced by the Unix time
///   when served, so that a recorded rate limit resets a minute after the demo hits it.
/// - A request no entry answers throws `RecordedResponsesError.noRecording`, listing what exists.
public final class RecordedResponses: HTTPTransport {
  /// One entry, loaded.
  struct Recording: Sendable {
    var name: String
    var pattern: RecordingManifest.RequestPattern
    var status: Int
    var headers: [String: String]
    var body: Data
  }

  private let groups: [[Recording]]
  private let latency: Duration
  private let now: @Sendable () -> Date
  private let state = Mutex<(counters: [Int], served: [String])>(([], []))

  /// Loads `directory/manifest.json` and every body it names, so that a broken recording fails
  /// here rather than in the middle of a demo. `latency` delays each answer (cancellably), to make
  /// the demo's requests visible; `now` is the clock of `{{now}}` headers.
  public init(
    directory: URL, latency: Duration = .zero, now: @escaping @Sendable () -> Date = { Date() }
  ) throws(RecordedResponsesError) {
    let manifestURL = directory.appendingPathComponent("manifest.json")
    let manifest: RecordingManifest
    do {
      manifest = try JSONDecoder().decode(RecordingManifest.self, from: try Data(contentsOf: manifestURL))
    } catch {
      throw .unreadableManifest(path: manifestURL.path, reason: Self.describe(error))
    }
    var groups: [[Recording]] = []
    var seen = Set<String>()
    for entry in manifest.entries {
      guard (100...599).contains(entry.status) else {
        throw .invalidEntry(name: entry.name, reason: "status \(entry.status) is not an HTTP status")
      }
      guard seen.insert(entry.name).inserted else {
        throw .invalidEntry(name: entry.name, reason: "another entry has the same name")
      }
      var body = Data()
      if let path = entry.body {
        let url = directory.appendingPathComponent(path)
        do {
          body = try Data(contentsOf: url)
        } catch {
          throw .invalidEntry(name: entry.name, reason: "its body file \(url.path) cannot be read")
        }
      }
      let recording = Recording(
        name: entry.name, pattern: entry.request, status: entry.status, headers: entry.headers ?? [:],
        body: body)
      if let index = groups.firstIndex(where: { $0[0].pattern == entry.request }) {
        groups[index].append(recording)
      } else {
        groups.append([recording])
      }
    }
    self.groups = groups
    self.latency = latency
    self.now = now
    state.withLock { $0.counters = Array(repeating: 0, count: groups.count) }
  }

  /// The names of the entries served so far, in order (a 304 made from an entry adds
  /// `NAME (304)`).
  public var served: [String] { state.withLock { $0.served } }

  /// The searches the directory can answer, one line per request sequence.
  public var recordedRequests: [String] {
    groups.map { group in "\(group[0].pattern.summary) ×\(group.count)" }
  }

  /// Starts every sequence again from its first recording.
  public func rewind() {
    state.withLock { state in
      state.counters = Array(repeating: 0, count: groups.count)
      state.served = []
    }
  }

  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    guard let url = request.url else {
      throw RecordedResponsesError.notASearch(url: "a request without a URL")
    }
    guard let asked = RecordedRequest(url: url) else {
      throw RecordedResponsesError.notASearch(url: url.absoluteString)
    }
    if latency > .zero { try await Task.sleep(for: latency) }
    try Task.checkCancellation()
    guard let group = groups.firstIndex(where: { $0[0].pattern.matches(asked) }) else {
      throw RecordedResponsesError.noRecording(request: asked.description, recorded: recordedRequests)
    }
    let recording = state.withLock { state in
      let recordings = groups[group]
      let recording = recordings[min(state.counters[group], recordings.count - 1)]
      state.counters[group] += 1
      return recording
    }
    var status = recording.status
    var body = recording.body
    if status == 200, let etag = header("ETag", in: recording.headers),
      let asking = request.value(forHTTPHeaderField: "If-None-Match"),
      Self.etags(asking).contains(where: { $0 == "*" || Self.weaklyEqual($0, etag) })
    {
      status = 304
      body = Data()
    }
    state.withLock {
      $0.served.append(status == recording.status ? recording.name : "\(recording.name) (304)")
    }
    let headers = recording.headers.mapValues { expand($0) }
    guard
      let response = HTTPURLResponse(
        url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
    else {
      throw RecordedResponsesError.invalidEntry(
        name: recording.name, reason: "no HTTP response can be made of it")
    }
    return (body, response)
  }

  // MARK: Internals

  private func header(_ name: String, in headers: [String: String]) -> String? {
    headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
  }

  /// Replaces `{{now}}`, `{{now+N}}` and `{{now-N}}` with Unix times.
  private func expand(_ value: String) -> String {
    guard value.contains("{{now") else { return value }
    var result = ""
    var rest = Substring(value)
    let seconds = Int(now().timeIntervalSince1970)
    while let open = rest.range(of: "{{now"), let close = rest[open.upperBound...].range(of: "}}") {
      result += rest[..<open.lowerBound]
      let offset = rest[open.upperBound..<close.lowerBound].filter { !$0.isWhitespace }
      let delta = offset.isEmpty ? 0 : Int(offset.hasPrefix("+") ? String(offset.dropFirst()) : offset)
      result += delta.map { String(seconds + $0) } ?? String(rest[open.lowerBound..<close.upperBound])
      rest = rest[close.upperBound...]
    }
    return result + rest
  }

  /// The entity tags of an `If-None-Match` list.
  private static func etags(_ list: String) -> [String] {
    list.split(separator: ",").map { String($0).trimmingWhitespace }.filter { !$0.isEmpty }
  }

  /// If-None-Match compares weakly: `W/"x"` matches `"x"`.
  private static func weaklyEqual(_ a: String, _ b: String) -> Bool {
    func opaque(_ tag: String) -> String { tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
    return opaque(a) == opaque(b)
  }

  private static func describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.keyNotFound(let key, let context):
      "missing \"\(key.stringValue)\" at \(path(context))"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      "wrong type at \(path(context))"
    case DecodingError.dataCorrupted(let context):
      "not JSON (\(context.debugDescription))"
    case let error as CocoaError where error.code == .fileReadNoSuchFile:
      "no such file"
    default:
      "\(error)"
    }
  }

  private static func path(_ context: DecodingError.Context) -> String {
    let path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
    return path.isEmpty ? "the top level" : path.joined()
  }
}
