@testable import LiveLogCommand

/// A small terminal emulator: enough of VT100/xterm to know what `livelog search` puts on the
/// screen — cursor positioning, erasing, SGR attributes, scrolling regions, line insertion and
/// deletion, the alternate screen — and to count what was written where.
///
/// Characters are placed with the app's own width rules (`TextWidth`): the tests check what the
/// app draws, not how one terminal or another measures emoji.
final class VirtualScreen {
  /// What a cell looks like.
  struct Attributes: Hashable {
    var bold = false
    var dim = false
    var underline = false
    var reverse = false
    /// 0–7 for SGR 30–37; `nil` for the default colour.
    var foreground: Int?
  }

  struct Cell: Hashable {
    var text: String = " "
    var attributes = Attributes()
  }

  private(set) var rows: Int
  private(set) var columns: Int
  private var cells: [[Cell]]
  private var saved: [[Cell]]?
  private(set) var cursor = (line: 0, column: 0)
  private(set) var cursorVisible = true
  private(set) var alternateScreen = false
  private var attributes = Attributes()
  private var scrollTop = 0
  private var scrollBottom: Int

  /// How many times the whole screen was erased (`ESC[2J`).
  private(set) var fullClears = 0
  /// Printable characters written per line since the last `resetCounters()`.
  private(set) var writes: [Int: Int] = [:]
  /// Line insertions (`IL`) and deletions (`DL`) since the last `resetCounters()`.
  private(set) var lineOperations: [String] = []

  private var pending: [UInt8] = []

  init(rows: Int, columns: Int) {
    self.rows = rows
    self.columns = columns
    scrollBottom = rows - 1
    cells = Array(repeating: Array(repeating: Cell(), count: columns), count: rows)
  }

  /// The text of `line`, without trailing blanks.
  func text(_ line: Int) -> String {
    guard line >= 0, line < rows else { return "" }
    let joined = cells[line].map(\.text).joined()
    return String(joined.reversed().drop { $0 == " " }.reversed())
  }

  /// Every line's text.
  var lines: [String] { (0..<rows).map(text) }

  /// The screen as text, one line per row (for failure messages and the docs' capture).
  var dump: String { lines.joined(separator: "\n") }

  func attributes(line: Int, column: Int) -> Attributes {
    guard line >= 0, line < rows, column >= 0, column < columns else { return Attributes() }
    return cells[line][column].attributes
  }

  func resetCounters() {
    fullClears = 0
    writes = [:]
    lineOperations = []
  }

  /// The window changed size (as the pty was told); contents are kept where they fit.
  func resize(rows: Int, columns: Int) {
    cells = (0..<rows).map { line in
      (0..<columns).map { column in
        line < self.rows && column < self.columns ? cells[line][column] : Cell()
      }
    }
    self.rows = rows
    self.columns = columns
    scrollTop = 0
    scrollBottom = rows - 1
    cursor = (min(cursor.line, rows - 1), min(cursor.column, columns - 1))
  }

  /// Interprets bytes the program wrote.
  func feed(_ bytes: [UInt8]) {
    pending.append(contentsOf: bytes)
    var index = 0
    while index < pending.count {
      let byte = pending[index]
      if byte == 0x1B {
        guard let length = escape(at: index) else { break }  // incomplete: wait for more
        index += length
        continue
      }
      if byte < 0x20 {
        control(byte)
        index += 1
        continue
      }
      let length = utf8Length(byte)
      guard index + length <= pending.count else { break }
      put(String(decoding: pending[index..<index + length], as: UTF8.self))
      index += length
    }
    pending.removeFirst(index)
  }

  // MARK: Interpretation

  private func control(_ byte: UInt8) {
    switch byte {
    case 0x0D: cursor.column = 0
    case 0x0A: lineFeed()
    case 0x08: cursor.column = max(0, cursor.column - 1)
    case 0x09: cursor.column = min(columns - 1, (cursor.column / 8 + 1) * 8)
    default: break
    }
  }

  private func put(_ character: String) {
    let width = TextWidth.columns(of: Character(character))
    if width == 0 {
      // A combining mark joins the character before it.
      let column = max(0, cursor.column - 1)
      cells[cursor.line][column].text += character
      return
    }
    if cursor.column + width > columns {
      cursor.column = 0
      lineFeed()
    }
    cells[cursor.line][cursor.column] = Cell(text: character, attributes: attributes)
    if width == 2, cursor.column + 1 < columns {
      cells[cursor.line][cursor.column + 1] = Cell(text: "", attributes: attributes)
    }
    writes[cursor.line, default: 0] += 1
    cursor.column = min(cursor.column + width, columns)
  }

  private func lineFeed() {
    if cursor.line == scrollBottom {
      cells.remove(at: scrollTop)
      cells.insert(blankLine(), at: scrollBottom)
    } else if cursor.line < rows - 1 {
      cursor.line += 1
    }
  }

  /// Length of the escape sequence at `index`, or `nil` when it is not complete yet.
  private func escape(at index: Int) -> Int? {
    guard index + 1 < pending.count else { return nil }
    let kind = pending[index + 1]
    guard kind == 0x5B else { return 2 }  // ESC x: nothing the app sends besides CSI
    var end = index + 2
    while end < pending.count, !(0x40...0x7E).contains(pending[end]) { end += 1 }
    guard end < pending.count else { return nil }
    let body = String(decoding: pending[(index + 2)..<end], as: UTF8.self)
    csi(final: Character(UnicodeScalar(pending[end])), body: body)
    return end - index + 1
  }

  private func csi(final: Character, body: String) {
    let isPrivate = body.hasPrefix("?")
    let numbers = (isPrivate ? String(body.dropFirst()) : body).split(
      separator: ";", omittingEmptySubsequences: false
    )
    .map { Int($0) }
    func parameter(_ position: Int, default value: Int) -> Int {
      guard position < numbers.count, let number = numbers[position], number > 0 else { return value }
      return number
    }
    switch final {
    case "H", "f":
      cursor = (
        min(rows - 1, parameter(0, default: 1) - 1), min(columns - 1, parameter(1, default: 1) - 1)
      )
    case "A": cursor.line = max(0, cursor.line - parameter(0, default: 1))
    case "B": cursor.line = min(rows - 1, cursor.line + parameter(0, default: 1))
    case "C": cursor.column = min(columns - 1, cursor.column + parameter(0, default: 1))
    case "D": cursor.column = max(0, cursor.column - parameter(0, default: 1))
    case "G": cursor.column = min(columns - 1, parameter(0, default: 1) - 1)
    case "J": eraseDisplay(numbers.first.flatMap { $0 } ?? 0)
    case "K": eraseLine(numbers.first.flatMap { $0 } ?? 0)
    case "L": insertLines(parameter(0, default: 1))
    case "M": deleteLines(parameter(0, default: 1))
    case "m": selectGraphicRendition(numbers.map { $0 ?? 0 })
    case "r":
      scrollTop = parameter(0, default: 1) - 1
      scrollBottom = min(rows - 1, parameter(1, default: rows) - 1)
      cursor = (0, 0)
    case "h" where isPrivate, "l" where isPrivate:
      setMode(numbers.first.flatMap { $0 } ?? 0, on: final == "h")
    default:
      break
    }
  }

  private func eraseDisplay(_ mode: Int) {
    switch mode {
    case 2, 3:
      fullClears += 1
      cells = (0..<rows).map { _ in blankLine() }
    case 1:
      for line in 0..<cursor.line { cells[line] = blankLine() }
      eraseLine(1)
    default:
      eraseLine(0)
      for line in (cursor.line + 1)..<rows { cells[line] = blankLine() }
    }
  }

  private func eraseLine(_ mode: Int) {
    let range =
      switch mode {
      case 1: 0..<min(columns, cursor.column + 1)
      case 2: 0..<columns
      default: min(cursor.column, columns)..<columns
      }
    for column in range { cells[cursor.line][column] = Cell(text: " ", attributes: blankAttributes) }
  }

  private func insertLines(_ count: Int) {
    guard (scrollTop...scrollBottom).contains(cursor.line) else { return }
    lineOperations.append("IL \(cursor.line) \(count)")
    for _ in 0..<min(count, scrollBottom - cursor.line + 1) {
      cells.remove(at: scrollBottom)
      cells.insert(blankLine(), at: cursor.line)
    }
    cursor.column = 0
  }

  private func deleteLines(_ count: Int) {
    guard (scrollTop...scrollBottom).contains(cursor.line) else { return }
    lineOperations.append("DL \(cursor.line) \(count)")
    for _ in 0..<min(count, scrollBottom - cursor.line + 1) {
      cells.remove(at: cursor.line)
      cells.insert(blankLine(), at: scrollBottom)
    }
    cursor.column = 0
  }

  private func selectGraphicRendition(_ codes: [Int]) {
    for code in codes.isEmpty ? [0] : codes {
      switch code {
      case 0: attributes = Attributes()
      case 1: attributes.bold = true
      case 2: attributes.dim = true
      case 4: attributes.underline = true
      case 7: attributes.reverse = true
      case 22:
        attributes.bold = false
        attributes.dim = false
      case 24: attributes.underline = false
      case 27: attributes.reverse = false
      case 30...37: attributes.foreground = code - 30
      case 39: attributes.foreground = nil
      default: break
      }
    }
  }

  private func setMode(_ mode: Int, on: Bool) {
    switch mode {
    case 25: cursorVisible = on
    case 1049:
      guard on != alternateScreen else { return }
      alternateScreen = on
      if on {
        saved = cells
        cells = (0..<rows).map { _ in blankLine() }
      } else if let saved, saved.count == rows, saved.first?.count == columns {
        cells = saved
      } else {
        cells = (0..<rows).map { _ in blankLine() }
      }
    default: break
    }
  }

  /// Erased cells take the current background only; the app erases with attributes reset.
  private var blankAttributes: Attributes { Attributes() }

  private func blankLine() -> [Cell] { Array(repeating: Cell(), count: columns) }

  private func utf8Length(_ lead: UInt8) -> Int {
    switch lead {
    case 0xF0...0xF7: 4
    case 0xE0...0xEF: 3
    case 0xC0...0xDF: 2
    default: 1
    }
  }
}
