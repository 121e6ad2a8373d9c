import Foundation
import LiveLog
import Testing

// Three later declarations of the `bookmarks` collection, as an app's next versions would have
// them. Each is its own Swift type; the store sees one collection and its schema's versions.

/// Version 2: an optional field with an index, and the index on `url` dropped.
struct BookmarkV2: Record, Hashable {
  var id: UUID
  var title: String
  var url: String
  var stars: Int?
  var rating: Double?
  var tags: [String]
  var scores: [Int]?
  var savedAt: Date
  var isArchived: Bool?
  var owner: Bookmark.Owner?
  var note: String?

  static let schema = Schema<BookmarkV2>(
    "bookmarks",
    fields: [
      .field("title", \.title, indexes: .substring),
      .field("url", \.url),
      .field("stars", \.stars, indexes: .ordered),
      .field("rating", \.rating, indexes: .ordered),
      .field("tags", \.tags, indexes: .equality),
      .field("scores", \.scores, indexes: .equality),
      .field("saved_at", \.savedAt, indexes: .ordered),
      .field("archived", \.isArchived, indexes: .equality),
      .field("owner.login", \.owner?.login, indexes: [.equality, .substring]),
      .field("owner.avatar", \.owner?.avatar),
      .field("note", \.note, indexes: .equality),
    ])
}

/// Version 3: `title` renamed `name`, `stars` retyped to a double: a migration's work.
struct BookmarkV3: Record, Hashable {
  var id: UUID
  var name: String
  var url: String
  var stars: Double?
  var savedAt: Date
  var note: String?

  static let schema = Schema<BookmarkV3>(
    "bookmarks",
    fields: [
      .field("name", \.name, indexes: .substring),
      .field("url", \.url),
      .field("stars", \.stars, indexes: .ordered),
      .field("saved_at", \.savedAt, indexes: .ordered),
      .field("note", \.note, indexes: .equality),
    ])
}

/// A declaration that adds a required field: refused, since stored records lack it.
struct BookmarkRequiringNote: Record {
  var id: UUID
  var title: String
  var note: String

  static let schema = Schema<BookmarkRequiringNote>(
    "bookmarks", fields: [.field("title", \.title), .field("note", \.note)])
}

@Suite struct SchemaEvolutionTests {
  /// A store with version 1 of `bookmarks` and 40 of them; returns the bookmarks and the version.
  static func storeV1(_ directory: TemporaryDirectory) throws -> ([Bookmark], UInt64) {
    let store = try opened(directory.child("store"))
    var generator = Generator(seed: 9)
    let bookmarks = (0..<40).map { _ in generator.bookmark() }
    try store.write(bookmarks.map { .upsert($0) })
    return (bookmarks, try store.version())
  }

  @Test func anOptionalFieldAndIndexChangesJustWork() throws {
    let directory = try TemporaryDirectory()
    let (bookmarks, before) = try Self.storeV1(directory)
    var options = StoreOptions()
    options.recordTypes = [BookmarkV2.self]
    let store = try opened(directory.child("store"), options: options)
    // One schema event: version 2, with its new index built from the stored records.
    #expect(try store.version() == before + 1)
    let history = try store.schemaHistory(of: "bookmarks")
    #expect(history.map(\.version) == [1, 2])
    #expect(history.last?.schema.field(named: "url")?.indexes == [])
    #expect(history.last?.schema.field(named: "note")?.indexes == .equality)
    // Old records read the new field as absent; new ones carry it, through its index.
    let old = try #require(try store.record(BookmarkV2.self, id: bookmarks[0].id))
    #expect(old.note == nil && old.title == bookmarks[0].title && old.savedAt == bookmarks[0].savedAt)
    var noted = old
    noted.note = "read later"
    try store.write([.upsert(noted)])
    let query = try Query(parsing: "note == 'read later'", for: BookmarkV2.self)
    #expect(try store.results(BookmarkV2.self, query).ids() == [old.id])
    #expect(
      try store.explain(query, in: "bookmarks").steps.first?.description.contains("equality index of note")
        == true)
    // The dropped index is gone from the plan, and the query still answers (by a scan).
    let byURL = try Query(parsing: "url == %@", for: BookmarkV2.self, bookmarks[1].url)
    #expect(try store.explain(byURL, in: "bookmarks").steps.first?.description.hasPrefix("scan") == true)
    #expect(
      try store.results(BookmarkV2.self, byURL).ids()
        == bookmarks.filter { $0.url == bookmarks[1].url }.map(\.id))
    // The old declaration still reads (a field it lacks is only absent for it), and history
    // across the change is right.
    #expect(try store.record(Bookmark.self, id: bookmarks[2].id) == bookmarks[2])
    let all = try Query(parsing: "TRUEPREDICATE", for: Bookmark.self)
    #expect(try store.results(Bookmark.self, all, asOf: before).ids() == bookmarks.map(\.id))
    #expect(try store.verify().passed)
    #expect(try store.replay(into: directory.child("rebuilt")).digest() == store.digest())
    // Opening again with the same declaration changes nothing.
    let version = try store.version()
    _ = try store.objects(BookmarkV2.self)
    #expect(try store.version() == version)
  }

  @Test func aRenameOrRetypeNeedsAMigrationAndIsRefusedWithoutOne() throws {
    let directory = try TemporaryDirectory()
    let (_, before) = try Self.storeV1(directory)
    let store = try opened(directory.child("store"))
    do {
      _ = try store.objects(BookmarkV3.self)
      Issue.record("a rename without a migration was accepted")
    } catch let error as SchemaError {
      #expect(error.collection == "bookmarks")
      // It names the fields and both declarations, and what to do.
      #expect(error.description.contains("'title'") && error.description.contains("'stars'"), "\(error)")
      #expect(error.description.contains("stars (integer, optional, ordered index)"), "\(error)")
      #expect(error.description.contains("stars (double, optional, ordered index)"), "\(error)")
      #expect(error.description.contains("Migration"), "\(error)")
    }
    #expect(throws: SchemaError.self) { try store.objects(BookmarkRequiringNote.self) }
    #expect(throws: SchemaError.self) {
      try store.write([.upsert(BookmarkRequiringNote(id: UUID(), title: "t", note: "n"))])
    }
    // Nothing was written.
    #expect(try store.version() == before)
    #expect(try store.schemaHistory(of: "bookmarks").count == 1)
  }

  @Test func aMigrationRewritesEveryRecordAsEventsAndHistoryKeepsTheOldShape() throws {
    let directory = try TemporaryDirectory()
    let (bookmarks, before) = try Self.storeV1(directory)
    var options = StoreOptions()
    options.migrations = [
      Migration(BookmarkV3.self) { old in
        BookmarkV3(
          id: try old.uuid("id"), name: try old.string("title"), url: try old.string("url"),
          stars: old["stars"].doubleValue.map { $0 / 2 }, savedAt: try old.date("saved_at").date,
          note: old["note"].stringValue)
      }
    ]
    let store = try opened(directory.child("store"), options: options)
    let migrated = try store.objects(BookmarkV3.self)
    // One commit: the schema event, then one upsert per record.
    #expect(try store.version() == before + 1 + UInt64(bookmarks.count))
    let events = try store.events(from: before + 1)
    #expect(events.first.map { if case .schema = $0.change { true } else { false } } == true)
    #expect(events.dropFirst().allSatisfy { $0.schemaVersion == 2 && $0.change.upsertedRecord != nil })
    #expect(events.last?.endsCommit == true && events.dropLast().allSatisfy { !$0.endsCommit })
    for bookmark in bookmarks {
      let now = try #require(try store.record(BookmarkV3.self, id: bookmark.id))
      #expect(now.name == bookmark.title && now.stars == bookmark.stars.map { Double($0) / 2 })
    }
    // Queries use the new fields and their indexes (`stars` is a double now).
    let half = try migrated.filter("stars >= 100.5").ids()
    #expect(Set(half) == Set(bookmarks.filter { ($0.stars.map { Double($0) / 2 } ?? -1) >= 100.5 }.map(\.id)))
    // As of before the migration, the records have the shape they had: `title`, integer stars.
    let then = try store.results(
      in: "bookmarks", try Query(parsing: "stars > 10", for: Bookmark.self), asOf: before)
    #expect(Set(try then.keys()) == Set(bookmarks.filter { ($0.stars ?? 0) > 10 }.map(\.id.primaryKey)))
    let first = try then.record(at: 0)
    #expect(first["title"].stringValue != nil && first["name"] == .null)
    // Old events decode with their own schema forever, and replay gives the same state.
    let created = try #require(try store.events(from: 2, through: 2).first?.change.upsertedRecord)
    #expect(created.schema.field(named: "title") != nil && created["title"] == .string(bookmarks[0].title))
    #expect(try store.verify().passed)
    #expect(try store.replay(into: directory.child("rebuilt")).digest() == store.digest())
    // The migration ran once: opening again writes nothing.
    let version = try store.version()
    let again = try opened(directory.child("again"), options: options)
    _ = again
    #expect(try store.version() == version)
  }
}
