/// The shapes of input `ingest` accepts.
public enum InputFormat: String, Sendable, CaseIterable {
  /// A search-API response: `{"total_count": …, "items": [repository, …]}`.
  case searchResponse = "search-response"
  /// A JSON array of repositories (or of `{"upsert": …}` / `{"delete": ID}` objects).
  case array
  /// One JSON object per line: a repository, `{"upsert": repository}` or `{"delete": ID}`.
  case ndjson
  /// Comma-separated values whose header names API fields (`id`, `full_name` or `url`, …).
  case csv

  /// Guesses the format from the name and the first bytes of the input.
  static func detect(source: String, bytes: UnsafeBufferPointer<UInt8>) -> InputFormat {
    if source.lowercased().hasSuffix(".csv") { return .csv }
    var index = RecordFile.byteOrderMarkLength(bytes)
    while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    guard index < bytes.count else { return .ndjson }
    switch bytes[index] {
    case 0x5B: return .array
    case 0x7B:
      // One object filling the input is a search response (if it has "items") or a single
      // repository; anything after the first object makes it NDJSON.
      guard let (value, end) = try? JSONParser.parsePrefix(bytes, from: index) else { return .ndjson }
      var rest = end
      while rest < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[rest]) { rest += 1 }
      if rest == bytes.count, case .object(let object) = value, object["items"] != nil {
        return .searchResponse
      }
      return .ndjson
    default:
      return .csv
    }
  }
}
