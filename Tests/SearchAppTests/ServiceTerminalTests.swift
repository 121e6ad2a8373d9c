import Foundation
import GitHubSearch
import LiveLog
import Testing

/// `livelog search --base-url` against the local GitHub search service, in a pseudo-terminal:
/// three terms typed one after another, the table checked after each answer against what the
/// service answers, then the data moved twelve steps along its real histories and Ctrl-R: the
/// rename, the insertion and the changed stars arrive as a changeset. The waits are long because
/// the whole test run shares the machine; they end as soon as the screen is right.
@Suite struct ServiceTerminalTests {
  static let rows = 40
  static let columns = 140
  static let statusLine = rows - 2
  static let tableTop = 4
  static let tableHeight = statusLine - tableTop

  /// The table's rows, top down: name and stars.
  static func table(_ screen: VirtualScreen) -> [(name: String, stars: Int64)] {
    (tableTop..<statusLine).compactMap { line in
      // Name, language (Swift, one word here), stars with thousands separators, description.
      let fields = screen.text(line).split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 3, let stars = Int64(fields[2].filter { $0 != "," }) else { return nil }
      return (String(fields[0]), stars)
    }
  }

  /// What the table must show for `term`: every repository fetched so far whose name holds the
  /// term, in Swift, most stars first (the app's local query over what its searches stored).
  static func expected(_ term: String, in fetched: [Int64: Repository]) -> [(name: String, stars: Int64)] {
    fetched.values
      .filter { $0.fullName.lowercased().contains(term) && $0.language?.lowercased() == "swift" }
      .map { ($0.fullName, $0.stargazersCount ?? 0) }
      .sorted { $0.1 > $1.1 }
  }

  static func same(_ shown: [(name: String, stars: Int64)], _ wanted: [(name: String, stars: Int64)]) -> Bool
  {
    // Rows with equal stars may come in either order.
    shown.map(\.stars) == wanted.map(\.stars) && Set(shown.map(\.name)) == Set(wanted.map(\.name))
  }

  @Test func threeTermsThenTheRealHistoryOnCtrlR() async throws {
    let service = try GitHubService(["--drift-searches", "0", "--secondary-limit", "0"])
    defer { service.stop() }
    let directory = try ScratchDirectory()
    let terminal = try PseudoTerminal(
      executable: SearchFixtures.executable,
      arguments: [
        "--store", directory.child("store"), "search", "--base-url", service.baseURL.absoluteString,
        "--highlight", "3000",
      ],
      rows: Self.rows, columns: Self.columns, environment: ["TZ": "UTC", "GITHUB_TOKEN": ""])
    let screen = terminal.screen
    #expect(
      terminal.wait(timeout: 30) { $0.text(Self.statusLine).contains("Type at least 3 characters") },
      "\(screen.dump)")
    #expect(screen.text(0).contains(service.baseURL.absoluteString))

    // The same searches through a client of the test: the data is frozen, so the answers are the
    // app's.
    let client = service.client()
    var fetched: [Int64: Repository] = [:]
    func fetch(_ term: String) async throws {
      for repository in try await client.firstPage(of: SearchQuery(term: term, language: .swift)).repositories
      {
        fetched[repository.id] = repository
      }
    }

    for term in ["json", "swift", "chat"] {
      try await fetch(term)
      let wanted = Self.expected(term, in: fetched)
      try #require(wanted.count >= 5 && wanted.count <= Self.tableHeight, "\(term): \(wanted.count) rows")
      terminal.type("\u{15}")
      terminal.typeSlowly(term, interval: 0.03)
      #expect(
        terminal.wait(timeout: 30) {
          $0.text(Self.statusLine).contains("matches —") && Self.same(Self.table($0), wanted)
        }, "\(term): \(screen.dump)")
    }

    // Twelve steps of history (2026-08-20 in the ranking, the end of 2026-06 in the iOS list),
    // then Ctrl-R.
    try await service.advance(12)
    try await fetch("chat")
    let wanted = Self.expected("chat", in: fetched)
    terminal.type("\u{12}")
    #expect(
      terminal.wait(timeout: 30) {
        $0.text(Self.statusLine).contains("updated") && Self.same(Self.table($0), wanted)
      },
      "\(screen.dump)")
    let names = Self.table(screen).map(\.name)
    // The rename: the same id, a new name, drawn as a changed row; the old name is gone.
    let renamed = try #require(names.firstIndex(of: "lanceylai/TSWeChat"), "\(screen.dump)")
    #expect(!names.contains("hilen/TSWeChat"))
    #expect(TerminalUITests.isHighlighted(screen, row: renamed, color: TerminalUITests.yellow))
    // A repository the iOS list gained meanwhile: inserted, green.
    let inserted = try #require(names.firstIndex(of: "simplex-chat/simplex-chat"), "\(screen.dump)")
    #expect(TerminalUITests.isHighlighted(screen, row: inserted, color: TerminalUITests.green))
    #expect(screen.text(Self.statusLine).contains("last change +1 ~"), "\(screen.text(Self.statusLine))")

    terminal.type("\u{1B}")
    #expect(terminal.waitForExit() == 0)
  }
}
