import LMDB

/// Candidate rows for a part of a plan.
enum Candidates {
  /// Every row; `exact` when every row matches (`TRUEPREDICATE`).
  case all(exact: Bool)
  /// These rows, ascending; `exact` when each of them matches that part of the predicate.
  case rows([Row], exact: Bool)
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

/// Runs a plan inside one read transaction.
struct QueryExecutor<Txn: ReadableTransaction> {
  let collection: StoredCollection
  let txn: Txn
  /// Every step taken, in order, for `explain`.
  private(set) var steps: [PlanStep] = []
  /// Records read to check the candidates of `NOT` parts.
  private(set) var checked = 0

  /// Cap on how far estimates count: beyond it a list is simply "large".
  static var estimateLimit: Int { 50_000 }

  init(collection: StoredCollection, txn: Txn) {
    self.collection = collection
    self.txn = txn
  }

  private var trigramIndex: Database { collection.databases.trigrams }
  private var termIndex: Database { collection.databases.terms }

  // MARK: Candidates

  mutating func candidates(_ node: PlanNode, depth: Int = 0) throws -> Candidates {
    switch node {
    case .everything:
      steps.append(PlanStep(depth: depth, description: "every row (TRUEPREDICATE)", actual: nil, exact: true))
      return .all(exact: true)
    case .nothing(let reason):
      steps.append(
        PlanStep(depth: depth, description: "no rows: \(reason)", estimated: 0, actual: 0, exact: true))
      return .rows([], exact: true)
    case .scan(let reason):
      steps.append(PlanStep(depth: depth, description: "scan: \(reason)", actual: nil, exact: false))
      return .all(exact: false)
    case .lookup(let lookup):
      return .rows(try rows(of: lookup, estimated: nil, depth: depth), exact: lookup.isExact)
    case .not(let inner, let predicate):
      let index = steps.count
      steps.append(PlanStep(depth: depth, description: "NOT: every row but", actual: nil, exact: true))
      let excluded = try matches(inner, predicate, depth: depth + 1)
      let rows = RowSet.subtracting(try everyRow(), excluded)
      steps[index].actual = rows.count
      return .rows(rows, exact: true)
    case .or(let parts):
      let index = steps.count
      steps.append(PlanStep(depth: depth, description: "OR: union", actual: nil, exact: true))
      var lists: [[Row]] = []
      var exact = true
      for part in parts {
        switch try candidates(part, depth: depth + 1) {
        case .all(let partExact):
          steps[index].exact = partExact
          return .all(exact: partExact)
        case .rows(let rows, let partExact):
          lists.append(rows)
          exact = exact && partExact
        }
      }
      let rows = RowSet.union(lists)
      steps[index].actual = rows.count
      steps[index].exact = exact
      return .rows(rows, exact: exact)
    case .and(let parts):
      return try intersect(parts, depth: depth)
    }
  }

  /// AND: the most selective parts first; a part much larger than the candidates found so far is
  /// skipped (left to the per-row check) rather than read. `NOT` parts come last, each subtracting
  /// its matches from the candidates (from every row when no other part lists any).
  private mutating func intersect(_ parts: [PlanNode], depth: Int) throws -> Candidates {
    let index = steps.count
    steps.append(
      PlanStep(depth: depth, description: "AND: intersection, most selective first", actual: nil, exact: true)
    )
    var exact = true
    var ranked: [(estimate: Int, node: PlanNode)] = []
    var negated: [(estimate: Int, node: PlanNode, predicate: Predicate)] = []
    for part in parts {
      switch part {
      case .everything: continue
      case .scan(let reason):
        exact = false
        steps.append(
          PlanStep(
            depth: depth + 1, description: "scan: \(reason)", actual: nil, exact: false,
            skipped: "checked per row"))
      case .lookup(let lookup): ranked.append((try estimate(lookup), part))
      case .not(let inner, let predicate):
        let size = if case .lookup(let lookup) = inner { try estimate(lookup) } else { Int.max }
        negated.append((size, inner, predicate))
      default: ranked.append((-1, part))
      }
    }
    ranked.sort { $0.estimate < $1.estimate }
    negated.sort { $0.estimate < $1.estimate }
    var current: [Row]?
    for (estimate, node) in ranked {
      if let rows = current, rows.count <= 1_000, estimate > 16 * max(rows.count, 1) {
        exact = false
        steps.append(
          PlanStep(
            depth: depth + 1, description: describeNode(node), estimated: estimate, actual: nil, exact: false,
            skipped: "\(estimate) rows against \(rows.count) candidates: checked per row"))
        continue
      }
      let found: Candidates =
        if case .lookup(let lookup) = node {
          .rows(try rows(of: lookup, estimated: estimate, depth: depth + 1), exact: lookup.isExact)
        } else { try candidates(node, depth: depth + 1) }
      switch found {
      case .all(let partExact):
        exact = exact && partExact
      case .rows(let rows, let partExact):
        current = current.map { RowSet.intersection($0, rows) } ?? rows
        exact = exact && partExact
      }
      if current?.isEmpty == true { break }
    }
    for (estimate, inner, predicate) in negated where current?.isEmpty != true {
      // Subtracting costs reading the excluded rows (and checking them, when the index only
      // narrows them down); checking the candidates instead costs one record each.
      let factor = if case .lookup(let lookup) = inner, lookup.isExact { 16 } else { 1 }
      if let rows = current, estimate > factor * max(rows.count, 1) {
        exact = false
        steps.append(
          PlanStep(
            depth: depth + 1, description: "NOT " + describeNode(inner), estimated: estimate, actual: nil,
            exact: false, skipped: "\(estimate) rows against \(rows.count) candidates: checked per row"))
        continue
      }
      let step = steps.count
      steps.append(PlanStep(depth: depth + 1, description: "NOT: subtract", actual: nil, exact: true))
      let excluded = try matches(inner, predicate, depth: depth + 2)
      current = RowSet.subtracting(try current ?? everyRow(), excluded)
      steps[step].actual = current?.count
    }
    steps[index].exact = exact
    guard let current else {
      return .all(exact: exact)
    }
    steps[index].actual = current.count
    return .rows(current, exact: exact)
  }

  /// Reads one lookup, recording its step; `estimated` when the caller already knows it.
  private mutating func rows(of lookup: IndexLookup, estimated: Int?, depth: Int) throws -> [Row] {
    let index = steps.count
    // A range's estimate would walk the very entries the read walks: its count is known after.
    let estimate: Int? =
      if case .ordered = lookup.access { estimated } else { try estimated ?? self.estimate(lookup) }
    steps.append(
      PlanStep(
        depth: depth, description: describe(lookup), estimated: estimate, actual: nil, exact: lookup.isExact))
    let rows = try read(lookup, depth: depth + 1)
    steps[index].actual = rows.count
    return rows
  }

  /// The rows that match `predicate`, from the rows its plan `node` finds: checked per row when
  /// they are only candidates.
  private mutating func matches(_ node: PlanNode, _ predicate: Predicate, depth: Int) throws -> [Row] {
    switch try candidates(node, depth: depth) {
    case .rows(let rows, true): return rows
    case .rows(let rows, false): return try check(rows, predicate, limit: nil, checked: &checked)
    case .all(true): return try everyRow()
    case .all(false): return try check(try everyRow(), predicate, limit: nil, checked: &checked)
    }
  }

  // MARK: Lookups

  func estimate(_ lookup: IndexLookup) throws -> Int {
    let limit = Self.estimateLimit
    switch lookup.access {
    case .trigrams(_, let codes):
      var smallest = Int.max
      for code in codes {
        smallest = min(
          smallest,
          try PostingBlocks.estimate(
            IndexKeys.trigramPrefix(code), in: trigramIndex, txn, limit: limit))
        if smallest == 0 { break }
      }
      // The segment of recent rows is read once, for every trigram together.
      return smallest + (try RecentTrigrams.rows(holdingAll: codes, in: trigramIndex, txn).count)
    case .terms(_, let prefixes, _):
      return try prefixes.reduce(0) {
        $0 + (try PostingBlocks.estimate($1, in: termIndex, txn, limit: limit))
      }
    case .termGroup(let field, let folded, let value, let options):
      return try termGroupRows(field: field, folded: folded, value: value, options: options, countOnly: true)
        .count
    case .ordered(let field, let lower, let upper, _):
      return try orderedRows(field: field, lower: lower, upper: upper, limit: limit).count
    }
  }

  private mutating func read(_ lookup: IndexLookup, depth: Int) throws -> [Row] {
    switch lookup.access {
    case .trigrams(_, let codes):
      // Smallest list first; once few candidates are left, long lists are cheaper to check per row.
      var sized: [(Int, UInt32)] = []
      for code in codes {
        sized.append(
          (
            try PostingBlocks.estimate(
              IndexKeys.trigramPrefix(code), in: trigramIndex, txn, limit: Self.estimateLimit), code
          ))
      }
      sized.sort { $0.0 < $1.0 }
      var rows: [Row]?
      for (size, code) in sized {
        // Decoding a row of a list costs about a hundredth of checking a candidate: a list far
        // longer than the candidates left would cost more than it could save.
        if let current = rows, size > 32 * max(current.count, 1) { break }
        let list = try PostingBlocks.read(IndexKeys.trigramPrefix(code), in: trigramIndex, txn)
        rows = rows.map { RowSet.intersection($0, list) } ?? list
        if rows?.isEmpty == true { break }
      }
      // Rows of the recent segment are in no posting list: they hold every trigram or none here.
      let recent = try RecentTrigrams.rows(holdingAll: codes, in: trigramIndex, txn)
      return recent.isEmpty ? rows ?? [] : RowSet.union(rows ?? [], recent)
    case .terms(_, let prefixes, _):
      return RowSet.union(try prefixes.map { try PostingBlocks.read($0, in: termIndex, txn) })
    case .termGroup(let field, let folded, let value, let options):
      return try termGroupRows(field: field, folded: folded, value: value, options: options, countOnly: false)
    case .ordered(let field, let lower, let upper, _):
      return RowSet.ascending(try orderedRows(field: field, lower: lower, upper: upper, limit: nil))
    }
  }

  /// The rows of every exact value in one folded group that equals `value` under `options`.
  private func termGroupRows(
    field: Field, folded: [UInt8], value: String, options: StringOptions, countOnly: Bool
  )
    throws -> [Row]
  {
    let group = IndexKeys.termGroupPrefix(field: field.position, folded: folded)
    let target = TextFolding.fold(value, options)
    return try txn.withCursor(termIndex) { cursor in
      var lists: [[Row]] = []
      var counted = 0
      var entry = try cursor.seek(atLeast: group)
      while let current = entry, current.key.count > group.count + 4, current.key.starts(with: group) {
        let termLength = current.key.count - 4
        let term = UnsafeRawBufferPointer(rebasing: current.key[..<termLength])
        guard let exact = IndexKeys.exactValue(ofTermPrefix: term, groupCount: group.count) else {
          throw StoreError.corruptState(reason: "malformed equality index key for \(field.name)")
        }
        if TextFolding.fold(exact, options) == target {
          guard let first = PostingBlocks.firstRow(of: current.key, prefixCount: termLength) else {
            throw StoreError.corruptState(reason: "malformed equality index key for \(field.name)")
          }
          var rows: [Row] = []
          if countOnly {
            var reader = ByteReader(current.value)
            counted += Int((try? reader.readVarint()) ?? 0)
          } else {
            try PostingBlocks.decode(current.value, firstRow: first, into: &rows)
            lists.append(rows)
          }
        }
        entry = try cursor.next()
      }
      if countOnly { return [Row](repeating: 0, count: min(counted, Self.estimateLimit + 1)) }
      return RowSet.union(lists)
    }
  }

  /// Rows of the ordered index in a range of keys, in index order (by value, then row).
  func orderedRows(field: Field, lower: OrderedKey, upper: OrderedKey, limit: Int?) throws -> [Row] {
    let layout = OrderedLayout(field)
    let end = layout.prefix(upper)
    return try txn.withCursor(collection.databases.ordered) { cursor in
      var rows: [Row] = []
      var entry = try cursor.seek(atLeast: layout.prefix(lower))
      while let current = entry, layout.holds(current.key), layout.key(current.key, isAtMost: end) {
        rows.append(layout.row(current.key))
        if let limit, rows.count > limit { break }
        entry = try cursor.next()
      }
      return rows
    }
  }

  // MARK: Descriptions

  func describe(_ lookup: IndexLookup) -> String {
    switch lookup.access {
    case .trigrams(let field, let codes):
      let grams = codes.map { code -> String in
        let bytes = [
          UInt8(truncatingIfNeeded: code >> 16), UInt8(truncatingIfNeeded: code >> 8),
          UInt8(truncatingIfNeeded: code),
        ]
        return "'" + String(decoding: bytes, as: UTF8.self) + "'"
      }
      return "substring index of \(field.name): trigrams \(grams.joined(separator: " "))"
    case .terms(let field, _, let values):
      return "equality index of \(field.name): \(values.map { "'\($0)'" }.joined(separator: ", "))"
    case .termGroup(let field, _, let value, let options):
      return "equality index of \(field.name): values equal to '\(value)' \(optionText(options))"
    case .ordered(let field, _, _, let range):
      return "ordered index of \(field.name): \(range)"
    }
  }

  private func describeNode(_ node: PlanNode) -> String {
    switch node {
    case .lookup(let lookup): describe(lookup)
    case .and: "AND"
    case .or: "OR"
    case .not(let inner, _): "NOT " + describeNode(inner)
    case .scan(let reason): "scan: \(reason)"
    case .nothing(let reason): "no rows: \(reason)"
    case .everything: "every row"
    }
  }

  private func optionText(_ options: StringOptions) -> String {
    var text = "["
    if options.contains(.caseInsensitive) { text += "c" }
    if options.contains(.diacriticInsensitive) { text += "d" }
    return text + "]"
  }
}
