import Foundation
import Testing

/// The Swift blocks the documents mark `<!-- example: NAME -->` are the code that
/// DocumentationExamples.swift runs: each equals the region `// doc: NAME` … `// end doc` there
/// (or its regions of that name, joined), indentation aside. A document that drifts from the code fails here.
@Suite struct DocumentationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let documents = ["README.md", "Docs/Records.md"]

  /// `lines` without the indentation they all share, and without trailing blanks.
  static func dedented(_ lines: [Substring]) -> [String] {
    let indent =
      lines.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
    return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
  }

  static func regions() throws -> [String: [String]] {
    let path = root.appendingPathComponent("Tests/RecordTypesTests/DocumentationExamples.swift").path
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    var regions: [String: [String]] = [:]
    var index = 0
    while index < lines.count {
      let line = lines[index].trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("// doc: "),
        let end = lines[(index + 1)...].firstIndex(where: {
          $0.trimmingCharacters(in: .whitespaces) == "// end doc"
        })
      {
        // Regions of one name join in order (an example split around test code).
        regions[String(line.dropFirst("// doc: ".count)), default: []] += dedented(
          Array(lines[(index + 1)..<end]))
        index = end
      }
      index += 1
    }
    return regions
  }

  @Test(arguments: documents)
  func everyMarkedExampleIsTheCodeThatRuns(document: String) throws {
    let regions = try Self.regions()
    let text = try String(contentsOfFile: Self.root.appendingPathComponent(document).path, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var found = 0
    for (index, line) in lines.enumerated() where line.hasPrefix("<!-- example: ") {
      let name = String(line.dropFirst("<!-- example: ".count).dropLast(" -->".count))
      let region = try #require(
        regions[name], "\(document):\(index + 1): no region '\(name)' in DocumentationExamples.swift")
      #expect(lines.indices.contains(index + 1) && lines[index + 1] == "```swift", "\(document):\(index + 2)")
      let block = lines[(index + 2)...].prefix { $0 != "```" }
      #expect(
        Self.dedented(Array(block)) == region,
        "\(document):\(index + 1): example '\(name)' differs from its code")
      found += 1
    }
    #expect(found > 0, "\(document) marks no example")
  }
}
