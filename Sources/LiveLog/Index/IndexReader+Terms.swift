import LMDB

extension IndexReader {
  /// The rows of every exact value of `field` filed under the `[cd]` fold `folded` that equals
  /// `value` under `options` (a `[c]` or `[d]` equality), ascending; with `countOnly`, only how
  /// many (from page headers, capped past `limit`).
  func termGroupRows(
    field: Field, folded: [UInt8], value: String, options: StringOptions, countOnly: Bool, limit: Int
  ) throws -> (rows: [Row], count: Int) {
    let group = IndexKeys.termGroupPrefix(field: field.position, folded: folded)
    let target = TextFolding.fold(value, options)
    func accepts(_ key: UnsafeRawBufferPointer) throws -> Bool {
      guard let exact = IndexKeys.exactValue(ofTermPrefix: key, groupCount: group.count) else {
        throw collection.damaged("the equality index of \(field.name)", PageDamage("a malformed term"))
      }
      return TextFolding.fold(exact, options) == target
    }
    var count = 0
    var lists: [[Row]] = []
    try withIndex { cursor in
      for segment in directory.starts where count <= limit || !countOnly {
        var rows: [Row] = []
        let start = IndexPageKey.make(segment: segment, kind: .term, entryKey: group, row: 0)
        let found = try cursor.seek(atLeast: start)
        var page: Entry?
        if let before = found == nil ? try cursor.last() : try cursor.previous(),
          IndexPageKey.belongs(before.key, segment: segment, kind: .term)
        {
          page = before
        } else {
          page = try cursor.seek(atLeast: start)
        }
        scan: while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: .term) {
          let view = try PostingPage.View(current.value, positional: false)
          for position in 0..<view.count {
            let entry = try view.entry(position)
            let order = ByteOrder.compare(
              UnsafeRawBufferPointer(rebasing: entry.key.prefix(group.count)), group)
            if order < 0 { continue }
            if order > 0 { break scan }
            guard try accepts(entry.key) else { continue }
            if countOnly {
              count += entry.rowCount
            } else {
              try PostingPage.appendRows(of: entry, segment: segment, to: &rows)
            }
          }
          page = try cursor.next()
        }
        // Several exact values of one segment each list their rows: put them in order.
        if !rows.isEmpty { lists.append(RowSet.normalized(rows)) }
      }
    }
    var rows = RowSet.union(lists)
    if !recent.isEmpty {
      let matching = try recent.rows { entry in
        var found = false
        try entry.forEachTerm { term in
          guard !found, term.count > group.count,
            ByteOrder.compare(UnsafeRawBufferPointer(rebasing: term.prefix(group.count)), group) == 0
          else { return }
          found = try accepts(term)
        }
        return found
      }
      rows = recent.overlay(rows, matching: matching)
      count += matching.count
    }
    return (rows, count)
  }
}
