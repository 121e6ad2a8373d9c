import Foundation
import LiveLog
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `livelog search` in a pseudo-terminal, driven like a person would: typing, switching the
/// language, waiting for GitHub (the recorded answers, 200 ms away), and reading the screen.
/// Highlights last two seconds here, so that a busy machine cannot make the test miss them.
@Suite struct TerminalUITests {
  static let rows = 40
  static let columns = 120
  static let statusLine = rows - 2
  static let messageLine = rows - 1
  static let tableTop = 4

  /// The repository names the table shows, top down.
  static func tableNames(_ screen: VirtualScreen) -> [String] {
    (tableTop..<statusLine).map { screen.text($0) }.filter { !$0.isEmpty }
      .map { String($0.prefix { $0 != " " }) }
  }

  static func isHighlighted(_ screen: VirtualScreen, row: Int, color: Int) -> Bool {
    let attributes = screen.attributes(line: tableTop + row, column: 0)
    return attributes.reverse && attributes.foreground == color
  }

  static let green = 2
  static let yellow = 3

  @Test func theSearchScreenAnimatesNetworkResultsAndKeepsTheCacheOnErrors() throws {
    let directory = try ScratchDirectory()
    let storePath = directory.child("store")
    // The cache holds the first ten repositories of the 2014 tetris answer.
    let localNames: Set<String> = try {
      let store = try Store(directory: storePath)
      let mutations = try RecordFile(path: try SearchFixtures.searchResponse("05")).mutations(
        of: Repository.self)
      try store.write(Array(mutations.prefix(10)))
      return Set(
        try store.objects(Repository.self)
          .filter("full_name CONTAINS[c] 'tetris' AND language ==[c] 'Assembly'").map(\.fullName))
    }()
    #expect(localNames.count > 3)

    let terminal = try PseudoTerminal(
      executable: SearchFixtures.executable,
      arguments: [
        "--store", storePath, "search", "--offline", SearchFixtures.recorded, "--language", "Assembly",
        "--latency", "200", "--highlight", "2000",
      ],
      rows: Self.rows, columns: Self.columns, environment: ["TZ": "UTC"])
    let screen = terminal.screen

    // The empty screen.
    #expect(
      terminal.wait { $0.text(Self.statusLine).contains("Type at least 3 characters") }, "\(screen.dump)")
    #expect(screen.alternateScreen)
    #expect(screen.text(0).contains("· offline: "))
    #expect(screen.text(2).hasPrefix("Language:  Assembly   Swift   Objective-C   any"))
    screen.resetCounters()

    // Typing: the cached repositories at once, GitHub after the pause.
    terminal.typeSlowly("tetris", interval: 0.03)
    #expect(terminal.wait { Set(Self.tableNames($0)) == localNames }, "\(screen.dump)")
    #expect(!screen.text(Self.statusLine).contains("GitHub: 30"), "the local results come before GitHub's")
    #expect(
      (0..<localNames.count).allSatisfy { !screen.attributes(line: Self.tableTop + $0, column: 0).reverse })

    #expect(
      terminal.wait {
        $0.text(Self.statusLine).contains("GitHub: 30 of 77 matches — 20 new, 0 updated, 10 unchanged")
      }, "\(screen.dump)")
    #expect(terminal.wait { Self.tableNames($0).count == 28 })
    let names = Self.tableNames(screen)
    for (row, name) in names.enumerated() {
      // New rows flash green; the cached ones were upserted unchanged and stay as they were.
      #expect(
        Self.isHighlighted(screen, row: row, color: Self.green) == !localNames.contains(name), "\(name)")
    }
    #expect(
      screen.text(Self.statusLine).hasPrefix("28 results · last change +\(28 - localNames.count) ~0 -0"))
    // The change came as line insertions and rewrites of the new rows, not as a new screen.
    #expect(screen.fullClears == 0)
    #expect(!screen.lineOperations.isEmpty)
    for line in [0, 2, 3] { #expect(screen.writes[line] == nil, "line \(line) was not redrawn") }
    #expect(screen.writes.keys.filter { (Self.tableTop..<Self.statusLine).contains($0) }.count <= 28)

    // The highlights fade after a second.
    #expect(
      terminal.wait(timeout: 3) { s in
        (0..<28).allSatisfy { !s.attributes(line: Self.tableTop + $0, column: 0).reverse }
      })

    // Searching again: a 304 (so typing sent one request for tetris, or this would be the next
    // recording), then the 2019 answer (stars grew, new repositories, a rename).
    terminal.type("\u{12}")
    #expect(terminal.wait { $0.text(Self.statusLine).contains("GitHub: no change since the last search") })
    screen.resetCounters()
    terminal.type("\u{12}")
    #expect(
      terminal.wait { $0.text(Self.statusLine).contains("GitHub: 30 of 1,677 matches") }, "\(screen.dump)")
    #expect(terminal.wait { $0.text(Self.statusLine).hasPrefix("43 results") })
    let rows = 0..<(Self.statusLine - Self.tableTop)
    #expect(rows.contains { Self.isHighlighted(screen, row: $0, color: Self.green) }, "inserted rows")
    #expect(rows.contains { Self.isHighlighted(screen, row: $0, color: Self.yellow) }, "changed rows")
    #expect(screen.fullClears == 0)

    // A malformed answer is an error line; the app goes on.
    terminal.type("\u{15}")
    terminal.typeSlowly("notjson", interval: 0.02)
    #expect(terminal.wait { $0.text(Self.messageLine).hasPrefix("⚠ malformed response — GitHub's answer") })

    // The recorded 403: the rate limit and its reset time (a minute from now, rounded up).
    terminal.type("\u{15}")
    let before = Date()
    terminal.typeSlowly("ratelimited", interval: 0.02)
    #expect(terminal.wait { $0.text(Self.messageLine).hasPrefix("⚠ rate limited until") }, "\(screen.dump)")
    let resets = [before, Date()].map { resetTime($0.addingTimeInterval(60)) }
    #expect(resets.contains { screen.text(Self.messageLine).hasPrefix("⚠ rate limited until \($0) — ") })

    // Back to tetris: the cache shows at once while GitHub stays out of reach.
    terminal.type("\u{15}")
    terminal.typeSlowly("tetris", interval: 0.02)
    #expect(
      terminal.wait { Self.tableNames($0).count == 34 && $0.text(Self.statusLine).hasPrefix("43 results") })
    #expect(terminal.wait { $0.text(Self.messageLine).hasPrefix("⚠ rate limited until") })

    // Switching the language: no Swift repository is called tetris; back to Assembly.
    terminal.type("\t")
    #expect(terminal.wait { Self.tableNames($0).isEmpty && $0.text(Self.statusLine).hasPrefix("0 results") })
    let swift = try #require(screen.text(2).range(of: "Swift")).lowerBound.utf16Offset(in: screen.text(2))
    #expect(screen.attributes(line: 2, column: swift).reverse)
    terminal.type("\u{1B}[Z")
    #expect(terminal.wait { $0.text(Self.statusLine).hasPrefix("43 results") })

    // A smaller window: drawn again in full, at its new size.
    terminal.resize(rows: 20, columns: 90)
    #expect(terminal.wait { $0.text(18).hasPrefix("43 results (1–14)") }, "\(screen.dump)")

    // Esc quits and gives the terminal back as it was.
    terminal.type("\u{1B}")
    #expect(terminal.waitForExit() == 0)
    #expect(!screen.alternateScreen && screen.cursorVisible)
    let settings = terminal.settings
    #expect(settings.c_lflag & tcflag_t(ICANON) != 0 && settings.c_lflag & tcflag_t(ECHO) != 0)
  }

  /// `HH:MM` in UTC, rounded up to the minute, as the app shows reset times.
  func resetTime(_ date: Date) -> String {
    let minutes = Int((date.timeIntervalSince1970 / 60).rounded(.up))
    let hour = (minutes / 60) % 24
    let minute = minutes % 60
    return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }
}
