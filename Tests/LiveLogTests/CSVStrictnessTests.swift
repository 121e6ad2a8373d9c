import Testing

@testable import LiveLog

/// CSV is read strictly: every row has the header's cells, and a closing quote ends its cell.
/// A row cut short or two cells merged by a stray quote would otherwise be stored with fields
/// nulled or shifted, and no one would know. Each error names file, line and column.
@Suite struct CSVStrictnessTests {
  private func inputError(_ text: String, source: String = "repos.csv") -> InputError? {
    RecordFile.inputError(text, source: source)
  }

  private func records(_ text: String) throws -> [Repository] {
    try RecordFile(source: "repos.csv", bytes: Array(text.utf8)).records(of: Repository.self)
  }

  @Test func aRowWithTooFewCellsNamesWhereItEnds() throws {
    let error = try #require(inputError("id,full_name,language\n1,a/b,Swift\n2,c/d\n"))
    #expect(error.line == 3)
    #expect(error.column == 6, "one past the row's last character")
    #expect(error.message.contains("2 cells") && error.message.contains("3"), "\(error)")
    #expect(error.description.hasPrefix("repos.csv:3:6: "), "\(error)")
  }

  @Test func aRowWithTooManyCellsNamesTheFirstExtraCell() throws {
    let error = try #require(inputError("id,full_name\n1,a/b\n2,c/d,extra\n"))
    #expect(error.line == 3)
    #expect(error.column == 7)
    #expect(error.message.contains("cell 3"), "\(error)")
  }

  @Test func textAfterAClosingQuoteIsRefusedNotMerged() throws {
    let error = try #require(inputError("id,full_name,language\n1,\"a/b\"x,Swift\n"))
    #expect(error.line == 2)
    #expect(error.column == 8, "the x")
    #expect(error.message.contains("after the closing quote"), "\(error)")
    // A space after the quote is text too.
    #expect(inputError("id,full_name\n1,\"a/b\" \n")?.column == 8)
  }

  @Test func placesCountLinesInsideQuotedCellsAndCharactersNotBytes() throws {
    // The row starts on line 2; its quoted description runs to line 3, where é is one character.
    let text = "id,full_name,description\n1,a/b,\"two\nlines é\"!\n"
    let error = try #require(inputError(text))
    #expect(error.line == 3)
    #expect(error.column == 9, "\(error)")
    // A bad value names its cell's line and column.
    let value = try #require(inputError("id,full_name,stargazers_count\n1,a/b,\"two\"\n"))
    #expect(value.line == 2 && value.column == 7 && value.field == "stargazers_count", "\(value)")
  }

  @Test func wellFormedRowsStillRead() throws {
    let text = """
      id,full_name,language,description
      1,a/b,Swift,"says ""hi"", twice"
      2,c/d,,

      3,e/f,"C",""
      """
    let read = try records(text)
    #expect(read.map(\.id) == [1, 2, 3])
    #expect(read[0].description == "says \"hi\", twice")
    #expect(read[1].language == nil && read[1].description == nil)
    #expect(read[2].language == "C")
    // CRLF line ends, and a last row without a line end.
    #expect(try records("id,full_name\r\n1,a/b\r\n2,c/d").map(\.fullName) == ["a/b", "c/d"])
  }

  /// One rule for a UTF-8 byte order mark: skipped at the start of every format (it was refused
  /// in a JSON array only).
  @Test func aByteOrderMarkIsSkippedInEveryFormat() throws {
    let bom = "\u{FEFF}"
    let inputs: [(String, String)] = [
      ("a.csv", bom + "id,full_name\n1,a/b\n"),
      ("a.ndjson", bom + #"{"id": 1, "full_name": "a/b"}"# + "\n"),
      ("a.json", bom + #"[{"id": 1, "full_name": "a/b"}]"#),
      ("b.json", bom + #"{"total_count": 1, "items": [{"id": 1, "full_name": "a/b"}]}"#),
    ]
    for (source, text) in inputs {
      let file = RecordFile(source: source, bytes: Array(text.utf8))
      #expect(try file.records(of: Repository.self).map(\.fullName) == ["a/b"], "\(source)")
    }
  }
}
