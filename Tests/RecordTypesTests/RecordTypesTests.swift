import Changesets
import Foundation
import LiveLog
import Synchronization
import Testing

/// Two record types of an app's own, stored beside `Repository` and used through the public API
/// only: every capability of the store on each of them.
@Suite struct RecordTypesTests {
  /// 300 bookmarks and 200 issues, drawn from a seed.
  static func records(seed: UInt64) -> ([Bookmark], [IssueRecord]) {
    var generator = Generator(seed: seed)
    return ((0..<300).map { _ in generator.bookmark() }, (1...200).map { generator.issue(number: Int64($0)) })
  }

  @Test func recordsOfEveryTypeRoundTripInOneCommit() throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    let (bookmarks, issues) = Self.records(seed: 1)
    var repository = Repository(id: 7, fullName: "apple/swift")
    repository.language = "C++"
    let summary = try store.write(
      bookmarks.map { .upsert($0) } + issues.map { .upsert($0) } + [.upsert(repository)])
    // Three collections were created, then one commit wrote all 501 records.
    #expect(summary.commits == 1 && summary.inserted == 501)
    #expect(
      try store.count(Bookmark.self) == 300 && store.count(IssueRecord.self) == 200
        && store.count(Repository.self) == 1)
    for bookmark in bookmarks { #expect(try store.record(Bookmark.self, id: bookmark.id) == bookmark) }
    for issue in issues { #expect(try store.record(IssueRecord.self, id: issue.id) == issue) }
    #expect(try store.record(Repository.self, id: 7) == repository)
    #expect(try store.collections().map(\.name).sorted() == ["bookmarks", "issues", "repositories"])
    // A record read by name has the schema's shape.
    let first = try #require(try store.record(in: "bookmarks", key: bookmarks[0].id.primaryKey))
    #expect(first["title"] == .string(bookmarks[0].title))
    #expect(first["owner.login"] == (bookmarks[0].owner.map { .string($0.login) } ?? .null))
    // An identical upsert writes nothing; a delete of one type leaves the others alone.
    #expect(try store.write([.upsert(bookmarks[0])]).unchanged == 1)
    #expect(
      try store.write([.delete(Bookmark.self, id: bookmarks[0].id), .delete(IssueRecord.self, id: "none")])
        .deleted == 1)
    #expect(try store.record(Bookmark.self, id: bookmarks[0].id) == nil)
    #expect(try store.count(IssueRecord.self) == 200)
  }

  /// Each query's text form, typed form and a brute-force filter of the records agree.
  @Test func textAndTypedQueriesMatchABruteForceFilter() throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    let (bookmarks, issues) = Self.records(seed: 2)
    try store.write(bookmarks.map { .upsert($0) } + issues.map { .upsert($0) })
    let day = Date(timeIntervalSince1970: 1_700_060_000)
    let cases: [(String, Query, (Bookmark) -> Bool)] = [
      (
        "title CONTAINS[c] 'swift'",
        .where(Bookmark.self) { $0.title.contains("swift", options: .caseInsensitive) },
        { $0.title.lowercased().contains("swift") }
      ),
      ("stars > 100", .where(Bookmark.self) { $0.stars > 100 }, { ($0.stars ?? Int.min) > 100 }),
      (
        "rating BETWEEN {1, 3}", .where(Bookmark.self) { $0.rating.between(1, 3) },
        { $0.rating.map { $0 >= 1 && $0 <= 3 } ?? false }
      ),
      ("ANY tags == 'ui'", .where(Bookmark.self) { $0.tags.contains("ui") }, { $0.tags.contains("ui") }),
      (
        "ANY scores >= 5", .where(Bookmark.self) { $0.scores.any { $0 >= 5 } },
        { $0.scores?.contains { $0 >= 5 } ?? false }
      ),
      (
        "owner.login == 'json'", .where(Bookmark.self) { $0[\.owner?.login] == "json" },
        { $0.owner?.login == "json" }
      ),
      ("archived == true", .where(Bookmark.self) { $0.isArchived == true }, { $0.isArchived == true }),
      ("saved_at > %@", .where(Bookmark.self) { $0.savedAt > day }, { $0.savedAt > day }),
      (
        "url BEGINSWITH 'https://example.com/rust' AND stars != nil",
        .where(Bookmark.self) { $0.url.hasPrefix("https://example.com/rust") && $0.stars != nil },
        { $0.url.hasPrefix("https://example.com/rust") && $0.stars != nil }
      ),
    ]
    let all = try store.objects(Bookmark.self)
    for (text, typed, oracle) in cases {
      let arguments: [any QueryArgument] = text.contains("%@") ? [day] : []
      let parsed = try Query(parsing: text, for: Bookmark.self, arguments: arguments)
      #expect(parsed == typed, "\(text)")
      let expected = bookmarks.filter(oracle).map(\.id)
      #expect(Set(try all.with(parsed).ids()) == Set(expected), "\(text)")
      // Insertion order without a sort; with one, stars descending then insertion order.
      #expect(try all.with(parsed).ids() == expected, "\(text)")
      let sorted = all.with(parsed).sorted(by: \.stars, ascending: false).limit(5)
      let oracleSorted = bookmarks.filter(oracle).enumerated().sorted { a, b in
        let (x, y) = (a.element.stars, b.element.stars)
        if x != y { return (x ?? Int.min) > (y ?? Int.min) }
        return a.offset < b.offset
      }.prefix(5).map(\.element.id)
      #expect(try sorted.ids() == Array(oracleSorted), "\(text) sorted")
    }
    // The planner answers from the indexes the schema declares.
    let plan = try store.explain(
      try Query(parsing: "title CONTAINS[c] 'swift' AND stars > 100", for: Bookmark.self), in: "bookmarks")
    #expect(plan.usesIndex)
    #expect(plan.steps.contains { $0.description.contains("substring index of title") })
    #expect(plan.steps.contains { $0.description.contains("ordered index of stars") })
    // A string key answers equality, and issues sort by their number.
    let open = try store.objects(IssueRecord.self).filter("state == 'open'").sorted(
      by: "number", ascending: false)
    #expect(try open.ids() == issues.filter { $0.state == "open" }.sorted { $0.number > $1.number }.map(\.id))
    #expect(try store.objects(IssueRecord.self).filter("node_id == %@", issues[3].id).ids() == [issues[3].id])
  }

  @Test func wrongDeclarationsAreRefusedWhenTheTypeIsFirstUsed() throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    func refusal<R: Record>(_ type: R.Type) -> SchemaError? {
      do {
        _ = try store.objects(type)
        return nil
      } catch let error as SchemaError {
        return error
      } catch {
        Issue.record("\(type): \(error)")
        return nil
      }
    }
    #expect(refusal(DuplicateField.self)?.field == "title")
    #expect(refusal(WrongIndex.self)?.field == "stars")
    #expect(refusal(ComputedKeyPath.self)?.field == "shout")
    #expect(refusal(UndeclaredProperty.self)?.description.contains("'notes'") == true)
    #expect(refusal(BadName.self)?.field == "in")
    // Nothing was written for any of them, and a write is refused the same way.
    #expect(try store.version() == 0)
    #expect(throws: SchemaError.self) { try store.write([.upsert(WrongIndex(id: 1, stars: 3))]) }
    #expect(try store.version() == 0)
  }
}

struct DuplicateField: Record {
  var id: Int
  var title: String
  var name: String
  static let schema = Schema<DuplicateField>(
    "dupes", fields: [.field("title", \.title), .field("title", \.name)])
}

struct WrongIndex: Record {
  var id: Int
  var stars: Int
  static let schema = Schema<WrongIndex>("wrong", fields: [.field("stars", \.stars, indexes: .substring)])
}

struct ComputedKeyPath: Record {
  var id: Int
  var title: String
  var shouted: String { title.uppercased() }
  static let schema = Schema<ComputedKeyPath>(
    "computed", fields: [.field("title", \.title), .field("shout", \.shouted)])
}

struct UndeclaredProperty: Record {
  var id: Int
  var title: String
  var notes: String?
  static let schema = Schema<UndeclaredProperty>("undeclared", fields: [.field("title", \.title)])
}

struct BadName: Record {
  var id: Int
  var title: String
  static let schema = Schema<BadName>("badname", fields: [.field("in", \.title)])
}
