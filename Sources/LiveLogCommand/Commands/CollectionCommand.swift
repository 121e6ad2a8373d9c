import Foundation
import LiveLog

let collectionCommand = Command(
  name: "collection",
  summary: "create, list and show collections and their schemas",
  help: """
    usage: livelog collection create NAME --schema FILE
           livelog collection list [--format text|json]
           livelog collection show NAME [--history]

    A store holds collections of records, each with its schema: its fields, their types and
    indexes, and its primary key. `repositories` is GitHub's (see `livelog ingest`); others
    are declared with a schema file:

      {"primary_key": "id", "fields": [
        {"name": "id", "type": "string"},
        {"name": "title", "type": "string", "indexes": ["substring"]},
        {"name": "stars", "type": "integer", "indexes": ["ordered"]},
        {"name": "owner.login", "type": "string", "indexes": ["equality", "substring"]},
        {"name": "keywords", "type": "string_list", "indexes": ["equality"]},
        {"name": "updated_at", "type": "date", "indexes": ["ordered"]}]}

    Types: integer, double, string, bool, date, string_list, integer_list. Indexes: substring
    (strings), equality (all but double), ordered (integer, double, date). Every field but the
    primary key (an integer or a string) may be absent or null in a record, unless it says
    "optional": false.

      create   creates the collection; on a collection that exists, brings it to the schema
               when the store can do so on its own (an optional field added, an index added or
               dropped: a new index is built from the records) and refuses any other change
               with exit status 2, naming the field and both declarations
      list     the collections, their record counts and schema versions
      show     the collection's schema as JSON (the format above); --history: every version,
               one JSON object per line, with the LSN of the event that made it
    """,
  run: { arguments, context in
    let schemaPath = try arguments.value("--schema")
    let history = arguments.flag("--history")
    let format = try arguments.choice("--format", ["text", "json"]) ?? "text"
    let positional = try arguments.remaining()
    guard let verb = positional.first else {
      throw UsageError(message: "collection needs create, list or show")
    }
    let rest = Array(positional.dropFirst())
    let output = context.output
    switch verb {
    case "create":
      guard rest.count == 1, let name = rest.first, let path = schemaPath else {
        throw UsageError(message: "collection create needs NAME --schema FILE")
      }
      return try createCollection(name, schemaFile: path, context)
    case "list":
      guard rest.isEmpty, schemaPath == nil else {
        throw UsageError(message: "collection list takes no arguments")
      }
      let store = try context.openStore(readOnly: true)
      let collections = try store.collections()
      if format == "json" {
        let items = collections.map {
          "{\"name\":\(jsonString($0.name)),\"schema_version\":\($0.schemaVersion),\"records\":\($0.records)}"
        }
        output.line("[" + items.joined(separator: ",") + "]")
      } else {
        for collection in collections {
          output.line(
            "\(collection.name)\t\(grouped(collection.records)) records\tschema version \(collection.schemaVersion)"
          )
        }
        if collections.isEmpty { output.line("(no collections)") }
      }
      return 0
    case "show":
      guard rest.count == 1, let name = rest.first else {
        throw UsageError(message: "collection show needs NAME")
      }
      let store = try context.openStore(readOnly: true)
      let versions = try store.schemaHistory(of: name)
      guard let last = versions.last else {
        throw StoreError.unknownCollection(name: name, known: try store.collections().map(\.name))
      }
      if history {
        for version in versions {
          output.line(
            "{\"version\":\(version.version),\"lsn\":\(version.lsn),\"schema\":\(version.schema.json)}")
        }
      } else {
        output.line(last.schema.json)
      }
      return 0
    default:
      throw UsageError(message: "collection takes create, list or show, not '\(verb)'")
    }
  }
)

private func createCollection(_ name: String, schemaFile path: String, _ context: CommandContext) throws
  -> Int32
{
  let output = context.output
  let schema = try SchemaFile.read(path: path, collection: name)
  var options = StoreOptions()
  options.progress = { progress in printError(progress.description) }
  let store = try context.openStore(durability: options)
  let before = try store.schemaHistory(of: name).count
  let info: CollectionInfo
  do {
    info = try store.createCollection(schema)
  } catch let error as SchemaError {
    // The message's remedy names the Swift API; say what the command line can do.
    let remedy =
      before == 0
      ? ""
      : "\nThe command line does not migrate stored records: add changed fields under new names, "
        + "or migrate from Swift with a Migration (Docs/Records.md, \"Migrations\")."
    throw ExitStatus(status: 2, message: "error: \(error)\(remedy)\nnothing was written.")
  }
  let verbText = before == 0 ? "created" : (info.schemaVersion > before ? "evolved" : "unchanged:")
  output.line(
    "\(verbText) \(info.name) (schema version \(info.schemaVersion), \(grouped(info.records)) records; "
      + "store version \(try store.version()))")
  return 0
}

/// A schema file of `collection create`.
enum SchemaFile {
  static func read(path: String, collection: String) throws -> CollectionSchema {
    let file = try RecordFile(path: path, format: .array)
    do {
      return try CollectionSchema(json: file, collection: collection).validated()
    } catch let error as SchemaError {
      throw InputError(source: path, field: error.field, message: error.description)
    }
  }
}
