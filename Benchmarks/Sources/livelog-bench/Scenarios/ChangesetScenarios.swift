import Changesets

extension Scenario {
  /// The diff engine beside the standard library's diff, and the incrementally maintained sorted
  /// result beside re-sorting and diffing the whole result.
  static var changesets: Scenario {
    Scenario(
      name: "changesets",
      summary: "batch diff vs stdlib difference+inferringMoves; sorted result apply vs re-sort+diff"
    ) { context in
      try ChangesetBenchmarks(context: context).run()
    }
  }
}

/// The cases of the `changesets` scenario. Data are generated from fixed seeds, so every run (and
/// both engines within a run) sees the same ids.
private struct ChangesetBenchmarks {
  var context: BenchmarkContext

  func run() throws {
    // DifferenceKit's published cases.
    try batchDiff(count: 5_000, deleted: 1_000, inserted: 1_000, shuffled: 200, peerRepetitions: nil)
    try batchDiff(
      count: 100_000, deleted: 10_000, inserted: 10_000, shuffled: 2_000,
      peerRepetitions: Repetitions(
        warmup: 0, measured: context.quick ? 1 : 3, budget: context.quick ? 1 : 120, minimum: 1))
    try genericDiff(count: 100_000)
    try sortedApply(rows: context.quick ? 100_000 : 1_000_000, changedRecords: 10)
  }

  /// `count` ids, then `deleted` removed, `inserted` new ids put at random places, and `shuffled`
  /// surviving ids taken out and put back at random places.
  static func batchCase(count: Int, deleted: Int, inserted: Int, shuffled: Int, seed: UInt64)
    -> (old: [UInt64], new: [UInt64])
  {
    var rng = SplitMix64(seed: seed)
    let old = (0..<UInt64(count)).map { $0 &* 2_654_435_761 % 1_000_000_007 }
    var new = old
    for _ in 0..<deleted { new.remove(at: Int.random(in: 0..<new.count, using: &rng)) }
    for _ in 0..<shuffled {
      let id = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
      new.insert(id, at: Int.random(in: 0...new.count, using: &rng))
    }
    for index in 0..<UInt64(inserted) {
      new.insert(1_000_000_007 + index, at: Int.random(in: 0...new.count, using: &rng))
    }
    return (old, new)
  }

  func batchDiff(count: Int, deleted: Int, inserted: Int, shuffled: Int, peerRepetitions: Repetitions?)
    throws
  {
    let (old, new) = Self.batchCase(
      count: count, deleted: deleted, inserted: inserted, shuffled: shuffled, seed: UInt64(count))
    let changed = Set(new.prefix(count / 100))
    var changeset = Changeset.empty
    let ours = try measure(context.repetitions) {
      changeset = try Changeset(from: old, to: new, changed: changed)
    }
    guard (try? changeset.applied(to: old, newElement: { new[$0] })) == new else {
      throw BenchmarkFailure("batch diff result does not rebuild the new list")
    }
    var peerMoves = 0
    let peer = try measure(peerRepetitions ?? context.repetitions) {
      let difference = new.difference(from: old).inferringMoves()
      peerMoves = difference.removals.count { change in
        if case .remove(_, _, let associated) = change { return associated != nil }
        return false
      }
    }
    context.report.add(
      Comparison(
        scenario: "changesets",
        name: "batch diff \(count / 1_000)k: -\(deleted / 1_000)k +\(inserted / 1_000)k ~\(shuffled)",
        size: count,
        ours: Figure(engine: "LiveLog", stats: ours, itemsPerOperation: Double(count)),
        peer: Figure(
          engine: "stdlib difference+inferringMoves", stats: peer, itemsPerOperation: Double(count)),
        notes: ["moves": Double(changeset.moves.count), "peer_moves": Double(peerMoves)]))
  }

  /// The generic path (String ids hash with `Hasher`), to show what integer ids save.
  func genericDiff(count: Int) throws {
    let (old, new) = Self.batchCase(
      count: count, deleted: count / 10, inserted: count / 10, shuffled: count / 50, seed: 7)
    let oldStrings = old.map { "row-\($0)" }
    let newStrings = new.map { "row-\($0)" }
    var moves = 0
    let ours = try measure(context.repetitions) {
      moves = try Changeset(from: oldStrings, to: newStrings).moves.count
    }
    context.report.add(
      Comparison(
        scenario: "changesets", name: "batch diff 100k String ids (generic path)", size: count,
        ours: Figure(engine: "LiveLog", stats: ours, itemsPerOperation: Double(count)), peer: nil,
        notes: ["moves": Double(moves)]))
  }

  /// A result of `rows` repositories ordered by stars (descending), then name, then row id; each
  /// operation changes `changedRecords` of them (stars of most, one removal, one insertion).
  func sortedApply(rows count: Int, changedRecords: Int) throws {
    var rng = SplitMix64(seed: 42)
    var byID: [RepositoryRow?] = (0..<UInt64(count)).map { id in
      RepositoryRow(
        stars: Int64.random(in: 0..<200_000, using: &rng),
        fullName: "owner\(id % 9_973)/repository-\(id)", rowID: id)
    }
    let initial = byID.compactMap { $0 }.sorted()
    var result = try SortedRows(sorted: initial)
    var peerRows = initial
    var peerIDs = initial.map(\.rowID)

    var changes: [SortedRows<RepositoryRow>.Change] = []
    var changedIDs: Set<UInt64> = []
    func nextBatch() {
      changes = []
      changedIDs = []
      var picked: Set<UInt64> = []
      while picked.count < changedRecords - 1 {
        let id = Int.random(in: 0..<byID.count, using: &rng)
        if byID[id] != nil { picked.insert(UInt64(id)) }
      }
      for (index, id) in picked.enumerated() {
        guard let old = byID[Int(id)] else { continue }
        if index == 0 {
          changes.append(.remove(old))
          byID[Int(id)] = nil
        } else {
          var new = old
          new.stars = max(0, old.stars + Int64.random(in: -500...500, using: &rng))
          changes.append(.update(from: old, to: new))
          changedIDs.insert(id)
          byID[Int(id)] = new
        }
      }
      let id = UInt64(byID.count)
      let inserted = RepositoryRow(
        stars: Int64.random(in: 0..<200_000, using: &rng), fullName: "owner0/new-\(id)", rowID: id)
      byID.append(inserted)
      changes.append(.insert(inserted))
    }

    var moves = 0
    let ours = try measure(context.repetitions, setUp: nextBatch) {
      moves += try result.apply(changes).moves.count
    }
    guard result.count == byID.count(where: { $0 != nil }) else {
      throw BenchmarkFailure("sorted result lost rows")
    }

    // Peer: what an engine without incremental maintenance does, re-running the query (sorting
    // every row) and diffing the whole result by row id with LiveLog's own batch diff.
    var peerPositions: [UInt64: Int] = [:]
    for (index, row) in peerRows.enumerated() { peerPositions[row.rowID] = index }
    func nextPeerBatch() {
      nextBatch()
      for change in changes {
        if let old = change.old, let position = peerPositions[old.rowID] {
          if let new = change.new {
            peerRows[position] = new
          } else {
            let last = peerRows.removeLast()
            peerPositions[old.rowID] = nil
            if position < peerRows.count {
              peerRows[position] = last
              peerPositions[last.rowID] = position
            }
          }
        } else if let new = change.new {
          peerPositions[new.rowID] = peerRows.count
          peerRows.append(new)
        }
      }
    }
    let peerRepetitions = Repetitions(
      warmup: 1, measured: context.quick ? 3 : 10, budget: context.quick ? 5 : 30, minimum: 3)
    let peer = try measure(peerRepetitions, setUp: nextPeerBatch) {
      let ids = peerRows.sorted().map(\.rowID)
      _ = try Changeset(from: peerIDs, to: ids, changed: changedIDs)
      peerIDs = ids
    }
    context.report.add(
      Comparison(
        scenario: "changesets", name: "sorted apply \(count / 1_000)k rows, \(changedRecords) changed",
        size: count,
        ours: Figure(engine: "LiveLog", stats: ours, itemsPerOperation: Double(changedRecords)),
        peer: Figure(
          engine: "re-sort + LiveLog batch diff", stats: peer,
          itemsPerOperation: Double(changedRecords)),
        notes: ["moves_total": Double(moves)]))
  }
}

/// A repository row as the engine's sorted queries key it: stars descending, then full name, then
/// row id, which makes the order total.
private struct RepositoryRow: Comparable, Sendable {
  var stars: Int64
  var fullName: String
  var rowID: UInt64

  static func < (a: RepositoryRow, b: RepositoryRow) -> Bool {
    if a.stars != b.stars { return a.stars > b.stars }
    if a.fullName != b.fullName { return a.fullName < b.fullName }
    return a.rowID < b.rowID
  }
}
