import Changesets
import Testing

/// A row grouped by language, ordered by stars (descending) then id.
struct LanguageRow: Comparable, Hashable, Sendable, CustomStringConvertible {
  var language: Int
  var stars: Int
  var id: Int

  static func < (a: LanguageRow, b: LanguageRow) -> Bool {
    a.stars != b.stars ? a.stars > b.stars : a.id < b.id
  }

  var description: String { "\(id)@\(language)/\(stars)" }
}

@Suite("Sections")
struct SectionTests {
  typealias Section = IdentifiedSection<Int, Int>

  /// Checks a sectioned changeset against the old and new sections it claims to connect.
  private func check(
    _ changeset: SectionedChangeset, old: [Section], new: [Section], changed: Set<Int>,
    _ context: String
  ) throws {
    let rebuilt = try changeset.applied(to: old.map(\.ids)) {
      new[$0].ids
    } newElement: { path in
      new[path.section].ids[path.row]
    }
    #expect(rebuilt == new.map(\.ids), "apply \(context)")
    verify(changeset.sections, old: old.map(\.key), new: new.map(\.key), expectedModified: [], context)
    var reported: Set<Int> = []
    for rows in changeset.rows {
      #expect(old[rows.oldSection].key == new[rows.newSection].key, "section pairing \(context)")
      verify(
        rows.changes, old: old[rows.oldSection].ids, new: new[rows.newSection].ids,
        expectedModified: changed, context)
      reported.insert(old[rows.oldSection].key)
    }
    // Every surviving section whose rows changed is reported, and only those.
    let newByKey = Dictionary(uniqueKeysWithValues: new.map { ($0.key, $0.ids) })
    for section in old {
      guard let ids = newByKey[section.key] else { continue }
      let changes = try Changeset(from: section.ids, to: ids, changed: changed)
      #expect(reported.contains(section.key) == !changes.isEmpty, "missing section \(context)")
    }
  }

  @Test func rows_moving_between_sections() throws {
    let old = [Section(key: 1, ids: [10, 11, 12]), Section(key: 2, ids: [20, 21])]
    let new = [Section(key: 2, ids: [20, 11, 21]), Section(key: 3, ids: [30])]
    let changeset = try SectionedChangeset(from: old, to: new, changed: [20])
    #expect(changeset.sections.deletions == [0])
    #expect(changeset.sections.insertions == [1])
    #expect(changeset.rows.count == 1)
    #expect(changeset.rowInsertions == [RowPath(section: 0, row: 1)])
    #expect(changeset.rowModifications == [RowPath(section: 1, row: 0)])
    try check(changeset, old: old, new: new, changed: [20], "example")
  }

  @Test func duplicates_are_typed_errors() {
    #expect(throws: ChangesetError.duplicateSectionKey(key: "1", side: .new, firstIndex: 0, secondIndex: 1)) {
      try SectionedChangeset(from: [Section](), to: [Section(key: 1, ids: []), Section(key: 1, ids: [])])
    }
    #expect(
      throws: ChangesetError.duplicateIDInSections(
        id: "5", side: .old, first: RowPath(section: 0, row: 1), second: RowPath(section: 1, row: 0))
    ) {
      try SectionedChangeset(from: [Section(key: 1, ids: [4, 5]), Section(key: 2, ids: [5])], to: [])
    }
  }

  /// 1,000 random sectioned changes: sections appear, vanish and reorder, rows move within and
  /// between sections.
  @Test func random_sectioned_changes() throws {
    var rng = SplitMix64(seed: 0x5eed_0300)
    for index in 0..<1_000 {
      var nextID = 0
      let old = randomSections(&rng, nextID: &nextID)
      var new = old.filter { _ in !rng.chance(0.2) }
      for key in 20..<(20 + Int.random(in: 0...2, using: &rng)) where rng.chance(0.5) {
        new.insert(Section(key: key, ids: []), at: Int.random(in: 0...new.count, using: &rng))
      }
      if rng.chance(0.3) { new.shuffle(using: &rng) }
      if !new.isEmpty {
        let pool = new.flatMap(\.ids)
        for section in new.indices { new[section].ids.removeAll() }
        for id in pool where !rng.chance(0.1) {
          let target =
            rng.chance(0.8)
            ? old.firstIndex { $0.ids.contains(id) }.flatMap { at in
              new.firstIndex { $0.key == old[at].key }
            } : nil
          let section = target ?? Int.random(in: 0..<new.count, using: &rng)
          new[section].ids.insert(id, at: Int.random(in: 0...new[section].ids.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
          let section = Int.random(in: 0..<new.count, using: &rng)
          new[section].ids.insert(nextID, at: Int.random(in: 0...new[section].ids.count, using: &rng))
          nextID += 1
        }
      }
      let changed = Set(old.flatMap(\.ids).filter { _ in rng.chance(0.2) })
      let changeset = try SectionedChangeset(from: old, to: new, changed: changed)
      try check(changeset, old: old, new: new, changed: changed, "case \(index)")
    }
  }

  private func randomSections(_ rng: inout SplitMix64, nextID: inout Int) -> [Section] {
    let keys = Array(0..<12).shuffled(using: &rng).prefix(Int.random(in: 0...8, using: &rng))
    return keys.map { key in
      let ids = Array(nextID..<(nextID + Int.random(in: 0...40, using: &rng)))
      nextID += ids.count
      return Section(key: key, ids: ids)
    }
  }

  /// 1,000 random batches on incrementally maintained sections, checked against regrouping and
  /// re-sorting everything.
  @Test func random_incremental_sections_match_regrouping() throws {
    var rng = SplitMix64(seed: 0x5eed_0400)
    for index in 0..<250 {
      let languages = Int.random(in: 1...6, using: &rng)
      var rows = (0..<Int.random(in: 0...300, using: &rng)).map {
        LanguageRow(
          language: Int.random(in: 0..<languages, using: &rng),
          stars: Int.random(in: 0..<50, using: &rng), id: $0)
      }
      var sections = try SortedSections(rows: rows) { $0.language }
      var nextID = rows.count
      for batch in 0..<4 {
        let before = grouped(rows)
        var changes: [SortedRows<LanguageRow>.Change] = []
        var changed: Set<Int> = []
        var next = rows
        let touched = rows.indices.shuffled(using: &rng).prefix(Int.random(in: 0...12, using: &rng))
        for position in touched.sorted(by: >) {
          let row = rows[position]
          if rng.chance(0.3) {
            changes.append(.remove(row))
            next.remove(at: position)
          } else {
            var updated = row
            if rng.chance(0.4) { updated.language = Int.random(in: 0..<(languages + 1), using: &rng) }
            if rng.chance(0.6) { updated.stars = Int.random(in: 0..<50, using: &rng) }
            changes.append(.update(from: row, to: updated))
            changed.insert(row.id)
            next[position] = updated
          }
        }
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
          let row = LanguageRow(
            language: Int.random(in: 0..<(languages + 1), using: &rng),
            stars: Int.random(in: 0..<50, using: &rng), id: nextID)
          nextID += 1
          changes.append(.insert(row))
          next.append(row)
        }
        let changeset = try sections.apply(changes)
        let after = grouped(next)
        let context = "case \(index).\(batch)"
        #expect(changeset.sections.moves.isEmpty, "\(context)")
        try check(changeset, old: before, new: after, changed: changed, context)
        let maintained = (0..<sections.sectionCount).map { section in
          Section(
            key: sections.key(ofSection: section) ?? -1,
            ids: (sections.rows(inSection: section).map(Array.init) ?? []).map(\.id))
        }
        #expect(maintained == after, "\(context)")
        if let probe = next.randomElement(using: &rng), let path = sections.path(of: probe) {
          #expect(after[path.section].ids[path.row] == probe.id)
        }
        rows = next
      }
    }
  }

  /// What regrouping and re-sorting all rows gives: sections by ascending language.
  private func grouped(_ rows: [LanguageRow]) -> [Section] {
    Dictionary(grouping: rows, by: \.language).sorted { $0.key < $1.key }.map {
      Section(key: $0.key, ids: $0.value.sorted().map(\.id))
    }
  }

  @Test func incremental_errors_change_nothing() throws {
    let rows = [LanguageRow(language: 1, stars: 5, id: 1), LanguageRow(language: 2, stars: 3, id: 2)]
    var sections = try SortedSections(rows: rows) { $0.language }
    #expect(throws: ChangesetError.rowNotFound(row: "9@3/1")) {
      try sections.apply([
        .insert(LanguageRow(language: 4, stars: 1, id: 7)),
        .remove(LanguageRow(language: 3, stars: 1, id: 9)),
      ])
    }
    #expect(sections.sectionCount == 2 && sections.count == 2)
    // Section 1's share commits before section 2's collision is found; it must be undone.
    #expect(throws: ChangesetError.duplicateRow(row: "2@2/3")) {
      try sections.apply([
        .update(from: rows[0], to: LanguageRow(language: 1, stars: 8, id: 1)),
        .insert(LanguageRow(language: 1, stars: 1, id: 5)),
        .insert(LanguageRow(language: 2, stars: 3, id: 2)),
      ])
    }
    #expect(sections.path(of: rows[0]) == RowPath(section: 0, row: 0))
    #expect(sections.count == 2)
    #expect(Array(sections.rows(inSection: 0) ?? SortedRows()) == [rows[0]])
  }
}
