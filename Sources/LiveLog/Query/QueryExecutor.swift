import LMDB

/// Candidate rows for a part of a plan.
enum Candidates {
  /// Every row; `exact` when every row matches (`TRUEPREDICATE`).
  case all(exact: Bool)
  /// These rows, ascending; those of `unsure` (ascending, a subset) may not match that part of
  /// the predicate and must be checked against their records, the others match.
  case rows([Row], unsure: [Row])

  static func exact(_ rows: [Row]) -> Candidates { .rows(rows, unsure: []) }
  static func unsure(_ rows: [Row]) -> Candidates { .rows(rows, unsure: rows) }
}

/// What the executor did for one node of the plan, for `explain`.
public struct PlanStep: Sendable, Hashable {
  /// Nesting depth in the plan.
  public var depth: Int
  /// What the node does: "trigrams of full_name: 'ani' 'nim'", "AND", "scan: …".
  public var description: String
  /// Rows the planner expected, from posting-list headers (capped), when it estimated.
  public var estimated: Int?
  /// Rows the node produced, or `nil` when it was skipped.
  public var actual: Int?
  /// Whether its rows match exactly (no per-row check needed).
  public var exact: Bool
  /// Why the node was not read, when it was skipped.
  public var skipped: String?
}

extension PlanStep {
  /// A step whose texts are made only when `explaining`: a query run for its rows records its
  /// steps without them (a small query spent a sixth of its time on them and on the estimates
  /// only `explain` shows, `QueryExecutor.read(_:estimated:depth:within:)`).
  init(
    depth: Int, _ description: @autoclosure () -> String, estimated: Int? = nil, actual: Int? = nil,
    exact: Bool, skipped: @autoclosure () -> String? = nil, explaining: Bool
  ) {
    self.init(
      depth: depth, description: explaining ? description() : "", estimated: estimated, actual: actual,
      exact: exact, skipped: explaining ? skipped() : nil)
  }
}

/// Runs a plan inside one read transaction.
struct QueryExecutor<Txn: ReadableTransaction> {
  let collection: StoredCollection
  let txn: Txn
  let indexes: IndexReader<Txn>
  /// Every step taken, in order, for `explain`.
  private(set) var steps: [PlanStep] = []
  /// Whether the steps are for `explain`, with their texts.
  let explaining: Bool
  /// Records read to check the candidates of `NOT` parts.
  private(set) var checked = 0
  /// The positions of the parts of the plan's top `AND` that its intersection applied exactly:
  /// every candidate it returns matches them, so the per-row check need not test them again
  /// (`QueryRun.residual(of:_:applied:)`).
  private(set) var exactTopParts: Set<Int> = []
  /// The most rows wanted from the plan's root when it is one comparison of two fields read from
  /// the ordered columns (`LIMIT` without `SORT`): the first ones in row order are the answer, so
  /// the read stops there, as the per-row check it replaces did.
  var rootLimit: Int?
  /// The equality lists counted so far, by key, with their parts: an `AND` counts a list to
  /// order its parts, again when the candidates bound it, and then reads it.
  private var countedLists: [[UInt8]: PostingListParts] = [:]

  /// Cap on how far estimates count: beyond it a list is simply "large".
  static var estimateLimit: Int { 50_000 }
  /// Ranks a range after every part with an estimate; its own is taken when they have bounded it.
  private static var deferredEstimate: Int { Int.max - 1 }
  /// How many times longer than the candidates found so far a part of an `AND` may be and still
  /// be read: decoding a posting costs a few nanoseconds, checking a candidate's record (two
  /// lookups and a decode) a microsecond or more.
  static var readRatio: Int { 256 }
  /// The same for an equality list read among the candidates
  /// (`IndexReader.rows(of:kind:within:counted:)`): its rows are compared with the candidates',
  /// mostly stepped over 8 or 32 at a time, and nothing is built. On a 1M store, when the read stepped over eight at most, a list about 3,000 times
  /// longer than the candidates cost as much as checking them, and one 550 times longer a third
  /// as much: this keeps to the side where the read wins (not measured again since).
  static var memberReadRatio: Int { 1_024 }
  /// The same for a range: an ordered entry is decoded, collected and sorted (about 50 ns), so
  /// a range is read only while it is at most this many times longer than the candidates, in a
  /// store without ordered columns (format 7, read-only).
  static var orderedReadRatio: Int { 16 }
  /// The same for a range in a store with ordered columns, which give the candidates' keys
  /// by row instead (`IndexReader.orderedRows(field:lower:upper:among:)`). At 1M records, with
  /// `'aditya'`'s 303 candidates, the range read cost 94, 99, 117 and 156 µs p50 for ranges of
  /// 1.1, 1.8, 3.8 and 8.3 times as many rows, the keys by row 109–112 µs each time.
  static var orderedByRowRatio: Int { 3 }

  /// An executor reading `indexes` (its collection's, in its transaction); `explaining` when its
  /// steps are to be shown.
  init(indexes: IndexReader<Txn>, explaining: Bool) {
    collection = indexes.collection
    txn = indexes.txn
    self.indexes = indexes
    self.explaining = explaining
  }

  /// Records a step and returns its place in `steps`.
  @discardableResult
  private mutating func addStep(
    depth: Int, _ description: @autoclosure () -> String, estimated: Int? = nil, actual: Int? = nil,
    exact: Bool, skipped: @autoclosure () -> String? = nil
  ) -> Int {
    steps.append(
      PlanStep(
        depth: depth, description(), estimated: estimated, actual: actual, exact: exact, skipped: skipped(),
        explaining: explaining))
    return steps.count - 1
  }

  // MARK: Candidates

  mutating func candidates(_ node: PlanNode, depth: Int = 0) throws -> Candidates {
    switch node {
    case .everything:
      addStep(depth: depth, "every row (TRUEPREDICATE)", exact: true)
      return .all(exact: true)
    case .nothing(let reason):
      addStep(depth: depth, "no rows: \(reason)", estimated: 0, actual: 0, exact: true)
      return .exact([])
    case .scan(let reason):
      addStep(depth: depth, "scan: \(reason)", exact: false)
      return .all(exact: false)
    case .lookup(let lookup):
      return try read(lookup, estimated: nil, depth: depth)
    case .not(let inner, let predicate):
      let index = addStep(depth: depth, "NOT: every row but", exact: true)
      let excluded = try matches(inner, predicate, depth: depth + 1)
      let rows = RowSet.subtracting(try everyRow(), excluded)
      steps[index].actual = rows.count
      return .exact(rows)
    case .or(let parts):
      let index = addStep(depth: depth, "OR: union", exact: true)
      var lists: [[Row]] = []
      var sureLists: [[Row]] = []
      var anyUnsure = false
      for part in parts {
        switch try candidates(part, depth: depth + 1) {
        case .all(let partExact):
          steps[index].exact = partExact
          return .all(exact: partExact)
        case .rows(let rows, let unsure):
          lists.append(rows)
          sureLists.append(unsure.isEmpty ? rows : RowSet.subtracting(rows, unsure))
          anyUnsure = anyUnsure || !unsure.isEmpty
        }
      }
      let rows = RowSet.union(lists)
      // A row is sure when any part is sure of it.
      let unsure = anyUnsure ? RowSet.subtracting(rows, RowSet.union(sureLists)) : []
      steps[index].actual = rows.count
      steps[index].exact = unsure.isEmpty
      return .rows(rows, unsure: unsure)
    case .and(let parts):
      return try intersect(parts, depth: depth)
    }
  }

  /// AND: the parts cheapest to read first (`readCost`); a part much larger than the candidates
  /// found so far is skipped (left to the per-row check) rather than read, but for a range, whose
  /// keys for just those rows the ordered columns give (`orderedRows(field:lower:upper:among:)`):
  /// a block read per 64 rows, where a check reads each row's record. `NOT` parts come last,
  /// each subtracting its matches from the candidates (from every row when no other part lists
  /// any).
  private mutating func intersect(_ parts: [PlanNode], depth: Int) throws -> Candidates {
    let index = addStep(depth: depth, "AND: intersection, cheapest to read first", exact: true)
    // Whether every part was applied exactly; if not, every candidate is checked.
    var exact = true
    var ranked: [(estimate: Int, node: PlanNode, position: Int)] = []
    var negated: [(estimate: Int, node: PlanNode, predicate: Predicate, position: Int)] = []
    // Only the top AND's parts are the query predicate's own.
    func appliedExactly(_ position: Int) { if depth == 0 { exactTopParts.insert(position) } }
    for (position, part) in parts.enumerated() {
      switch part {
      case .everything:
        appliedExactly(position)
        continue
      case .scan(let reason):
        exact = false
        addStep(depth: depth + 1, "scan: \(reason)", exact: false, skipped: "checked per row")
      case .lookup(let lookup):
        // A range's estimate steps through its pages, and a comparison of two fields reads every
        // row: they wait until the other parts bound them.
        if Self.readsByRow(lookup) {
          ranked.append((Self.deferredEstimate, part, position))
        } else {
          ranked.append((try estimate(lookup), part, position))
        }
      case .not(let inner, let predicate):
        let size = if case .lookup(let lookup) = inner { try estimate(lookup) } else { Int.max }
        negated.append((size, inner, predicate, position))
      default: ranked.append((-1, part, position))
      }
    }
    if ranked.allSatisfy({ $0.estimate == Self.deferredEstimate }) {
      ranked = try ranked.map { entry in
        guard case .lookup(let lookup) = entry.node else { return entry }
        return (try estimate(lookup), entry.node, entry.position)
      }
    }
    // Estimates stop at `estimateLimit`, which a substring's cost may pass: the lists counted only
    // that far are counted on as far as the costliest substring, so that the two compare. (A
    // substring whose own list passed the limit is known only to cost at least the limit's cost:
    // the lists are counted no further than that.)
    let costliest =
      ranked.filter { Self.isSubstring($0.node) }
      .map { readCost(min($0.estimate, Self.estimateLimit + 1), $0.node) }.max() ?? 0
    if costliest > Self.estimateLimit {
      ranked = try ranked.map { entry in
        guard entry.estimate > Self.estimateLimit, entry.estimate <= costliest,
          entry.estimate != Self.deferredEstimate, case .lookup(let lookup) = entry.node,
          !Self.isSubstring(entry.node)
        else { return entry }
        return (try estimate(lookup, limit: costliest), entry.node, entry.position)
      }
    }
    ranked.sort { readCost($0.estimate, $0.node) < readCost($1.estimate, $1.node) }
    negated.sort { $0.estimate < $1.estimate }
    var current: [Row]?
    var unsure: [Row] = []
    for (ranking, node, position) in ranked {
      var estimate = ranking
      var ratio = Self.readRatio
      if case .lookup(let lookup) = node {
        if Self.readsByRow(lookup) {
          ratio = collection.databases.columns == nil ? Self.orderedReadRatio : Self.orderedByRowRatio
        } else if case .terms = lookup.access {
          ratio = Self.memberReadRatio
        }
      }
      if let rows = current, case .lookup(let lookup) = node {
        let bound = ratio * max(rows.count, 1)
        // A deferred range has no estimate yet, and one past `estimateLimit` only says "at least
        // that": either is counted again, as far as the bound this part is held to.
        if ranking == Self.deferredEstimate || (ranking > Self.estimateLimit && bound >= Self.estimateLimit) {
          estimate = try self.estimate(lookup, limit: bound + 1)
        }
      }
      if let rows = current, estimate > ratio * max(rows.count, 1) {
        if case .lookup(let lookup) = node, let found = try rowsByRow(lookup, among: rows) {
          addStep(
            depth: depth + 1, Self.describe(lookup) + ", by row among \(rows.count) candidates",
            estimated: estimate, actual: found.count, exact: true)
          appliedExactly(position)
          if !unsure.isEmpty { unsure = RowSet.intersection(unsure, found) }
          current = found
          if found.isEmpty { break }
          continue
        }
        exact = false
        addStep(
          depth: depth + 1, Self.describeNode(node), estimated: estimate, exact: false,
          skipped: "\(estimate) rows against \(rows.count) candidates: checked per row")
        continue
      }
      let found: Candidates =
        if case .lookup(let lookup) = node {
          try read(
            lookup, estimated: estimate == Self.deferredEstimate ? nil : estimate, depth: depth + 1,
            within: current)
        } else { try candidates(node, depth: depth + 1) }
      switch found {
      case .all(let partExact):
        exact = exact && partExact
        if partExact { appliedExactly(position) }
      case .rows(let rows, let partUnsure):
        if partUnsure.isEmpty { appliedExactly(position) }
        if let rows0 = current {
          let both = RowSet.intersection(rows0, rows)
          unsure =
            unsure.isEmpty && partUnsure.isEmpty
            ? [] : RowSet.intersection(RowSet.union(unsure, partUnsure), both)
          current = both
        } else {
          current = rows
          unsure = partUnsure
        }
      }
      if current?.isEmpty == true { break }
    }
    for (estimate, inner, predicate, position) in negated where current?.isEmpty != true {
      // Subtracting costs reading the excluded rows (and checking them, when the index only
      // narrows them down); checking the candidates instead costs one record each.
      let factor = if case .lookup(let lookup) = inner, lookup.isExact { Self.readRatio } else { 1 }
      if let rows = current, estimate > factor * max(rows.count, 1) {
        exact = false
        addStep(
          depth: depth + 1, "NOT " + Self.describeNode(inner), estimated: estimate, exact: false,
          skipped: "\(estimate) rows against \(rows.count) candidates: checked per row")
        continue
      }
      let step = addStep(depth: depth + 1, "NOT: subtract", exact: true)
      let excluded = try matches(inner, predicate, depth: depth + 2)
      current = RowSet.subtracting(try current ?? everyRow(), excluded)
      if !unsure.isEmpty { unsure = RowSet.subtracting(unsure, excluded) }
      steps[step].actual = current?.count
      appliedExactly(position)
    }
    guard let current else {
      steps[index].exact = exact
      return .all(exact: exact)
    }
    if !exact { unsure = current }
    // Parts left to the per-row check make the intersection inexact even when it is empty.
    steps[index].exact = exact && unsure.isEmpty
    steps[index].actual = current.count
    return .rows(current, unsure: unsure)
  }

  /// How much reading a part of an `AND` first costs, in rows of an equality list, from its
  /// `estimate`: the order in which the intersection reads its parts. A substring's estimate is
  /// its smallest trigram list, which it decodes with every row's positions before its other
  /// lists, whose rows it reads, positions stepped over; read among another part's rows it
  /// decodes the same lists' rows but only those rows' positions. So a substring's list rows
  /// count `positionalReadCost` times; the recent rows every estimate counts
  /// (`IndexReader.count(of:kind:limit:)`) are checked alike in either order, so they count once.
  private func readCost(_ estimate: Int, _ node: PlanNode) -> Int {
    guard Self.isSubstring(node) else { return estimate }
    let recent = min(indexes.recent.rows.count, max(estimate, 0))
    let lists = estimate - recent
    // Below `deferredEstimate` however large: ranges are still read after every other part.
    guard lists <= (Self.deferredEstimate - 1 - recent) / Self.positionalReadCost else {
      return Self.deferredEstimate - 1
    }
    return lists * Self.positionalReadCost + recent
  }

  private static func isSubstring(_ node: PlanNode) -> Bool {
    guard case .lookup(let lookup) = node, case .substring = lookup.access else { return false }
    return true
  }

  /// How many times an equality list's rows the smallest trigram list of a substring costs when
  /// read first rather than among an equality's rows: the boundary between the orders, measured at
  /// 1M records. The term first reads its other lists among its smallest one's rows, a merge that
  /// can rarely step over eight rows, and then the language's list among its matches; the
  /// language first asks the smallest list for its rows as bits, and the other lists for the few
  /// starts left. The queries and their times in each order: QueryLanguage.md, "The boundary
  /// measured a third time".
  static var positionalReadCost: Int { 18 }

  /// Reads one lookup, recording its step; `estimated` when the caller already knows it. A
  /// substring or equality lookup of an `AND` looks only among the candidates found so far
  /// (`within`): its positions, or its rows, are kept for those rows alone (the step's count is
  /// then of those).
  private mutating func read(_ lookup: IndexLookup, estimated: Int?, depth: Int, within: [Row]? = nil) throws
    -> Candidates
  {
    // A range's count comes with its read: an estimate first would step through the same pages.
    // A lookup read on its own is estimated only for `explain`: the count orders nothing and
    // checks nothing (so a damaged page only the count would read fails `explain` and `verify`,
    // not the query).
    let estimate: Int? =
      if Self.readsByRow(lookup) || !explaining { estimated } else { try estimated ?? self.estimate(lookup) }
    let index = addStep(depth: depth, Self.describe(lookup), estimated: estimate, exact: lookup.isExact)
    let found: Candidates
    switch lookup.access {
    case .trigrams(_, let codes):
      found = .unsure(try indexes.rows(holdingAll: codes, limit: Self.estimateLimit))
    case .substring(let field, let pattern, let anchored, let check):
      let (rows, recent) = try indexes.rows(
        containing: pattern, field: field, anchored: anchored, within: within)
      switch check {
      case .none: found = .rows(rows, unsure: recent)
      case .all: found = .unsure(rows)
      case .unplainRows:
        let unplain = rows.isEmpty ? [] : try indexes.unplainRows(of: field, within: rows)
        found = .rows(rows, unsure: RowSet.union(recent, unplain))
      }
    case .terms(_, let prefixes, _):
      found = .exact(
        RowSet.union(
          try prefixes.map {
            try indexes.rows(of: $0, kind: .term, within: within, counted: countedLists[$0])
          }))
    case .termGroup(let field, let folded, let value, let options, let match):
      found = .exact(
        try indexes.termGroupRows(
          field: field, folded: folded, value: value, options: options, match: match, countOnly: false,
          limit: Self.estimateLimit
        ).rows)
    case .ordered(let field, let lower, let upper, _):
      found = .exact(try indexes.orderedRows(field: field, lower: lower, upper: upper))
    case .columns(let left, let relation, let right):
      if let rows = try indexes.rows(
        comparing: left, relation, right, among: within, limit: depth == 0 ? rootLimit : nil)
      {
        found = .exact(rows)
      } else {
        // Without columns (format 7, read-only) every row is checked against its record.
        steps[index].exact = false
        if explaining { steps[index].skipped = "no ordered columns (a store of format 7): checked per row" }
        found = .all(exact: false)
      }
    }
    if case .rows(let rows, let unsure) = found {
      steps[index].actual = rows.count
      // A step that checks every row it finds is not exact for having found none.
      steps[index].exact = unsure.isEmpty && !lookup.checksEveryRow
    }
    return found
  }

  /// The rows that match `predicate`, from the rows its plan `node` finds: the unsure ones
  /// checked per row.
  private mutating func matches(_ node: PlanNode, _ predicate: Predicate, depth: Int) throws -> [Row] {
    switch try candidates(node, depth: depth) {
    case .rows(let rows, let unsure):
      guard !unsure.isEmpty else { return rows }
      let confirmed = try check(unsure, predicate, limit: nil, checked: &checked)
      return RowSet.union(RowSet.subtracting(rows, unsure), confirmed)
    case .all(true): return try everyRow()
    case .all(false): return try check(try everyRow(), predicate, limit: nil, checked: &checked)
    }
  }

  // MARK: Lookups

  mutating func estimate(_ lookup: IndexLookup, limit: Int = Self.estimateLimit) throws -> Int {
    switch lookup.access {
    case .trigrams(_, let codes):
      var smallest = Int.max
      for code in codes {
        smallest = min(
          smallest, try indexes.count(of: IndexKeys.trigramPrefix(code), kind: .trigram, limit: limit))
        if smallest == 0 { break }
      }
      return smallest
    case .substring(let field, let pattern, _, _):
      var smallest = Int.max
      for offset in TrigramPostings.coveringOffsets(count: pattern.count) {
        let code = IndexKeys.trigramCode(
          field: field.position, pattern[offset], pattern[offset + 1], pattern[offset + 2])
        smallest = min(
          smallest, try indexes.count(of: IndexKeys.trigramPrefix(code), kind: .trigram, limit: limit))
        if smallest == 0 { break }
      }
      return smallest
    case .terms(_, let prefixes, _):
      var count = 0
      for key in prefixes {
        var counted = countedLists.removeValue(forKey: key) ?? PostingListParts(key: key, kind: .term)
        count += try indexes.count(&counted, limit: limit)
        countedLists[key] = counted
      }
      return count
    case .termGroup(let field, let folded, let value, let options, let match):
      return try indexes.termGroupRows(
        field: field, folded: folded, value: value, options: options, match: match, countOnly: true,
        limit: limit
      ).count
    case .ordered(let field, let lower, let upper, _):
      return try indexes.orderedCount(field: field, lower: lower, upper: upper, limit: limit)
    case .columns:
      // Every row is read; how many match is known only then.
      return try collection.count(indexes.txn)
    }
  }

  /// Whether a lookup is read row by row among an `AND`'s candidates rather than skipped when it
  /// is far larger than they are (`rowsByRow`), and estimated only once they bound it.
  private static func readsByRow(_ lookup: IndexLookup) -> Bool {
    switch lookup.access {
    case .ordered, .columns: true
    default: false
    }
  }

  /// The rows of `candidates` that `lookup` (a range, or a comparison of two fields) holds, read
  /// by row from the ordered columns: nil for other lookups, or a store without columns.
  private func rowsByRow(_ lookup: IndexLookup, among candidates: [Row]) throws -> [Row]? {
    switch lookup.access {
    case .ordered(let field, let lower, let upper, _):
      return try indexes.orderedRows(field: field, lower: lower, upper: upper, among: candidates)
    case .columns(let left, let relation, let right):
      return try indexes.rows(comparing: left, relation, right, among: candidates, limit: nil)
    default: return nil
    }
  }

  // MARK: Descriptions

  static func describe(_ lookup: IndexLookup) -> String {
    switch lookup.access {
    case .trigrams(let field, let codes):
      return
        "substring index of \(field.name): trigrams \(codes.map { QueryExecutorText.gram($0) }.joined(separator: " "))"
    case .substring(let field, let pattern, let anchored, let check):
      let offsets = TrigramPostings.coveringOffsets(count: pattern.count)
      let grams = offsets.map { offset -> String in
        "'" + String(decoding: pattern[offset..<(offset + 3)], as: UTF8.self) + "'@\(offset)"
      }
      let checked =
        switch check {
        case .none: ""
        case .unplainRows: ", rows a [d] fold changes checked"
        case .all: ", every row checked"
        }
      return "substring index of \(field.name): trigrams \(grams.joined(separator: " ")) by position"
        + (anchored ? " from the start" : "") + checked
    case .terms(let field, _, let values):
      return "equality index of \(field.name): \(values.map { "'\($0)'" }.joined(separator: ", "))"
    case .termGroup(let field, _, let value, let options, let match):
      let relation = match == .prefix ? "beginning with" : "equal to"
      return "equality index of \(field.name): values \(relation) '\(value)'"
        + (options.isEmpty ? "" : " " + optionText(options))
    case .ordered(let field, _, _, let range):
      return "ordered index of \(field.name): \(range.text)"
    case .columns(let left, let relation, let right):
      return
        "ordered index columns of \(left.name) and \(right.name): \(left.name) \(relation.rawValue) \(right.name)"
    }
  }

  private static func describeNode(_ node: PlanNode) -> String {
    switch node {
    case .lookup(let lookup): Self.describe(lookup)
    case .and: "AND"
    case .or: "OR"
    case .not(let inner, _): "NOT " + Self.describeNode(inner)
    case .scan(let reason): "scan: \(reason)"
    case .nothing(let reason): "no rows: \(reason)"
    case .everything: "every row"
    }
  }

  private static func optionText(_ options: StringOptions) -> String {
    var text = "["
    if options.contains(.caseInsensitive) { text += "c" }
    if options.contains(.diacriticInsensitive) { text += "d" }
    return text + "]"
  }
}

/// How `explain` writes a trigram.
enum QueryExecutorText {
  static func gram(_ code: UInt32) -> String {
    let bytes = [
      UInt8(truncatingIfNeeded: code >> 16), UInt8(truncatingIfNeeded: code >> 8),
      UInt8(truncatingIfNeeded: code),
    ]
    return "'" + String(decoding: bytes, as: UTF8.self) + "'"
  }
}
