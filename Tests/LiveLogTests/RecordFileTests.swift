import Foundation
import Testing

@testable import LiveLog

@Suite struct RecordFileTests {
  private func repositories(_ path: String) throws -> [Repository] {
    try RecordFile(path: path).mutations().compactMap(\.repository)
  }

  private func inputError(_ text: String, source: String = "input.ndjson") -> InputError? {
    RecordFile.inputError(text, source: source)
  }

  @Test func everySearchResponseDecodesAcrossAPIEras() throws {
    let expected = ["03": 1, "04": 1, "05": 30, "06": 30, "08": 14, "09": 2, "10": 30, "11": 30, "12": 30]
    for (prefix, count) in expected {
      let file = try RecordFile(path: Fixtures.searchResponse(prefix))
      #expect(file.format == .searchResponse)
      #expect(try file.mutations().count == count, "file \(prefix)")
    }
    // 2014: no node_id, license, archived or topics keys. About 2020: all of them.
    let old = try repositories(Fixtures.searchResponse("05"))
    #expect(old.allSatisfy { $0.nodeID == nil && $0.isArchived == nil && $0.topics == nil })
    let newer = try repositories(Fixtures.searchResponse("06"))
    #expect(newer.allSatisfy { $0.nodeID != nil && $0.isArchived != nil })
    #expect(newer.contains { $0.licenseSPDXID != nil })
    // The same tetris search seen in 2014 and 2020: a rename under the same id.
    #expect(old.first { $0.id == 4_731_946 }?.fullName == "cjauvin/tetris-c64")
    #expect(newer.first { $0.id == 4_731_946 }?.fullName == "cjauvin/tetris-464")
  }

  @Test func apiRepoFilesHoldEveryRecordWithTheirIds() throws {
    var count = 0
    var ids = Set<Int64>()
    var nonASCII = 0
    for path in Fixtures.apiRepoFiles {
      for repository in try repositories(path) {
        count += 1
        ids.insert(repository.id)
        if repository.description?.unicodeScalars.contains(where: { !$0.isASCII }) == true { nonASCII += 1 }
      }
    }
    #expect(count == 4_280)
    #expect(ids.count == 3_965)
    #expect(nonASCII > 0)
  }

  @Test func csvOfRepos2022MapsURLsToFullNames() throws {
    let file = try RecordFile(path: Fixtures.path("repos-2022.csv"))
    #expect(file.format == .csv)
    let all = try repositories(Fixtures.path("repos-2022.csv"))
    #expect(all.count == 23_291)
    let three = all.first { $0.id == 576_201 }
    #expect(three?.fullName == "mrdoob/three.js")
    #expect(three?.ownerLogin == "mrdoob")
    #expect(three?.language == "JavaScript")
    #expect(three?.topics?.contains("webgl") == true)
    #expect(all.filter { $0.fullName.lowercased().contains("anim") }.count == 39)
  }

  @Test func ndjsonLinesMayWrapUpsertsAndDeletes() throws {
    let text = """
      {"id": 1, "full_name": "a/b"}
      {"upsert": {"id": 2, "full_name": "c/d", "stargazers_count": null}}

      {"delete": 1}
      """
    let mutations = try RecordFile(source: "x.ndjson", bytes: Array(text.utf8)).mutations()
    #expect(mutations.map(\.id) == [1, 2, 1])
    #expect(mutations.last == .delete(id: 1))
  }

  @Test func errorsNameFileLineColumnAndField() {
    let wrongType = inputError(
      "{\"id\": 1, \"full_name\": \"a/b\"}\n{\"id\": 2, \"full_name\": \"c/d\", \"stargazers_count\": \"many\"}\n"
    )
    #expect(wrongType?.line == 2)
    #expect(wrongType?.column == 51)
    #expect(wrongType?.field == "stargazers_count")
    #expect(
      wrongType?.description.hasPrefix("input.ndjson:2:51: field 'stargazers_count': expected a whole number")
        == true)

    let missingID = inputError(#"[{"id": 1, "full_name": "a/b"}, {"full_name": "c/d"}]"#, source: "list.json")
    #expect(missingID?.item == "[1]")
    #expect(missingID?.field == "id")

    let truncated = inputError(#"{"items": [{"id": 1, "full_name": "a/b"}"#, source: "search.json")
    #expect(truncated?.message.contains("unterminated") == true)

    let hugeID = inputError(#"{"id": 123456789012345678901234567890, "full_name": "a/b"}"#)
    #expect(hugeID?.field == "id")

    let longDescription = String(repeating: "x", count: 1_000_000)
    let long = inputError("{\"id\": 1, \"full_name\": \"a/b\", \"description\": \"\(longDescription)\"}")
    #expect(long?.field == "description")
    #expect(long?.message.contains("longer than the limit") == true)

    let badDate = inputError(#"{"id": 1, "full_name": "a/b", "pushed_at": "last tuesday"}"#)
    #expect(badDate?.field == "pushed_at")

    let emptyName = inputError(#"{"id": 1, "full_name": ""}"#)
    #expect(emptyName?.field == "full_name")
  }

  @Test func invalidUTF8IsRejectedWithItsLine() {
    var data = Array("{\"id\": 1, \"full_name\": \"a/b\"}\n{\"id\": 2, \"full_name\": \"".utf8)
    data += [0xFF, 0xFE]
    data += Array("\"}\n".utf8)
    do {
      _ = try RecordFile(source: "bad.ndjson", bytes: data).mutations()
      Issue.record("invalid UTF-8 was accepted")
    } catch let error as InputError {
      #expect(error.line == 2)
      #expect(error.message.contains("UTF-8"))
    } catch {
      Issue.record("unexpected \(error)")
    }
  }
}
