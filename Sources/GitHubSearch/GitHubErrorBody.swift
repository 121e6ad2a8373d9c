internal import Foundation

/// The body of a GitHub error answer:
/// `{"message": "Validation Failed", "errors": [{"message": "…", "code": "invalid"}],
///   "documentation_url": "…"}`.
///
/// Read leniently: an error answer from a proxy or a load balancer is often HTML, and then there
/// is simply no message; reading it must never fail the error report itself.
struct GitHubErrorBody: Decodable {
  var message: String?
  var documentationURL: String?
  /// The `errors` entries' messages (or, when an entry has none, its `code` and `field`).
  var details: [String] = []

  private enum Keys: String, CodingKey {
    case message
    case documentationURL = "documentation_url"
    case errors
  }

  private struct Detail: Decodable {
    var message: String?
    var code: String?
    var field: String?
    var resource: String?
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    message = (try? container.decodeIfPresent(String.self, forKey: .message))?.trimmingWhitespace.nonEmpty
    documentationURL = try? container.decodeIfPresent(String.self, forKey: .documentationURL)
    // `errors` holds objects in most answers and plain strings in some older ones.
    if let entries = try? container.decodeIfPresent([Detail].self, forKey: .errors) {
      details = entries.compactMap { entry in
        if let message = entry.message?.trimmingWhitespace.nonEmpty { return message }
        let parts = [entry.resource, entry.field, entry.code].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
      }
    } else if let entries = try? container.decodeIfPresent([String].self, forKey: .errors) {
      details = entries.compactMap { $0.trimmingWhitespace.nonEmpty }
    }
  }

  /// The body of `data`, or `nil` when it is not a JSON object.
  static func read(_ data: Data) -> GitHubErrorBody? {
    try? JSONDecoder().decode(GitHubErrorBody.self, from: data)
  }
}
