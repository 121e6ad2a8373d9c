internal import Foundation
internal import LiveLog

/// The decoded body of a 200 answer: `{"total_count", "incomplete_results", "items": [...]}`.
///
/// The repositories go through LiveLog's `RecordFile`, the same decoder `livelog ingest` uses, so
/// a bad answer fails with the line, column, item and field at fault instead of crashing (the
/// seed's `items.map { Repo(value: $0) }` crashed on the first unexpected value).
struct SearchResponseBody {
  var repositories: [Repository]
  var totalCount: Int?
  var isIncomplete: Bool

  /// Decodes `data`; `source` names the answer in error messages.
  static func decode(_ data: Data, source: String) throws(GitHubSearchError) -> SearchResponseBody {
    let bytes = [UInt8](data)
    guard bytes.contains(where: { !isJSONWhitespace($0) }) else {
      throw .malformedResponse(
        InputError(source: source, message: "the body is empty, not a search response"))
    }
    // The format is forced: detection would read an empty or line-separated body as NDJSON.
    let mutations: [Mutation]
    do {
      mutations = try RecordFile(source: source, bytes: bytes, format: .searchResponse).mutations(
        of: Repository.self)
    } catch let error as InputError {
      throw .malformedResponse(error)
    } catch {
      throw .malformedResponse(InputError(source: source, message: "\(error)"))
    }
    // `RecordFile` also takes a bare JSON array and `{"delete": ID}` items; neither is an answer
    // of the search API, and a delete must never come in through a search.
    if let first = bytes.first(where: { !isJSONWhitespace($0) }), first != UInt8(ascii: "{") {
      throw .malformedResponse(
        InputError(
          source: source, line: 1,
          message: "expected a search response object with an \"items\" array, found an array"))
    }
    var repositories: [Repository] = []
    repositories.reserveCapacity(mutations.count)
    for (index, mutation) in mutations.enumerated() {
      let repository: Repository?
      do {
        repository = try mutation.record(as: Repository.self)
      } catch {
        throw .malformedResponse(InputError(source: source, item: "items[\(index)]", message: "\(error)"))
      }
      guard let repository else {
        throw .malformedResponse(
          InputError(
            source: source, item: "items[\(index)]", message: "expected a repository, found a delete"))
      }
      repositories.append(repository)
    }
    let envelope = try Envelope.decode(data, source: source)
    return SearchResponseBody(
      repositories: repositories, totalCount: envelope.totalCount,
      isIncomplete: envelope.incompleteResults ?? false)
  }

  private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// The counts around `items`. Both keys are optional (2014 answers lack `incomplete_results`),
  /// but a value of the wrong type is an error like any other field's.
  private struct Envelope: Decodable {
    var totalCount: Int?
    var incompleteResults: Bool?

    private enum Keys: String, CodingKey {
      case totalCount = "total_count"
      case incompleteResults = "incomplete_results"
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Keys.self)
      totalCount = try container.decodeIfPresent(Int.self, forKey: .totalCount)
      incompleteResults = try container.decodeIfPresent(Bool.self, forKey: .incompleteResults)
    }

    static func decode(_ data: Data, source: String) throws(GitHubSearchError) -> Envelope {
      do {
        return try JSONDecoder().decode(Envelope.self, from: data)
      } catch let DecodingError.typeMismatch(type, context), let DecodingError.valueNotFound(type, context) {
        let field = context.codingPath.last?.stringValue
        let expected = type == Bool.self ? "true or false" : "a whole number"
        throw .malformedResponse(InputError(source: source, field: field, message: "expected \(expected)"))
      } catch {
        throw .malformedResponse(InputError(source: source, message: "the counts cannot be read (\(error))"))
      }
    }
  }
}
