import LMDB

/// The rule at open: a store whose `data.mdb` is missing or empty while `data.mdb.before-repair`
/// exists is refused, never opened as a new empty store (which LMDB would make of it, and which a
/// later repair would then keep as the "before" copy, losing every event). Repairs now keep the
/// live file in place at every moment, but one interrupted by an older LiveLog, a file system
/// without hard links, or a hand that moved files can still leave the store so.
enum InterruptedRepair {
  static let dataName = "data.mdb"
  static let keptName = "data.mdb.before-repair"

  /// Throws `StoreError.interruptedRepair` for a store in that state.
  static func check(directory: String) throws(StoreError) {
    let data = directory + "/" + dataName
    let kept = directory + "/" + keptName
    guard (DurableFiles.size(data) ?? 0) == 0, DurableFiles.exists(kept) else { return }
    throw .interruptedRepair(path: directory, detail: describe(kept))
  }

  /// "transaction 812; its log holds 3,965 events", or what is wrong with the file.
  static func describe(_ path: String) -> String {
    guard let health = (try? DataFileHealth.examine(path: path)) ?? nil else { return "it cannot be read" }
    if let damage = health.damage { return "it is damaged too: \(damage)" }
    guard let meta = health.current, let file = try? DataFile(path: path) else { return "it cannot be read" }
    let log = NamedDatabases.read(file, meta: meta).databases.first { $0.name == StoreLayout.log }
    return "transaction \(meta.transactionID)"
      + (log.map { "; its log holds \($0.record.entries) events" } ?? "")
  }
}
