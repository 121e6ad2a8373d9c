import LiveLog

/// What the table shows of one repository.
struct DisplayRow: Hashable, Sendable {
  var id: Int64
  var fullName: String
  var language: String?
  var stars: Int64?
  var description: String?

  init(id: Int64, fullName: String, language: String? = nil, stars: Int64? = nil, description: String? = nil)
  {
    self.id = id
    self.fullName = fullName
    self.language = language
    self.stars = stars
    self.description = description
  }

  init(_ repository: Repository) {
    self.init(
      id: repository.id, fullName: repository.fullName, language: repository.language,
      stars: repository.stargazersCount, description: repository.description)
  }
}

/// The rows of the results the table shows, by position: the live query's `Results` in the app,
/// an array in tests. Only the visible rows are ever read.
protocol ResultRows: Sendable {
  var count: Int { get }
  func row(at position: Int) -> DisplayRow
}

/// A live query's results as table rows; each access decodes one record of the results' snapshot.
struct LiveResultRows: ResultRows {
  let results: Results<Repository>

  var count: Int { results.count }

  func row(at position: Int) -> DisplayRow {
    do {
      return DisplayRow(try results.record(at: position))
    } catch {
      // A damaged record must not take the screen down; the row says what happened.
      return DisplayRow(id: -1, fullName: "<unreadable record: \(error)>")
    }
  }
}

/// Fixed rows (tests, and the empty table).
struct ArrayResultRows: ResultRows {
  var rows: [DisplayRow]

  var count: Int { rows.count }

  func row(at position: Int) -> DisplayRow { rows[position] }
}

/// How table rows are drawn.
enum RowFormat {
  /// The header line of the table.
  static func header(_ columns: TableColumns) -> StyledLine {
    let style = TextStyle(bold: true, underline: true)
    let text = line(
      name: "FULL NAME", language: "LANGUAGE", stars: "STARS", description: "DESCRIPTION", columns)
    return StyledLine(text, style)
  }

  /// One repository as a table line. A highlighted row is a bar across the whole width, so that
  /// it stands out on terminals without colours too.
  static func line(_ row: DisplayRow, _ columns: TableColumns, width: Int, style: TextStyle = .plain)
    -> StyledLine
  {
    let stars = row.stars.map { grouped($0) } ?? "–"
    let text = line(
      name: row.fullName, language: row.language ?? "", stars: stars, description: row.description ?? "",
      columns)
    guard style != .plain else { return StyledLine(text) }
    return StyledLine(TextWidth.fitted(text, to: width), style)
  }

  private static func line(
    name: String, language: String, stars: String, description: String, _ columns: TableColumns
  ) -> String {
    let gap = String(repeating: " ", count: TableColumns.gap)
    var text = TextWidth.fitted(TextWidth.sanitized(name), to: columns.name)
    if columns.language > 0 {
      text += gap + TextWidth.fitted(TextWidth.sanitized(language), to: columns.language)
    }
    text += gap + TextWidth.fitted(stars, to: columns.stars, alignRight: true)
    if columns.description > 0 {
      text += gap + TextWidth.truncated(TextWidth.sanitized(description), to: columns.description)
    }
    return text
  }
}
