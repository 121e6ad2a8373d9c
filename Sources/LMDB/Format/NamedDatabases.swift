/// The named databases of one state of a data file, read from its main database's tree.
public enum NamedDatabases {
  /// The records of the named databases under `meta`, in name order, and any damage met on the way.
  public static func read(_ file: DataFile, meta: MetaPage) -> (
    databases: [StructureCheck.NamedDatabase], damage: [String]
  ) {
    var databases: [StructureCheck.NamedDatabase] = []
    var damage: [String] = []
    let walker = TreeWalker(
      file: file, pageSize: meta.pageSize, lastPage: meta.lastPage,
      integerKeys: meta.mainDatabase.flags & PageFormat.DatabaseFlag.integerKey != 0)
    _ = walker.walk(
      root: meta.mainDatabase.root,
      onEntry: { entry in
        let name = String(decoding: entry.key, as: UTF8.self)
        guard entry.flags == PageFormat.NodeFlag.subData, let value = entry.inlineValue,
          value.count == DatabaseRecord.size, let record = DatabaseRecord(Array(value), at: 0)
        else {
          damage.append("database \(name): its entry in the main database is not a database record")
          return
        }
        if let defect = record.defect(lastPage: meta.lastPage) {
          damage.append("database \(name): its record is damaged: \(defect)")
          return
        }
        databases.append(StructureCheck.NamedDatabase(name: name, record: record))
      }, onDamage: { damage.append("database (main): \($0)") })
    return (databases, damage)
  }
}
