/// Why a recorded-responses directory cannot be used, or has no answer for a request.
public enum RecordedResponsesError: Error, Sendable, Hashable, CustomStringConvertible {
  /// `manifest.json` is missing or is not the expected JSON.
  case unreadableManifest(path: String, reason: String)
  /// An entry is inconsistent (a status outside 100…599, a body file that cannot be read).
  case invalidEntry(name: String, reason: String)
  /// No entry answers the request; `recorded` lists what the directory has.
  case noRecording(request: String, recorded: [String])
  /// The request is not a repository search (another path, no `q`).
  case notASearch(url: String)

  public var description: String {
    switch self {
    case .unreadableManifest(let path, let reason):
      "the recorded responses' manifest \(path) cannot be read: \(reason)"
    case .invalidEntry(let name, let reason):
      "the recorded response “\(name)” is unusable: \(reason)"
    case .noRecording(let request, let recorded):
      "no recorded response for \(request) (offline source; recorded searches: "
        + recorded.joined(separator: ", ") + ")"
    case .notASearch(let url):
      "the offline source answers repository searches only, not \(url)"
    }
  }
}
