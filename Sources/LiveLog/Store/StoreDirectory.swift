import Foundation
import LMDB

/// The directory of a store and its format marker, the `LIVELOG` file.
///
/// The marker is written before LMDB creates anything, and checked before LMDB opens anything,
/// so that opening a directory that is not a store (or is a newer one) changes nothing in it.
struct StoreDirectory {
  static let markerName = "LIVELOG"
  /// The format this build writes and the newest it reads. Bump when the layout of any database
  /// or encoding changes incompatibly.
  /// Format 5 stores each record once, in the log (the state points to its event), and lays the
  /// indexes out in segments of pages with positional trigrams, plus the recent rows of small
  /// commits; its state shares nothing with format 4's, so older stores are rebuilt from their
  /// logs on their first writable open. Format 6 adds covering ordered pages (each entry carries
  /// its row's integer key, `OrderedPage`), flagged per collection in its segment directory: a
  /// format-5 state reads as it is, and its first writable open rebuilds it with them. Format 7
  /// ends each row's trigram positions with the one byte whose bit 7 is clear
  /// (`PostingPage.writePositions`), which earlier pages do not: a state of format 5 or 6 is
  /// rebuilt on its first writable open, and its index pages are in `NAME.indexes` rather than
  /// `NAME.index`, so that a data file of theirs restored from a snapshot is told by its names.
  /// Format 8 adds each collection's ordered values by row (`NAME.columns`, `OrderedColumns`): a
  /// state of format 7 reads as it is (its queries check records instead), and its first writable
  /// open rebuilds it with them. Format 9 keeps a recent row's trigrams as a Bloom filter
  /// (`TrigramFilter`) instead of a list of codes, in entries flagged so: a state of format 8
  /// reads as it is (its entries keep their codes until the next fold), and its first writable
  /// open rewrites the marker alone (`StoreUpgrade.markUp`).
  static let currentFormat = 9
  /// The oldest format whose state the current one reads and writes as it is: its first writable
  /// open writes the current marker and nothing else.
  static let oldestFormatMarkedUp = 8
  /// The oldest format read as it is, without an upgrade.
  static let oldestFormatReadAsIs = 7

  let path: String

  /// Checks (or, for a new store, creates) the directory and its marker; returns the format.
  func prepare(readOnly: Bool) throws -> Int {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    if !manager.fileExists(atPath: path, isDirectory: &isDirectory) {
      guard !readOnly else {
        throw StoreError.notAStore(
          path: path, reason: StorePath.problem(creating: path) ?? "it does not exist")
      }
      try StorePath.createDirectory(path)
      try writeMarker()
      return StoreDirectory.currentFormat
    }
    guard isDirectory.boolValue else {
      throw StoreError.notAStore(path: path, reason: "it is a file, not a directory")
    }
    let markerPath = (path as NSString).appendingPathComponent(StoreDirectory.markerName)
    guard manager.fileExists(atPath: markerPath) else {
      let contents = (try? manager.contentsOfDirectory(atPath: path)) ?? []
      guard contents.isEmpty, !readOnly else {
        throw StoreError.notAStore(
          path: path,
          reason: "it has no \(StoreDirectory.markerName) file but holds \(contents.count) other entries")
      }
      try writeMarker()
      return StoreDirectory.currentFormat
    }
    guard let data = manager.contents(atPath: markerPath), let text = String(data: data, encoding: .utf8)
    else {
      throw StoreError.notAStore(path: path, reason: "its \(StoreDirectory.markerName) file cannot be read")
    }
    let format = try StoreDirectory.parseMarker(text, path: path)
    guard format <= StoreDirectory.currentFormat else {
      throw StoreError.unsupportedFormat(path: path, found: format, supported: StoreDirectory.currentFormat)
    }
    return format
  }

  /// The format of the store whose data file is `path`, told by its databases' names, for a data
  /// file that came without its marker (a snapshot's; the snapshot file does not record it):
  /// the current format when every name is of its layout (`StoreLayout.isCurrent`), else an
  /// earlier one, which the next writable open upgrades. Format 1 had no catalog; formats 2 to 4
  /// name their databases alike, and an upgrade reads only the log, which every format shares,
  /// so such a file is taken as format 4, the newest of them (format-4 code read format 3 as it
  /// is, and snapshots came with format 3); formats 5 and 6 named each collection's index pages
  /// `NAME.index`, and such a file is taken as format 6; a collection without `NAME.columns` is of
  /// format 7. One of format 8 is laid out as the current format is, and taken as current: the
  /// current format reads its recent entries. A file whose names do not read is taken as current:
  /// opening it reports its damage.
  static func format(ofDataFile path: String) -> Int {
    guard let health = try? DataFileHealth.examine(path: path), let meta = health.current,
      let file = try? DataFile(path: path)
    else { return currentFormat }
    let names = NamedDatabases.read(file, meta: meta).databases.map(\.name)
    let lacksColumns = names.contains { name in
      name.hasSuffix(".keys") && !names.contains(name.dropLast("keys".count) + "columns")
    }
    guard !names.allSatisfy(StoreLayout.isCurrent) else { return lacksColumns ? 7 : currentFormat }
    guard names.contains(StoreLayout.catalog) else { return 1 }
    return names.contains { $0.hasSuffix(".index") } ? 6 : 4
  }

  static func parseMarker(_ text: String, path: String) throws -> Int {
    let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    guard lines.first == "LiveLog store",
      let formatLine = lines.first(where: { $0.hasPrefix("format ") }),
      let format = Int(formatLine.dropFirst("format ".count)), format >= 1
    else {
      throw StoreError.notAStore(path: path, reason: "its \(markerName) file is not a LiveLog marker")
    }
    return format
  }

  /// Writes the marker atomically (a temporary file renamed into place).
  func writeMarker(format: Int = StoreDirectory.currentFormat) throws {
    let text = "LiveLog store\nformat \(format)\n"
    let url = URL(fileURLWithPath: path).appendingPathComponent(StoreDirectory.markerName)
    do {
      try Data(text.utf8).write(to: url, options: .atomic)
    } catch {
      throw StoreError.unusablePath(
        path: path,
        reason: "its \(StoreDirectory.markerName) file cannot be written (\(StorePath.reason(error)))")
    }
  }
}
