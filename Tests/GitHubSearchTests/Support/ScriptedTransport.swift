import Foundation
import GitHubSearch
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A transport that answers from a script: each request gets the next answer (the last repeats),
/// and every request is kept for inspection.
final class ScriptedTransport: HTTPTransport {
  enum Answer: Sendable {
    case http(status: Int, headers: [String: String], body: Data)
    case failure(any Error & Sendable)
  }

  private let state: Mutex<(answers: [Answer], requests: [URLRequest])>

  init(_ answers: [Answer]) { state = Mutex((answers, [])) }

  convenience init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
    self.init([.http(status: status, headers: headers, body: body)])
  }

  convenience init(status: Int = 200, headers: [String: String] = [:], text: String) {
    self.init(status: status, headers: headers, body: Data(text.utf8))
  }

  var requests: [URLRequest] { state.withLock { $0.requests } }

  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let answer = state.withLock { state in
      state.requests.append(request)
      return state.answers.count > 1 ? state.answers.removeFirst() : state.answers.first
    }
    switch answer {
    case .http(let status, let headers, let body)?:
      return (body, try httpResponse(request, status: status, headers: headers))
    case .failure(let error)?:
      throw error
    case nil:
      throw URLError(.resourceUnavailable)
    }
  }
}

/// An `HTTPURLResponse` for `request`.
func httpResponse(_ request: URLRequest, status: Int, headers: [String: String] = [:]) throws
  -> HTTPURLResponse
{
  guard let url = request.url,
    let response = HTTPURLResponse(
      url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
  else { throw URLError(.badURL) }
  return response
}

/// A search response body with `items`.
func searchBody(_ items: String, totalCount: Int = 1) -> Data {
  Data(#"{"total_count": \#(totalCount), "incomplete_results": false, "items": [\#(items)]}"#.utf8)
}

/// One minimal repository object.
func repositoryJSON(id: Int, fullName: String, stars: Int = 1) -> String {
  #"{"id": \#(id), "full_name": "\#(fullName)", "name": "\#(fullName.split(separator: "/").last ?? "")", "stargazers_count": \#(stars), "language": "Swift"}"#
}
