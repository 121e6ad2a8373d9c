import LMDB

/// The schema of a store of format 1: one collection, `repositories`, without schema events.
/// Events of format 1 name no collection and are read with this schema, forever.
enum LegacySchemas {
  static let repositoriesName = "repositories"

  /// `Repository`'s fields as format 1 stored them, slot by slot. A fact of that format: it must
  /// never change, whatever `Repository.schema` becomes.
  static let repositoriesV1: CollectionSchema = {
    let declarations: [(String, FieldType, IndexKinds, Bool)] = [
      ("id", .integer, .ordered, false), ("node_id", .string, [], true), ("name", .string, .substring, true),
      ("full_name", .string, .substring, false), ("owner.login", .string, [.substring, .equality], true),
      ("owner.avatar_url", .string, [], true), ("html_url", .string, [], true),
      ("description", .string, .substring, true), ("fork", .bool, .equality, true),
      ("language", .string, .equality, true), ("stargazers_count", .integer, .ordered, true),
      ("forks_count", .integer, .ordered, true), ("watchers_count", .integer, .ordered, true),
      ("open_issues_count", .integer, .ordered, true), ("topics", .stringList, .equality, true),
      ("license.spdx_id", .string, .equality, true), ("archived", .bool, .equality, true),
      ("created_at", .date, .ordered, true), ("updated_at", .date, .ordered, true),
      ("pushed_at", .date, .ordered, true), ("default_branch", .string, [], true),
      ("size", .integer, .ordered, true),
    ]
    return CollectionSchema(
      name: repositoriesName, primaryKey: "id",
      fields: declarations.map { Field(position: 0, name: $0.0, type: $0.1, indexes: $0.2, isOptional: $0.3) }
    )
  }()
}

/// Brings a store of an older format to the current one. Format 5 shares nothing of its state's
/// layout with the formats before it (records are stored once, in the log; indexes are segments
/// of pages), while every format's log reads as it is: so the state is rebuilt from the log, into
/// a new data file swapped in as a repair swaps it (`InPlaceRepair`), crash-atomically, with the
/// old file kept beside it as `data.mdb.before-repair`. Events of format 1 stay as they are and
/// read as `repositories` at schema version 1 (`LegacySchemas`).
enum StoreUpgrade {
  /// Rebuilds the store in `directory` and writes the current format's marker; progress goes to
  /// `options.progress` as `.upgrading`, counted in events copied, then records written.
  static func rebuild(directory: String, options: StoreOptions) throws {
    try InPlaceRepair(directory: directory, options: options).rebuild { replay in
      options.progress?(
        StoreProgress(
          step: .upgrading(replay.step), completed: Int(clamping: replay.completed),
          total: Int(clamping: replay.total)))
    }
  }

  /// Brings a store of format 8 (`StoreDirectory.oldestFormatMarkedUp`) to the current format,
  /// whose state it already is: writes the marker alone. The store is taken alone meanwhile
  /// (`StoreError.inUse` if another process has it open), since a process of an older build
  /// reads a recent entry of format 9 as damage; once the marker says 9, such a build refuses the
  /// store by its format. A store another process of this build marked up since this one read the
  /// marker is left as it is, open there or not.
  static func markUp(directory: String) throws {
    let marker = StoreDirectory(path: directory)
    func isCurrent() -> Bool { (try? marker.prepare(readOnly: true)) == StoreDirectory.currentFormat }
    let access: ExclusiveAccess
    do {
      access = try ExclusiveAccess.store(at: directory)
    } catch StoreError.inUse(_, _) where isCurrent() {
      return
    }
    defer { access.release() }
    guard !isCurrent() else { return }
    try marker.writeMarker()
  }
}

extension Store {
  /// The format this build writes; a store of an older one is upgraded to it.
  public static var currentFormat: Int { StoreDirectory.currentFormat }

  /// The oldest format a read-only open reads as it is, without an upgrade: format 7, which
  /// lacks only the ordered columns of format 8 (its queries check records instead).
  public static var oldestFormatReadAsIs: Int { StoreDirectory.oldestFormatReadAsIs }

  /// The format of the store in `directory` when its next writable open, or `Store.repair`,
  /// rebuilds it: a format older than 8. `nil` for a store of the current format or of format 8
  /// (whose first writable open rewrites its marker alone), a directory that holds no store yet,
  /// and one an open refuses (the open says why).
  public static func formatAwaitingUpgrade(directory: String) -> Int? {
    guard StorePath.entryExists(directory),
      let format = try? StoreDirectory(path: directory).prepare(readOnly: true)
    else { return nil }
    return format < StoreDirectory.oldestFormatMarkedUp ? format : nil
  }
}
