/// A sorted result grouped into sections by a key derived from each row, maintained incrementally.
///
/// Sections are ordered by key and each section's rows by `Element`'s order (see ``SortedRows``), so
/// sections appear and disappear but never move. ``apply(_:)`` routes each change to the sections
/// of its old and new row, applies them there in O(k log n), and reports a ``SectionedChangeset``.
/// Adding or dropping a section costs O(s) for s sections, which stay few in practice (languages,
/// letters, days).
public struct SortedSections<Key: Comparable, Element: Comparable> {
  @usableFromInline var keys: [Key]
  @usableFromInline var sections: [SortedRows<Element>]
  @usableFromInline let sectionKey: @Sendable (Element) -> Key

  /// Groups `rows` (in any order) by `sectionKey` and sorts every section. O(n log n).
  ///
  /// Throws ``ChangesetError/duplicateRow(row:)`` for two equivalent rows.
  @inlinable
  public init(rows: some Sequence<Element>, sectionKey: @escaping @Sendable (Element) -> Key)
    throws(ChangesetError)
  {
    self.sectionKey = sectionKey
    var keyed = rows.map { (key: sectionKey($0), row: $0) }
    keyed.sort { $0.key < $1.key || (!($1.key < $0.key) && $0.row < $1.row) }
    keys = []
    sections = []
    var start = 0
    while start < keyed.count {
      var end = start + 1
      while end < keyed.count && !(keyed[start].key < keyed[end].key) { end += 1 }
      keys.append(keyed[start].key)
      sections.append(try SortedRows(sorted: keyed[start..<end].map(\.row)))
      start = end
    }
  }

  /// Number of sections; every one holds at least one row.
  @inlinable
  public var sectionCount: Int { keys.count }

  /// Number of rows in all sections.
  @inlinable
  public var count: Int { sections.reduce(0) { $0 + $1.count } }

  /// The key of section `index`, or `nil` when there is no such section.
  @inlinable
  public func key(ofSection index: Int) -> Key? {
    keys.indices.contains(index) ? keys[index] : nil
  }

  /// The rows of section `index`, or `nil` when there is no such section.
  @inlinable
  public func rows(inSection index: Int) -> SortedRows<Element>? {
    sections.indices.contains(index) ? sections[index] : nil
  }

  /// The index of the section with key `key`, or `nil` when no row has that key. O(log s).
  @inlinable
  public func sectionIndex(of key: Key) -> Int? {
    let index = lowerBound(key)
    return index < keys.count && !(key < keys[index]) ? index : nil
  }

  /// Where `row` is, or `nil` when it is not in the result. O(log s + log n).
  @inlinable
  public func path(of row: Element) -> RowPath? {
    guard let section = sectionIndex(of: sectionKey(row)),
      let position = sections[section].position(of: row)
    else { return nil }
    return RowPath(section: section, row: position)
  }

  /// Index of the first key not less than `key`.
  @inlinable
  func lowerBound(_ key: Key) -> Int {
    var low = 0
    var high = keys.count
    while low < high {
      let middle = (low + high) >> 1
      if keys[middle] < key { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Applies `changes` and returns the changeset from the previous sections to the new ones.
  ///
  /// A change whose row changes section becomes a removal from one section and an insertion into
  /// the other. Errors are those of ``SortedRows/apply(_:)``; a failed batch is undone in every
  /// section, so the rows are as they were.
  @inlinable
  @discardableResult
  public mutating func apply(_ changes: [SortedRows<Element>.Change]) throws(ChangesetError)
    -> SectionedChangeset
  {
    var routed: [(key: Key, change: SortedRows<Element>.Change)] = []
    for change in changes {
      let oldKey = change.old.map(sectionKey)
      let newKey = change.new.map(sectionKey)
      if let oldKey, let newKey, !(oldKey < newKey) && !(newKey < oldKey) {
        routed.append((oldKey, change))
        continue
      }
      if let old = change.old, let oldKey {
        routed.append((oldKey, .init(old: old, new: nil, contentChanged: change.contentChanged)))
      }
      if let new = change.new, let newKey {
        routed.append((newKey, .init(old: nil, new: new, contentChanged: change.contentChanged)))
      }
    }
    routed.sort { $0.key < $1.key }

    // Check every section's share first, so that nothing is applied unless everything can be.
    var prepared: [(section: Int, changes: SortedRows<Element>.PreparedChanges)] = []
    var created: [(key: Key, rows: SortedRows<Element>)] = []
    var start = 0
    while start < routed.count {
      var end = start + 1
      while end < routed.count && !(routed[start].key < routed[end].key) { end += 1 }
      let key = routed[start].key
      let group = routed[start..<end].map(\.change)
      if let section = sectionIndex(of: key) {
        prepared.append((section, try sections[section].prepare(group)))
      } else {
        if let old = group.lazy.compactMap(\.old).first {
          throw .rowNotFound(row: String(describing: old))
        }
        var rows = group.compactMap(\.new)
        rows.sort()
        created.append((key, try SortedRows(sorted: rows)))
      }
      start = end
    }

    var rowChanges: [Int: Changeset] = [:]
    for (index, (section, changes)) in prepared.enumerated() {
      do {
        rowChanges[section] = try sections[section].commit(changes)
      } catch {
        for (earlier, changes) in prepared[..<index].reversed() { sections[earlier].revert(changes) }
        throw error
      }
    }
    return rebuild(rowChanges: rowChanges, created: created)
  }

  /// Drops emptied sections, splices in created ones and describes the result.
  @inlinable
  mutating func rebuild(
    rowChanges: [Int: Changeset], created: [(key: Key, rows: SortedRows<Element>)]
  ) -> SectionedChangeset {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var rows: [SectionRowChanges] = []
    var newKeys: [Key] = []
    var newSections: [SortedRows<Element>] = []
    newKeys.reserveCapacity(keys.count + created.count)
    newSections.reserveCapacity(keys.count + created.count)
    var next = 0  // into created, which is sorted by key and holds keys absent from `keys`
    for oldIndex in keys.indices {
      while next < created.count && created[next].key < keys[oldIndex] {
        insertions.append(newKeys.count)
        newKeys.append(created[next].key)
        newSections.append(created[next].rows)
        next += 1
      }
      guard !sections[oldIndex].isEmpty else {
        deletions.append(oldIndex)
        continue
      }
      if let changes = rowChanges[oldIndex], !changes.isEmpty {
        rows.append(SectionRowChanges(oldSection: oldIndex, newSection: newKeys.count, changes: changes))
      }
      newKeys.append(keys[oldIndex])
      newSections.append(sections[oldIndex])
    }
    for section in created[next...] {
      insertions.append(newKeys.count)
      newKeys.append(section.key)
      newSections.append(section.rows)
    }
    keys = newKeys
    sections = newSections
    return SectionedChangeset(
      sections: Changeset(
        uncheckedDeletions: deletions, insertions: insertions, modifications: [],
        modificationsNew: [], moves: []),
      rows: rows)
  }
}

extension SortedSections: Sendable where Key: Sendable, Element: Sendable {}
