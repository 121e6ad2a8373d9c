/// Records from comma-separated values (RFC 4180) whose header names fields of the schema.
///
/// A column named after a field holds that field; an unnamed first column (as pandas writes its
/// index) is the primary key. Empty cells are absent fields. Cells are read by the field's type:
/// whole numbers, decimals, `true`/`false`/`1`/`0`, dates as ISO 8601 or Unix seconds, lists as
/// JSON or Python literals (`['3d', 'webgl']`, `[1, 2]`). Columns that name no field are kept
/// for `Record.complete(_:)` (repos-2022.csv has `url` instead of `full_name`) and otherwise
/// ignored.
struct CSVRecords {
  let source: String
  let bytes: UnsafeBufferPointer<UInt8>
  let input: RecordInput

  func forEachRecord(_ body: ([FieldValue], Int) throws -> Void) throws {
    let schema = input.schema
    var csv = CSVReader(bytes: bytes)
    guard let header = try csv.nextRow(source: source) else {
      throw InputError(source: source, line: 1, message: "empty CSV file: expected a header row")
    }
    var columns: [(index: Int, field: Field)] = []
    var others: [(index: Int, name: String)] = []
    var seen: Set<String> = []
    for (index, cell) in header.cells.enumerated() {
      let name = index == 0 && cell.isEmpty ? schema.primaryKey.name : cell.trimmingSpaces
      guard seen.insert(name).inserted else { continue }
      if let field = schema.field(named: name) {
        columns.append((index, field))
      } else {
        others.append((index, name))
      }
    }
    guard columns.contains(where: { $0.field.position == schema.primaryKey.position }) else {
      throw InputError(
        source: source, line: 1,
        message: "the header has no '\(schema.primaryKey.name)' column (the primary key of \(schema.name)): "
          + header.cells.prefix(12).map { "'\(ControlEscaping.excerpt($0))'" }.joined(separator: ", ")
          + (header.cells.count > 12 ? " and \(header.cells.count - 12) more" : ""))
    }
    // Every row has the header's cells: a row with fewer or more was cut or merged by mistake,
    // and reading it would put values in the wrong fields or null them silently.
    csv.expectedCells = header.cells.count
    while let row = try csv.nextRow(source: source) {
      if row.cells.count == 1 && row.cells[0].isEmpty { continue }
      var values = [FieldValue](repeating: .null, count: schema.slotCount)
      for (index, field) in columns where !row.cells[index].isEmpty {
        let place = csv.place(of: row, cell: index)
        values[field.position] = try value(row.cells[index], field, line: place.line, column: place.column)
      }
      var other: [String: String] = [:]
      for (index, name) in others where !row.cells[index].isEmpty {
        other[name] = row.cells[index]
      }
      // Errors name the row's line; the locator's offset 0 is the row's start.
      let rowStart = UnsafeBufferPointer(rebasing: bytes[0..<0])
      let locator = SourceLocator(source: source, text: rowStart, firstLine: row.line, item: nil)
      let checker = RecordJSONReader(schema: schema, locator: locator, complete: input.complete)
      try body(try checker.finish(values, at: 0, otherColumns: other), csv.offset)
    }
  }

  private func value(_ cell: String, _ field: Field, line: Int, column: Int) throws(InputError) -> FieldValue
  {
    func fail(_ message: String) -> InputError {
      InputError(source: source, line: line, column: column, field: field.name, message: message)
    }
    let trimmed = cell.trimmingSpaces
    switch field.type {
    case .string:
      guard cell.utf8.count <= RecordJSONReader.maximumTextBytes else {
        throw fail(
          "text of \(cell.utf8.count) bytes is longer than the limit of \(RecordJSONReader.maximumTextBytes)")
      }
      return .string(cell)
    case .integer:
      guard let number = Int64(trimmed) else {
        throw fail("expected a whole number, found \"\(ControlEscaping.excerpt(cell))\"")
      }
      return .integer(number)
    case .double:
      guard let number = Double(trimmed) else {
        throw fail("expected a number, found \"\(ControlEscaping.excerpt(cell))\"")
      }
      return .double(number)
    case .bool:
      switch trimmed.lowercased() {
      case "true", "1": return .bool(true)
      case "false", "0": return .bool(false)
      default: throw fail("expected true or false, found \"\(ControlEscaping.excerpt(cell))\"")
      }
    case .date:
      if let seconds = Int64(trimmed), Timestamp.range.contains(seconds) {
        return .date(Timestamp(secondsSince1970: seconds))
      }
      guard let date = Timestamp(iso8601: trimmed) else {
        throw fail(
          "expected an ISO 8601 date such as 2014-01-11T09:27:47Z, found \"\(ControlEscaping.excerpt(cell))\""
        )
      }
      return .date(date)
    case .stringList:
      guard let list = ListLiteral.parse(cell) else {
        throw fail("expected a list such as ['swift', 'ios'], found \"\(ControlEscaping.excerpt(cell))\"")
      }
      return .strings(list)
    case .integerList:
      guard let list = ListLiteral.parseIntegers(cell) else {
        throw fail(
          "expected a list of whole numbers such as [1, 2], found \"\(ControlEscaping.excerpt(cell))\"")
      }
      return .integers(list)
    }
  }
}

/// One CSV record with the line it starts on and where each of its cells starts.
struct CSVRow {
  var cells: [String]
  var line: Int
  /// Byte offsets: of the row, and of each cell (its opening quote, if quoted).
  var start: Int
  var cellStarts: [Int]
}

/// Splits RFC 4180 CSV into rows: quoted cells may hold commas, newlines and doubled quotes; a
/// closing quote must end its cell. Errors name the line and column (in characters).
struct CSVReader {
  let bytes: UnsafeBufferPointer<UInt8>
  private(set) var offset = 0
  private var line = 1
  /// The cells every row must have, once the header is read.
  var expectedCells: Int?

  /// A UTF-8 byte order mark is skipped, as in every input format (`RecordFile`).
  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
    offset = RecordFile.byteOrderMarkLength(bytes)
  }

  mutating func nextRow(source: String) throws(InputError) -> CSVRow? {
    guard offset < bytes.count else { return nil }
    var row = CSVRow(cells: [], line: line, start: offset, cellStarts: [offset])
    var cell: [UInt8] = []
    var quoted = false
    var closed = false
    func fail(at position: Int, _ message: String) -> InputError {
      let place = self.place(of: position, in: row)
      return InputError(source: source, line: place.line, column: place.column, message: message)
    }
    func endCell() throws(InputError) {
      if let expected = expectedCells, row.cells.count == expected {
        throw fail(
          at: row.cellStarts[expected],
          "the row has more cells than the header's \(expected): cell \(expected + 1) starts here")
      }
      row.cells.append(try decode(cell, source: source, line: row.line))
      cell.removeAll(keepingCapacity: true)
      closed = false
    }
    func endRow(at position: Int) throws(InputError) -> CSVRow {
      try endCell()
      if let expected = expectedCells, row.cells.count < expected,
        !(row.cells.count == 1 && row.cells[0].isEmpty)
      {
        throw fail(
          at: position,
          "the row ends after \(row.cells.count) cell\(row.cells.count == 1 ? "" : "s"), but the header has "
            + "\(expected): a cell is missing (an empty cell still needs its comma)")
      }
      return row
    }
    while offset < bytes.count {
      let byte = bytes[offset]
      offset += 1
      if quoted {
        if byte == 0x22 {
          if offset < bytes.count && bytes[offset] == 0x22 {
            cell.append(0x22)
            offset += 1
          } else {
            quoted = false
            closed = true
          }
        } else {
          if byte == 0x0A { line += 1 }
          cell.append(byte)
        }
        continue
      }
      switch byte {
      case 0x22 where cell.isEmpty && !closed: quoted = true
      case 0x2C:
        try endCell()
        row.cellStarts.append(offset)
      case 0x0A:
        line += 1
        return try endRow(at: offset - 1)
      case 0x0D where offset < bytes.count && bytes[offset] == 0x0A:
        continue
      default:
        if closed {
          throw fail(
            at: offset - 1,
            "text after the closing quote of a cell; a quote inside a quoted cell is written twice (\"\")")
        }
        cell.append(byte)
      }
    }
    if quoted { throw fail(at: row.cellStarts[row.cellStarts.count - 1], "unterminated quoted cell") }
    return try endRow(at: offset)
  }

  /// The line and column of cell `index` of `row`.
  func place(of row: CSVRow, cell index: Int) -> (line: Int, column: Int) {
    place(of: row.cellStarts[index], in: row)
  }

  /// The line and column (1-based, in characters) of the byte at `position`, within `row`.
  private func place(of position: Int, in row: CSVRow) -> (line: Int, column: Int) {
    let end = min(position, bytes.count)
    var lineStart = row.start
    var line = row.line
    for index in row.start..<end where bytes[index] == 0x0A {
      line += 1
      lineStart = index + 1
    }
    var column = 1
    for index in lineStart..<end where bytes[index] & 0xC0 != 0x80 { column += 1 }
    return (line, column)
  }

  private func decode(_ cell: [UInt8], source: String, line: Int) throws(InputError) -> String {
    guard let text = String.validated(utf8: cell) else {
      throw InputError(source: source, line: line, message: "cell is not valid UTF-8")
    }
    return text
  }
}

/// Lists written as JSON (`["a", "b"]`) or Python (`['a', 'b']`) literals.
enum ListLiteral {
  /// A list of whole numbers: `[1, 2, 3]`.
  static func parseIntegers(_ text: String) -> [Int64]? {
    let trimmed = text.trimmingSpaces
    guard trimmed.hasPrefix("["), trimmed.hasSuffix("]") else { return nil }
    let inner = trimmed.dropFirst().dropLast()
    if inner.allSatisfy({ $0 == " " || $0 == "\t" }) { return [] }
    var list: [Int64] = []
    for part in inner.split(separator: ",", omittingEmptySubsequences: false) {
      guard let number = Int64(String(part).trimmingSpaces) else { return nil }
      list.append(number)
    }
    return list
  }

  static func parse(_ text: String) -> [String]? {
    let scalars = Array(text.unicodeScalars)
    var index = 0
    func skipSpaces() { while index < scalars.count && scalars[index].properties.isWhitespace { index += 1 } }
    skipSpaces()
    guard index < scalars.count, scalars[index] == "[" else { return nil }
    index += 1
    var items: [String] = []
    skipSpaces()
    if index < scalars.count && scalars[index] == "]" {
      index += 1
      skipSpaces()
      return index == scalars.count ? items : nil
    }
    while index < scalars.count {
      skipSpaces()
      guard index < scalars.count, scalars[index] == "'" || scalars[index] == "\"" else { return nil }
      let quote = scalars[index]
      index += 1
      var item = String.UnicodeScalarView()
      while index < scalars.count && scalars[index] != quote {
        if scalars[index] == "\\" && index + 1 < scalars.count { index += 1 }
        item.append(scalars[index])
        index += 1
      }
      guard index < scalars.count else { return nil }
      index += 1
      items.append(String(item))
      skipSpaces()
      guard index < scalars.count else { return nil }
      if scalars[index] == "," {
        index += 1
      } else if scalars[index] == "]" {
        index += 1
        skipSpaces()
        return index == scalars.count ? items : nil
      } else {
        return nil
      }
    }
    return nil
  }
}

extension String {
  var trimmingSpaces: String {
    var view = Substring(self)
    while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
    while let last = view.last, last == " " || last == "\t" { view.removeLast() }
    return String(view)
  }
}
