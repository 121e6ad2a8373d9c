/// A terminal's size in character cells.
struct TerminalSize: Hashable, Sendable {
  var rows: Int
  var columns: Int
}

/// Where everything goes on a screen of a given size (0-based lines):
///
/// ```
/// 0        title bar
/// 1        Search: TERM
/// 2        Language: Swift  Objective-C  any
/// 3        table header
/// 4 …      table rows (the scrolling region the renderer inserts and deletes lines in)
/// rows-2   status: counts, the network's state
/// rows-1   message: an error, or the keys
/// ```
///
/// Text is laid out in `columns - 1` cells: writing the last cell of a line leaves terminals in
/// a "pending wrap" state in which erasing to the end of the line also erases that cell.
struct ScreenLayout: Hashable, Sendable {
  let size: TerminalSize

  static let titleLine = 0
  static let queryLine = 1
  static let languageLine = 2
  static let headerLine = 3
  static let tableTop = 4
  /// The smallest screen the app draws on (two table rows, a name column and stars).
  static let minimumSize = TerminalSize(rows: 8, columns: 30)

  init(size: TerminalSize) {
    self.size = size
  }

  /// Whether the screen is big enough to draw the app (otherwise it shows one line saying so).
  var fits: Bool {
    size.rows >= ScreenLayout.minimumSize.rows && size.columns >= ScreenLayout.minimumSize.columns
  }

  /// Columns used for text on every line.
  var width: Int { max(0, size.columns - 1) }

  var statusLine: Int { size.rows - 2 }
  var messageLine: Int { size.rows - 1 }
  /// The lines of the table rows.
  var tableLines: Range<Int> { ScreenLayout.tableTop..<max(ScreenLayout.tableTop, statusLine) }
  /// How many result rows are visible at once.
  var tableHeight: Int { tableLines.count }

  /// The table's columns for this width.
  var columns: TableColumns { TableColumns(width: width) }
}

/// The widths of the table's columns: full name, language, stars and description, separated by
/// two spaces. Narrow screens drop the description, then the language.
struct TableColumns: Hashable, Sendable {
  var name: Int
  var language: Int
  var stars: Int
  var description: Int

  static let gap = 2

  init(width: Int) {
    stars = 8
    language = width >= 60 ? 12 : 0
    name = min(45, max(18, width * 35 / 100))
    let used = name + TableColumns.gap + stars + (language > 0 ? language + TableColumns.gap : 0)
    let rest = width - used - TableColumns.gap
    description = rest >= 10 ? rest : 0
    if description == 0 {
      // No room for descriptions: give the name what is left.
      name = max(8, width - stars - TableColumns.gap - (language > 0 ? language + TableColumns.gap : 0))
    }
  }
}
