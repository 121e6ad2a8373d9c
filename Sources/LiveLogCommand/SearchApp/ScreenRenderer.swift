/// A cell of the screen, 0-based.
struct ScreenPosition: Hashable, Sendable {
  var line: Int
  var column: Int
}

/// What the app wants on the screen: every line, and where the cursor stands.
struct Frame: Hashable, Sendable {
  var lines: [StyledLine]
  var cursor: ScreenPosition
}

/// Turns frames into the escape sequences that bring the terminal from what it shows to what the
/// frame says, writing as little as it can.
///
/// The renderer keeps a copy of what every line of the terminal shows. A frame is drawn by
/// rewriting only the lines that differ from that copy (cursor to the line, the runs, erase the
/// rest); a table change is first applied as line insertions and deletions inside the table's
/// scrolling region (`TablePatch`), which the terminal performs by moving the lines that stay, so
/// the comparison then finds only the new, changed and uncovered rows. The whole screen is cleared
/// and drawn only by `redrawAll` (at start and after a resize).
struct ScreenRenderer {
  private(set) var layout: ScreenLayout
  /// What each line of the terminal shows; `nil` when unknown (drawn at the next frame).
  private(set) var shown: [StyledLine?]
  /// The lines the last `draw` or `redrawAll` wrote, for tests and diagnostics.
  private(set) var lastWrittenLines: [Int] = []
  /// Where the visible cursor stands; `nil` while it is hidden or elsewhere (after line operations).
  private var cursor: ScreenPosition?

  private static let escape = "\u{1B}["

  init(layout: ScreenLayout) {
    self.layout = layout
    shown = Array(repeating: nil, count: layout.size.rows)
  }

  /// Clears the screen, sets the table's scrolling region and draws `frame` for a (new) layout.
  mutating func redrawAll(_ frame: Frame, layout: ScreenLayout) -> String {
    self.layout = layout
    shown = Array(repeating: StyledLine.blank, count: layout.size.rows)
    var output = Self.escape + "?25l" + Self.escape + "0m" + Self.escape + "r" + Self.escape + "2J"
    if layout.fits {
      // DECSTBM, 1-based and inclusive: insertions and deletions stay inside the table.
      output += Self.escape + "\(layout.tableLines.lowerBound + 1);\(layout.tableLines.upperBound)r"
    }
    cursor = nil
    return output + draw(frame)
  }

  /// Performs table line operations on the terminal and on the copy of what it shows.
  mutating func shiftTable(_ operations: [LineOperation]) -> String {
    guard layout.fits, !operations.isEmpty else { return "" }
    let table = layout.tableLines
    var lines = Array(shown[table])
    TablePatch.apply(operations, to: &lines)
    // A line that slid in blank is known to be blank: the terminal fills it so.
    shown.replaceSubrange(table, with: lines.map { $0 ?? StyledLine.blank })
    var output = Self.escape + "?25l" + Self.escape + "0m"
    cursor = nil
    for operation in operations {
      switch operation {
      case .delete(let line, let count):
        output += move(to: table.lowerBound + line, column: 0) + Self.escape + "\(count)M"
      case .insert(let line, let count):
        output += move(to: table.lowerBound + line, column: 0) + Self.escape + "\(count)L"
      }
    }
    return output
  }

  /// Rewrites the lines of `frame` that differ from what the terminal shows, then places the
  /// cursor. Returns "" when nothing changed.
  mutating func draw(_ frame: Frame) -> String {
    var output = ""
    lastWrittenLines = []
    for (index, line) in frame.lines.enumerated() where index < shown.count {
      let clipped = line.clipped(to: layout.width)
      guard shown[index] != clipped else { continue }
      output += move(to: index, column: 0)
      for span in clipped.spans { output += span.style.sgr + span.text }
      output += Self.escape + "0m" + Self.escape + "K"
      shown[index] = clipped
      lastWrittenLines.append(index)
    }
    if output.isEmpty, cursor == frame.cursor { return "" }
    // The cursor is hidden while lines are written, so that it does not flicker across the screen.
    cursor = frame.cursor
    return Self.escape + "?25l" + output + move(to: frame.cursor.line, column: frame.cursor.column)
      + Self.escape + "?25h"
  }

  /// Forgets what the screen shows, so that the next `draw` writes every line.
  mutating func invalidate() {
    shown = Array(repeating: nil, count: layout.size.rows)
    cursor = nil
  }

  private func move(to line: Int, column: Int) -> String {
    Self.escape + "\(line + 1);\(column + 1)H"
  }
}
