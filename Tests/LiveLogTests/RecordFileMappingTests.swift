import Foundation
import Testing

@testable import LiveLog

/// A mapped file decodes exactly as the same bytes held in an array.
@Suite struct RecordFileMappingTests {
  @Test(arguments: Array(Fixtures.searchResponseFiles.prefix(2)) + Array(Fixtures.apiRepoFiles.prefix(1)))
  func aMappedFileDecodesAsItsBytes(path: String) throws {
    let mapped = try RecordFile(path: path)
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let held = RecordFile(source: path, bytes: bytes)
    #expect(mapped.byteCount == bytes.count)
    #expect(mapped.format == held.format)
    #expect(try mapped.mutations(of: Repository.self) == held.mutations(of: Repository.self))
  }
}
