/// Why a store could not be opened, read or written.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The directory exists but is not a LiveLog store; nothing was changed in it.
  case notAStore(path: String, reason: String)
  /// The store was written by a newer LiveLog whose format this build cannot read.
  case unsupportedFormat(path: String, found: Int, supported: Int)
  /// The store is open read-only (or its files are not writable) and a write was attempted.
  case readOnly(path: String)
  /// An event of the log failed its checks.
  case corruptEvent(lsn: UInt64, reason: String)
  /// A stored record or index entry failed its checks.
  case corruptState(reason: String)
  /// An LSN outside the log was asked for.
  case lsnOutOfRange(requested: UInt64, version: UInt64)
  /// A commit needed a map larger than `StoreOptions.maximumMapSize`; nothing of it was written
  /// and the store stays readable and writable.
  case mapLimitReached(path: String, maximum: Int)
  /// The disk (or the file size limit) is full; nothing of the commit was written and the store
  /// is usable again once there is space.
  case diskFull(path: String, reason: String)
  /// The store's files may not be read (or, for a write, written) by this process.
  case accessDenied(path: String, reason: String)
  /// The data file is damaged in a way that would make LMDB fault (truncated, a damaged meta
  /// page); nothing was read or changed.
  case damagedFile(path: String, damage: String)
  /// The store is open in another process, and the operation needs it alone. `holders` names it:
  /// "process 4242 (livelog watch …)", or "another process".
  case inUse(path: String, holders: String)
  /// The data file is missing or empty while `data.mdb.before-repair` holds the store as it was
  /// before a repair that did not finish.
  case interruptedRepair(path: String, detail: String)
  /// There is no store at the path, and the operation does not create one.
  case noStore(path: String)
  /// The path cannot hold a store (a file on the way, a dangling link, no permission).
  case unusablePath(path: String, reason: String)
  /// The store has the format of an older LiveLog and must be opened for writing once, which
  /// upgrades it, before it can be read.
  case upgradeRequired(path: String, found: Int)
  /// A record does not fit its collection's schema; nothing of the commit was written.
  case invalidRecord(collection: String, field: String, reason: String)
  /// A range of versions whose start is after its end.
  case versionsReversed(from: UInt64, to: UInt64)
  /// The store has no collection of this name.
  case unknownCollection(name: String, known: [String])
  /// A conditional write found the store at another version than it expected: another writer
  /// committed first. Nothing was written.
  case versionConflict(expected: UInt64, found: UInt64)
  /// A collection has handed out every row a `Row` numbers, deleted ones included; nothing of
  /// the commit was written.
  case rowsUsedUp(collection: String, rows: UInt64)
  /// This process has the store open already in a way that cannot serve this open (read-only
  /// for a writer); every `Store` of a directory shares one LMDB environment.
  case alreadyOpen(path: String, reason: String)

  /// One line; paths and reasons quote input, so control characters are escaped.
  public var description: String { ControlEscaping.escaped(text) }

  private var text: String {
    switch self {
    case .notAStore(let path, let reason):
      "\(path) is not a LiveLog store: \(reason). Nothing in it was changed; give an empty or new directory"
    case .unsupportedFormat(let path, let found, let supported):
      "\(path) holds a store of format \(found), written by a newer LiveLog; this build reads format "
        + "\(supported) and older. Nothing was changed; open it with a newer livelog"
    case .readOnly(let path):
      "\(path) is read-only (opened for reading, or its files are not writable by this user): "
        + "writes need write access to the store directory and its files; nothing was written"
    case .corruptEvent(let lsn, let reason):
      "event \(lsn) of the log is damaged: \(reason). The log holds the only copy of its record: "
        + "copy every intact event into a new store with `livelog salvage --into DIR`, or restore from a "
        + "backup or an export"
    case .corruptState(let reason):
      "the materialized state is corrupt: \(reason). Rebuild it from the log with `livelog replay --in-place`"
    case .lsnOutOfRange(let requested, let version):
      "LSN \(requested) is outside the log, which ends at \(version)"
    case .mapLimitReached(let path, let maximum):
      "the commit would grow the map of \(path) beyond its maximum of \(maximum) bytes; nothing of it "
        + "was written and the store is unchanged. Raise the maximum (StoreOptions.maximumMapSize, "
        + "livelog --max-map-size) or commit smaller batches"
    case .diskFull(let path, let reason):
      "the disk holding \(path) is full (\(reason)); nothing of the commit was written and the store "
        + "is unchanged. Free some space and try again"
    case .accessDenied(let path, let reason):
      "\(path) cannot be opened: \(reason). Check the permissions of the directory and its files"
    case .damagedFile(let path, let damage):
      "\(path)/data.mdb is damaged: \(damage). Nothing was read or changed. `livelog --store \(path) "
        + "salvage --into NEW` rebuilds a store in NEW from every intact event of the log and names "
        + "what was lost; `livelog --store \(path) verify` describes the damage"
    case .inUse(let path, let holders):
      "\(path) is open in \(holders): a repair replaces the store's data file, and a "
        + "process that has it open would go on using the old one. Nothing was changed; end that "
        + "process (or wait for it), then repair again"
    case .interruptedRepair(let path, let detail):
      "\(path)/data.mdb is missing or empty, but \(path)/data.mdb.before-repair holds the store as it "
        + "was before a repair that did not finish (\(detail)). Nothing was changed, and no empty store "
        + "was made in its place. To go on from it: `mv \(path)/data.mdb.before-repair \(path)/data.mdb`, "
        + "then `livelog --store \(path) verify`"
    case .noStore(let path):
      "there is no store at \(path): it does not exist. Nothing was created; check the path"
    case .unusablePath(let path, let reason):
      "\(path) cannot hold a store: \(reason). Nothing was created or changed"
    case .upgradeRequired(let path, let found):
      "\(path) holds a store of format \(found), written by an older LiveLog; open it once for writing "
        + "(for example `livelog --store \(path) collection list`), which upgrades it in place"
    case .invalidRecord(let collection, let field, let reason):
      "collection '\(collection)', field '\(field)': the record \(reason); nothing of the commit was written"
    case .versionsReversed(let from, let to):
      "the range of versions from \(from) to \(to) runs backwards; give the earlier version first"
    case .unknownCollection(let name, let known):
      "the store has no collection '\(name)'"
        + (known.isEmpty ? "; it has none yet" : "; it has: \(known.joined(separator: ", "))")
        + ". Create one with `livelog collection create NAME --schema FILE`"
    case .versionConflict(let expected, let found):
      "the store is at version \(found), not \(expected) as the write expected: another writer committed "
        + "first, and nothing was written. Read again and retry the write"
    case .alreadyOpen(let path, let reason):
      "\(path) cannot be opened as asked: \(reason)"
    case .rowsUsedUp(let collection, let rows):
      "collection '\(collection)' has used all \(rows) rows, deleted ones included, and nothing of the commit "
        + "was written. Each event names its row, so a replay keeps them all: copy the records into a "
        + "new store, which numbers them from 1 (`livelog query TRUEPREDICATE --collection \(collection) "
        + "--format ndjson` into `livelog ingest --collection \(collection)` of a store whose collection "
        + "has the same schema)"
    }
  }
}

extension StoreError {
  /// A stored record of `collection` that does not decode under its schema.
  static func undecodable(recordAt row: some BinaryInteger, in collection: String, _ error: any Error)
    -> StoreError
  {
    .corruptState(reason: "\(collection): record at row \(row): \(error)")
  }
}
