/// Repositories from comma-separated values (RFC 4180) whose header names API fields.
///
/// Recognized columns: `id` (or an unnamed first column), `full_name` (or `url` as `/owner/name`,
/// as GitHub's web paths and the repos-2022 data set have it), `name`, `owner.login` (derived from
/// `full_name` when absent), `description`, `language`, `stargazers_count`, `forks_count`,
/// `watchers_count`, `open_issues_count`, `size`, `topics` (a JSON or Python list such as
/// `['3d', 'webgl']`), `license.spdx_id`, `fork`, `archived`, `created_at`, `updated_at`,
/// `pushed_at`, `default_branch`, `html_url`, `node_id`. Other columns are ignored. Empty cells are
/// `nil`.
struct CSVRecords {
  let source: String
  let bytes: UnsafeBufferPointer<UInt8>

  func forEachRepository(_ body: (Repository, Int) throws -> Void) throws {
    var reader = CSVReader(bytes: bytes)
    guard let header = try reader.nextRow(source: source) else {
      throw InputError(source: source, line: 1, message: "empty CSV file: expected a header row")
    }
    var columns: [String: Int] = [:]
    for (index, name) in header.cells.enumerated() {
      let key = index == 0 && name.isEmpty ? "id" : name.trimmingSpaces
      if columns[key] == nil { columns[key] = index }
    }
    guard columns["id"] != nil else {
      throw InputError(
        source: source, line: 1,
        message: "the header has no 'id' column: "
          + header.cells.prefix(12).map { "'\(ControlEscaping.excerpt($0))'" }.joined(separator: ", ")
          + (header.cells.count > 12 ? " and \(header.cells.count - 12) more" : ""))
    }
    guard columns["full_name"] != nil || columns["url"] != nil else {
      throw InputError(source: source, line: 1, message: "the header needs a 'full_name' or 'url' column")
    }
    while let row = try reader.nextRow(source: source) {
      if row.cells.count == 1 && row.cells[0].isEmpty { continue }
      try body(try repository(row, columns), reader.offset)
    }
  }

  private func repository(_ row: CSVRow, _ columns: [String: Int]) throws(InputError) -> Repository {
    func cell(_ name: String) -> String? {
      guard let index = columns[name], index < row.cells.count else { return nil }
      let value = row.cells[index]
      return value.isEmpty ? nil : value
    }
    func fail(_ field: String, _ message: String) -> InputError {
      InputError(source: source, line: row.line, field: field, message: message)
    }
    func text(_ name: String) throws(InputError) -> String? {
      guard let value = cell(name) else { return nil }
      guard value.utf8.count <= Repository.maximumTextBytes else {
        throw fail(
          name, "text of \(value.utf8.count) bytes is longer than the limit of \(Repository.maximumTextBytes)"
        )
      }
      return value
    }
    func integer(_ name: String) throws(InputError) -> Int64? {
      guard let value = cell(name) else { return nil }
      guard let number = Int64(value.trimmingSpaces) else {
        throw fail(name, "expected a whole number, found \"\(ControlEscaping.excerpt(value))\"")
      }
      return number
    }
    func flag(_ name: String) throws(InputError) -> Bool? {
      guard let value = cell(name)?.trimmingSpaces.lowercased() else { return nil }
      switch value {
      case "true", "1": return true
      case "false", "0": return false
      default: throw fail(name, "expected true or false, found \"\(ControlEscaping.excerpt(value))\"")
      }
    }
    func date(_ name: String) throws(InputError) -> Timestamp? {
      guard let value = cell(name) else { return nil }
      if let seconds = Int64(value), Timestamp.range.contains(seconds) {
        return Timestamp(secondsSince1970: seconds)
      }
      guard let date = Timestamp(iso8601: value.trimmingSpaces) else {
        throw fail(
          name,
          "expected an ISO 8601 date such as 2014-01-11T09:27:47Z, found \"\(ControlEscaping.excerpt(value))\""
        )
      }
      return date
    }

    guard let id = try integer("id") else { throw fail("id", "missing: every repository needs an 'id'") }
    var fullName = try text("full_name")
    if fullName == nil, let url = try text("url") {
      let path = url.split(separator: "/", omittingEmptySubsequences: true)
      if path.count >= 2 { fullName = path.suffix(2).joined(separator: "/") }
    }
    guard let fullName, !fullName.isEmpty else {
      throw fail(
        "full_name", "missing: every repository needs a 'full_name' (or a 'url' of the form /owner/name)")
    }
    var repository = Repository(id: id, fullName: fullName)
    repository.nodeID = try text("node_id")
    repository.name = try text("name")
    repository.ownerLogin = try text("owner.login") ?? fullName.split(separator: "/").first.map(String.init)
    repository.htmlURL = try text("html_url")
    repository.description = try text("description")
    repository.isFork = try flag("fork")
    repository.language = try text("language")
    repository.stargazersCount = try integer("stargazers_count")
    repository.forksCount = try integer("forks_count")
    repository.watchersCount = try integer("watchers_count")
    repository.openIssuesCount = try integer("open_issues_count")
    if let topics = cell("topics") {
      guard let list = ListLiteral.parse(topics) else {
        throw fail(
          "topics", "expected a list such as ['swift', 'ios'], found \"\(ControlEscaping.excerpt(topics))\"")
      }
      repository.topics = list
    }
    repository.licenseSPDXID = try text("license.spdx_id")
    repository.isArchived = try flag("archived")
    repository.createdAt = try date("created_at")
    repository.updatedAt = try date("updated_at")
    repository.pushedAt = try date("pushed_at")
    repository.defaultBranch = try text("default_branch")
    repository.size = try integer("size")
    return repository
  }
}

/// One CSV record with the line it starts on.
struct CSVRow {
  var cells: [String]
  var line: Int
}

/// Splits RFC 4180 CSV into rows: quoted cells may hold commas, newlines and doubled quotes.
struct CSVReader {
  let bytes: UnsafeBufferPointer<UInt8>
  private(set) var offset = 0
  private var line = 1

  init(bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
    if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { offset = 3 }
  }

  mutating func nextRow(source: String) throws(InputError) -> CSVRow? {
    guard offset < bytes.count else { return nil }
    let startLine = line
    var cells: [String] = []
    var cell: [UInt8] = []
    var quoted = false
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
          }
        } else {
          if byte == 0x0A { line += 1 }
          cell.append(byte)
        }
        continue
      }
      switch byte {
      case 0x22 where cell.isEmpty: quoted = true
      case 0x2C:
        cells.append(try decode(cell, source: source, line: startLine))
        cell.removeAll(keepingCapacity: true)
      case 0x0A:
        line += 1
        cells.append(try decode(cell, source: source, line: startLine))
        return CSVRow(cells: cells, line: startLine)
      case 0x0D where offset < bytes.count && bytes[offset] == 0x0A:
        continue
      default: cell.append(byte)
      }
    }
    if quoted { throw InputError(source: source, line: startLine, message: "unterminated quoted cell") }
    cells.append(try decode(cell, source: source, line: startLine))
    return CSVRow(cells: cells, line: startLine)
  }

  private func decode(_ cell: [UInt8], source: String, line: Int) throws(InputError) -> String {
    guard let text = String(validating: cell, as: UTF8.self) else {
      throw InputError(source: source, line: line, message: "cell is not valid UTF-8")
    }
    return text
  }
}

/// Lists written as JSON (`["a", "b"]`) or Python (`['a', 'b']`) literals.
enum ListLiteral {
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
