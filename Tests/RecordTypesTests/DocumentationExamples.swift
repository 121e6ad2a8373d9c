import Changesets
import Foundation
import LiveLog
import Testing

// The code of Docs/Records.md and the README, run here. Each region between `// doc: NAME` and
// `// end doc` is the block its document marks `<!-- example: NAME -->`, character for
// character after indentation (DocumentationTests checks it; regions of one name join in order);
// edit both together.

// doc: app-record
struct App: Record {
  var id: String  // the source URL: the primary key, stored as "url"
  var title: String
  var description: String?
  var stars: Int?
  var license: String?
  var tags: [String]?
  var categories: [String]?
  var updated: Date?

  static let schema = Schema<App>(
    "apps", primaryKey: "url",
    fields: [
      .field("title", \.title, indexes: .substring),
      .field("description", \.description, indexes: .substring),
      .field("stars", \.stars, indexes: .ordered),
      .field("license", \.license, indexes: .equality),
      .field("tags", \.tags, indexes: .equality),
      .field("categories", \.categories, indexes: .equality),
      .field("updated", \.updated, indexes: .ordered),
    ])
}
// end doc

// doc: app-record-v2
struct AppV2: Record {
  var id: String
  var name: String  // was `title`
  var description: String?
  var stars: Int?
  var license: String?
  var tags: [String]?
  var categories: [String]?
  var updated: Date?

  static let schema = Schema<AppV2>(
    "apps", primaryKey: "url",
    fields: [
      .field("name", \.name, indexes: .substring),
      .field("description", \.description, indexes: .substring),
      .field("stars", \.stars, indexes: .ordered),
      .field("license", \.license, indexes: .equality),
      .field("tags", \.tags, indexes: .equality),
      .field("categories", \.categories, indexes: .equality),
      .field("updated", \.updated, indexes: .ordered),
    ])
}
// end doc

@Suite struct DocumentationExamples {
  static let apps = FixtureFiles.root.appendingPathComponent("apps")

  @Test func theAppsExampleRunsAndAgreesWithTheFile() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("apps.store")
    let file = Self.apps.appendingPathComponent("apps.ndjson").path
    // doc: app-use
    let store = try Store(directory: path)
    try store.write(try RecordFile(path: file).mutations(of: App.self))

    let swiftApps = try store.objects(App.self)
      .filter("ANY tags == %@ AND stars >= %@", "swift", 1000)
      .sorted(by: \.stars, ascending: false)
    for app in swiftApps.prefix(3) {
      print(app.title, app.stars ?? 0)
    }
    // The same query, typed: field names and types are checked by the compiler.
    let typed = try store.objects(App.self)
      .where { $0.tags.contains("swift") && $0.stars >= 1000 }
      .sorted(by: \.stars, ascending: false)
    // end doc
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
    let expected = try lines.compactMap { line -> (String, Int)? in
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard let stars = object["stars"] as? Int, stars >= 1000,
        (object["tags"] as? [String])?.contains("swift") == true
      else { return nil }
      return (try #require(object["url"] as? String), stars)
    }
    #expect(Set(try swiftApps.ids()) == Set(expected.map(\.0)))
    #expect(swiftApps.map { $0.stars ?? 0 } == expected.map(\.1).sorted(by: >))
    #expect(try typed.ids() == swiftApps.ids())
    #expect(swiftApps.first?.updated != nil)

    // The example's loop runs until its task is cancelled; a second subscription checks what
    // the commit delivered.
    let listener = Task {
      // doc: app-live
      for await change in swiftApps.changes {
        switch change {
        case .initial(let results):
          print("\(results.count) apps")  // reload the table
        case .update(_, let changeset):
          print(changeset)  // delete, insert, reload and move rows
        }
      }
      // end doc
    }
    var iterator = swiftApps.changes.makeAsyncIterator()
    guard case .initial(let initial)? = await iterator.next() else {
      Issue.record("no initial delivery")
      return
    }
    let changes = Self.apps.appendingPathComponent("changes-1.ndjson").path
    try store.write(try RecordFile(path: changes).mutations(of: App.self))
    guard case .update(let updated, let changeset)? = await iterator.next() else {
      Issue.record("no update after the commit")
      return
    }
    listener.cancel()
    await listener.value
    #expect(changeset.applied(to: try initial.ids(), new: try updated.ids()) == (try updated.ids()))
    #expect(!changeset.modifications.isEmpty)
  }

  @Test func theReadmeExampleRuns() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("repos.store")
    let searchResponse = Fixtures.path(
      "search-responses/05_octokit_octokit.rb_order_desc_q_tetris_20language_assembly_sort_stars.json")
    let appsFile = Self.apps.appendingPathComponent("apps.ndjson").path
    // doc: readme
    let store = try Store(directory: path)
    try store.write(try RecordFile(path: searchResponse).mutations(of: Repository.self))
    try store.write(try RecordFile(path: appsFile).mutations(of: App.self))  // your own Record type

    let results = try store.objects(Repository.self)
      .filter("full_name CONTAINS[c] %@ AND language = %@", "tetris", "Assembly")
      .sorted(by: \.stargazersCount, ascending: false)
    // end doc
    let listener = Task {
      // doc: readme
      for await change in results.changes {  // .initial(results), then .update(results, changeset)
        print(change)
      }
      // end doc
    }
    #expect(results.count == 28)
    #expect(try store.count(App.self) == 1_656)
    listener.cancel()
    await listener.value
  }

  /// A collection created by `livelog collection create apps --schema apps.schema.json` opens
  /// with `App` unchanged: the file and the Swift declaration say the same thing.
  @Test func theSchemaFileAndTheSwiftDeclarationAgree() throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    let file = try RecordFile(path: Self.apps.appendingPathComponent("apps.schema.json").path, format: .array)
    let declared = try CollectionSchema(json: file, collection: "apps").validated()
    #expect(try store.createCollection(declared).schemaVersion == 1)
    let records = try RecordFile(path: Self.apps.appendingPathComponent("apps.ndjson").path)
    try store.write(try records.mutations(for: RecordInput(schema: declared)))
    let version = try store.version()
    #expect(try store.count(App.self) == 1_656)
    #expect(try store.version() == version)
    #expect(try store.schemaHistory(of: "apps").count == 1)
  }

  @Test func theMigrationExampleRenamesTheField() throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("apps.store")
    do {
      let store = try opened(path)
      try store.write(
        try RecordFile(path: Self.apps.appendingPathComponent("apps.ndjson").path).mutations(of: App.self))
    }
    // doc: app-migration
    var options = StoreOptions()
    options.migrations = [
      Migration(AppV2.self) { old in
        AppV2(
          id: try old.string("url"), name: try old.string("title"),
          description: old["description"].stringValue, stars: old["stars"].integerValue.map(Int.init),
          license: old["license"].stringValue, tags: old["tags"].stringsValue,
          categories: old["categories"].stringsValue, updated: old["updated"].dateValue?.date)
      }
    ]
    let store = try Store(directory: path, options: options)
    // end doc
    let renamed = try store.objects(AppV2.self).filter("name CONTAINS[c] 'chat'")
    #expect(!renamed.isEmpty && renamed.allSatisfy { $0.name.lowercased().contains("chat") })
    #expect(try store.schemaHistory(of: "apps").map(\.version) == [1, 2])
  }
}
