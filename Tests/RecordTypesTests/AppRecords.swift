import Foundation
import LiveLog

/// An app's own record with a `UUID` key: every field type, a nested type, optionals.
struct Bookmark: Record, Hashable {
  var id: UUID
  var title: String
  var url: String
  var stars: Int?
  var rating: Double?
  var tags: [String]
  var scores: [Int]?
  var savedAt: Date
  var isArchived: Bool?
  var owner: Owner?

  struct Owner: Codable, Sendable, Hashable {
    var login: String
    var avatar: String?
  }

  static let schema = Schema<Bookmark>(
    "bookmarks",
    fields: [
      .field("title", \.title, indexes: .substring),
      .field("url", \.url, indexes: .equality),
      .field("stars", \.stars, indexes: .ordered),
      .field("rating", \.rating, indexes: .ordered),
      .field("tags", \.tags, indexes: .equality),
      .field("scores", \.scores, indexes: .equality),
      .field("saved_at", \.savedAt, indexes: .ordered),
      .field("archived", \.isArchived, indexes: .equality),
      .field("owner.login", \.owner?.login, indexes: [.equality, .substring]),
      .field("owner.avatar", \.owner?.avatar),
    ])
}

/// A GitHub issue keyed by its `node_id`, a `String`.
struct IssueRecord: Record, Hashable {
  var id: String
  var number: Int64
  var title: String
  var state: String
  var comments: Int
  var labels: [String]
  var createdAt: Timestamp
  var closedAt: Timestamp?

  static let schema = Schema<IssueRecord>(
    "issues", primaryKey: "node_id",
    fields: [
      .field("number", \.number, indexes: .ordered),
      .field("title", \.title, indexes: .substring),
      .field("state", \.state, indexes: .equality),
      .field("comments", \.comments, indexes: .ordered),
      .field("labels", \.labels, indexes: .equality),
      .field("created_at", \.createdAt, indexes: .ordered),
      .field("closed_at", \.closedAt),
    ])
}

/// Values drawn from a seed, so that a failing case can be run again.
struct Generator: RandomNumberGenerator {
  private var random: SplitMix64

  init(seed: UInt64) { random = SplitMix64(seed: seed &+ 0x9E37_79B9_7F4A_7C15) }

  mutating func next() -> UInt64 { random.next() }

  static let words = [
    "swift", "Swift", "animation", "café", "CAFÉ", "json", "rust", "go", "ui", "kit", "straße",
  ]

  mutating func bookmark() -> Bookmark {
    var random = self
    defer { self = random }
    func word() -> String { Generator.words.randomElement(using: &random) ?? "x" }
    return Bookmark(
      id: UUID(), title: "\(word()) \(word())",
      url: "https://example.com/\(word())/\(Int.random(in: 0...50, using: &random))",
      stars: Bool.random(using: &random) ? Int.random(in: -5...500, using: &random) : nil,
      rating: Int.random(in: 0..<4, using: &random) == 0
        ? nil : Double(Int.random(in: 0...40, using: &random)) / 8,
      tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in word() },
      scores: Bool.random(using: &random)
        ? (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0...9, using: &random) }
        : nil,
      savedAt: Date(
        timeIntervalSince1970: 1_700_000_000 + Double(Int.random(in: 0...1_000_000, using: &random)) / 7),
      isArchived: [true, false, nil].randomElement(using: &random) ?? nil,
      owner: Bool.random(using: &random)
        ? Bookmark.Owner(login: word(), avatar: Bool.random(using: &random) ? "a/\(word())" : nil) : nil)
  }

  mutating func issue(number: Int64) -> IssueRecord {
    var random = self
    defer { self = random }
    func word() -> String { Generator.words.randomElement(using: &random) ?? "x" }
    let created = Timestamp(
      secondsSince1970: 1_600_000_000 + Int64.random(in: 0...10_000_000, using: &random))
    return IssueRecord(
      id: "I_kwDO\(number)", number: number, title: "\(word()) breaks \(word())",
      state: Bool.random(using: &random) ? "open" : "closed",
      comments: Int.random(in: 0...40, using: &random),
      labels: (0..<Int.random(in: 0...2, using: &random)).map { _ in word() }, createdAt: created,
      closedAt: Bool.random(using: &random)
        ? Timestamp(secondsSince1970: created.secondsSince1970 + 86_400) : nil)
  }
}
