import Foundation
import LMDB
import LiveLog

/// `livelog verify`: first every page of the data file, read without LMDB (`StructureCheck`),
/// so that damage is described rather than met by LMDB; then, in a child process, the log and
/// the state through LMDB. A child that dies by a signal (a fault the page check did not foresee)
/// becomes a report and exit status 1, as a failed check does.
struct VerifyRun {
  var context: CommandContext

  func run() throws -> Int32 {
    let output = context.output
    let dataFile = context.storePath + "/data.mdb"
    if StorePath.entryExists(dataFile) {
      let check = try StructureCheck.run(path: dataFile)
      guard check.isSound else {
        output.line("pages: damaged:")
        for damage in check.damage { output.line("  - " + TerminalSafe.escaped(damage)) }
        let store = TerminalSafe.escaped(context.storePath)
        let stateOnly = check.health.damage == nil && Self.isOutsideTheLog(check.damage)
        let next =
          stateOnly
          ? "`livelog --store \(store) replay --in-place` rebuilds them from the log, which is intact"
          : "`livelog --store \(store) salvage --into NEW` rebuilds a store in NEW from every intact "
            + "event of the log and names what was lost"
        throw ExitStatus(
          status: 1,
          message: "verification failed: the data file is damaged (\(check.damage.count) problems above). "
            + "Nothing was changed. \(next)")
      }
      output.line(
        "pages: \(grouped(check.pages)) pages of \(grouped(check.health.pageSize ?? 0)) bytes in "
          + "\(check.databases.count) databases, \(grouped(check.freePages)) free: every page sound")
    }
    output.flush()
    return try runChild()
  }

  /// Whether every damage the page check found is confined to databases a replay rebuilds from
  /// the log without reading them (`Store.repairRebuilds`). Pages that no tree reaches hang from
  /// a damaged page it names, so they count only beside such named damage.
  static func isOutsideTheLog(_ damage: [String]) -> Bool {
    let named = damage.filter { !$0.contains(unreachedPages) }
    return !named.isEmpty
      && named.allSatisfy { damage in
        var text = Substring(damage)
        // The state one commit older shares its unchanged pages with the current one: damage to
        // them is named twice, once as the older state's.
        if text.hasPrefix(olderState), let end = text.range(of: "): ") { text = text[end.upperBound...] }
        guard text.hasPrefix(database), let end = text.range(of: ": ") else { return false }
        return Store.repairRebuilds(
          database: String(text[text.index(text.startIndex, offsetBy: database.count)..<end.lowerBound]))
      }
  }

  // How `StructureCheck` words its damage.
  private static let database = "database "
  private static let olderState = "the older state ("
  private static let unreachedPages = "pages are neither in a tree nor on the free list"

  /// `livelog verify --in-process` in a child, sharing standard output and error.
  private func runChild() throws -> Int32 {
    let child = Process()
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? Bundle.main.executablePath ?? CommandLine.arguments[0]
    child.executableURL = URL(fileURLWithPath: executable)
    var arguments = ["--store", context.storePath]
    if let limit = context.maximumMapSize { arguments += ["--max-map-size", String(limit)] }
    child.arguments = arguments + ["verify", "--in-process"]
    try child.run()
    child.waitUntilExit()
    if child.terminationReason == .uncaughtSignal {
      let store = TerminalSafe.escaped(context.storePath)
      throw ExitStatus(
        status: 1,
        message: "verification failed: the check of the log and the state died of signal "
          + "\(child.terminationStatus) (\(String(cString: strsignal(child.terminationStatus)))): the data "
          + "file is damaged in a way the page check did not see. Nothing was changed. `livelog --store "
          + "\(store) salvage --into NEW` rebuilds a store in NEW from every intact event of the log")
    }
    return child.terminationStatus
  }
}
