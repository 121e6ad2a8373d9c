import Changesets
import GitHubSearch

/// What a key asks the app to do besides changing the session.
enum KeyEffect: Hashable, Sendable {
  case none
  /// The term or the language changed: bind the local query anew and tell the coordinator.
  case queryChanged
  case searchAgain
  case redrawAll
  case quit
}

/// A row highlighted for a moment after a change.
struct Highlight: Hashable, Sendable {
  var style: TextStyle
  var until: ContinuousClock.Instant
}

/// What the last changeset did, for the status line.
struct ChangeCounts: Hashable, Sendable {
  var inserted: Int
  var changed: Int
  var removed: Int
}

/// The state of the search screen, without the terminal, the store or the network: the term,
/// the language, the rows the table shows and how they got there, and what GitHub said.
///
/// The table changes only in three ways, as a table view's data source does: `showInitial` (a new
/// query's results, drawn like `reloadData`), `apply(_:rows:tableHeight:now:)` (a changeset, which
/// returns the line operations that animate it) and `clear` (a term too short to search).
struct SearchSession: Sendable {
  private(set) var term: String
  let languages: [SearchLanguage]
  private(set) var languageIndex: Int
  let perPage: Int
  /// What the title bar says about the store and the network source.
  let title: String
  /// How long inserted and changed rows stay highlighted.
  let highlightDuration: Duration

  /// The rows of the current results; `nil` while the term is too short.
  private(set) var rows: (any ResultRows)?
  /// The first visible row.
  private(set) var offset = 0
  private(set) var highlights: [Int64: Highlight] = [:]
  private(set) var lastChange: ChangeCounts?
  var network: NetworkState = .idle
  /// A failure of this process (the store refused a write), shown like a network error.
  var localError: String?

  init(
    term: String = "", languages: [SearchLanguage], languageIndex: Int = 0,
    perPage: Int = SearchQuery.defaultPerPage, title: String, highlightDuration: Duration = .seconds(1)
  ) {
    self.term = term
    self.languages = languages.isEmpty ? [.any] : languages
    self.languageIndex = min(max(languageIndex, 0), self.languages.count - 1)
    self.perPage = perPage
    self.title = title
    self.highlightDuration = highlightDuration
  }

  var language: SearchLanguage { languages[languageIndex] }

  /// The search the input describes (term and language together, as the seed's `combineLatest`).
  var query: SearchQuery { SearchQuery(term: term, language: language, perPage: perPage) }

  // MARK: Input

  /// Applies a key to the term, the language or the scroll position.
  mutating func handle(_ key: Key, tableHeight: Int) -> KeyEffect {
    switch key {
    case .text(let text):
      let typed = TextWidth.sanitized(text)
      guard !typed.isEmpty else { return .none }
      term += typed
      return .queryChanged
    case .backspace:
      guard !term.isEmpty else { return .none }
      term.removeLast()
      return .queryChanged
    case .eraseLine:
      guard !term.isEmpty else { return .none }
      term = ""
      return .queryChanged
    case .eraseWord:
      guard !term.isEmpty else { return .none }
      let kept = term.reversed().drop { $0 == " " }.drop { $0 != " " }
      term = String(kept.reversed())
      return .queryChanged
    case .tab, .backTab:
      guard languages.count > 1 else { return .none }
      let step = key == .tab ? 1 : languages.count - 1
      languageIndex = (languageIndex + step) % languages.count
      return .queryChanged
    case .up: scroll(to: offset - 1, tableHeight: tableHeight)
    case .down: scroll(to: offset + 1, tableHeight: tableHeight)
    case .pageUp: scroll(to: offset - max(1, tableHeight - 1), tableHeight: tableHeight)
    case .pageDown: scroll(to: offset + max(1, tableHeight - 1), tableHeight: tableHeight)
    case .home: scroll(to: 0, tableHeight: tableHeight)
    case .end: scroll(to: Int.max / 2, tableHeight: tableHeight)
    case .searchAgain: return query.isSearchable ? .searchAgain : .none
    case .redraw: return .redrawAll
    case .quit: return .quit
    }
    return .none
  }

  /// Keeps the window inside the results after the table's height changed.
  mutating func clampOffset(tableHeight: Int) {
    scroll(to: offset, tableHeight: tableHeight)
  }

  private mutating func scroll(to position: Int, tableHeight: Int) {
    let count = rows?.count ?? 0
    offset = max(0, min(position, count - tableHeight))
  }

  // MARK: The table

  /// A new query's first results: shown as they are, nothing highlighted.
  mutating func showInitial(_ rows: any ResultRows) {
    self.rows = rows
    offset = 0
    highlights = [:]
    lastChange = nil
  }

  /// No results to show (a term too short to search).
  mutating func clear() {
    rows = nil
    offset = 0
    highlights = [:]
    lastChange = nil
  }

  /// Takes a live query's update: the new rows and the changeset from the rows shown. Returns the
  /// line operations that move the visible rows into place; inserted rows (green) and modified
  /// or moved ones (yellow) in the window are highlighted until `now + highlightDuration`.
  mutating func apply(
    _ changeset: Changeset, rows newRows: any ResultRows, tableHeight: Int, now: ContinuousClock.Instant
  ) -> [LineOperation] {
    let patch = TablePatch(changeset: changeset, offset: offset, height: tableHeight, newCount: newRows.count)
    rows = newRows
    offset = patch.offset
    let window = offset..<max(offset, min(offset + tableHeight, newRows.count))
    let until = now.advanced(by: highlightDuration)
    let movedTo = Set(changeset.moves.map(\.to))
    // Only rows in the window are read: an update can insert thousands of rows.
    for index in changeset.insertions where window.contains(index) {
      let style: TextStyle = movedTo.contains(index) ? .changed : .inserted
      highlights[newRows.row(at: index).id] = Highlight(style: style, until: until)
    }
    for index in changeset.modificationsNew where window.contains(index) {
      highlights[newRows.row(at: index).id] = Highlight(style: .changed, until: until)
    }
    lastChange = ChangeCounts(
      inserted: changeset.insertionsExcludingMoves.count,
      changed: changeset.modifications.count + changeset.moves.count,
      removed: changeset.deletionsExcludingMoves.count)
    return patch.operations
  }

  /// Forgets highlights that are over; returns whether any was.
  @discardableResult
  mutating func expireHighlights(now: ContinuousClock.Instant) -> Bool {
    let before = highlights.count
    highlights = highlights.filter { $0.value.until > now }
    return highlights.count != before
  }

  /// When the next highlight ends, if any is showing.
  var nextExpiry: ContinuousClock.Instant? { highlights.values.map(\.until).min() }

  // MARK: Drawing

  /// The whole screen as the session wants it.
  func frame(_ layout: ScreenLayout, now: ContinuousClock.Instant) -> Frame {
    var lines = Array(repeating: StyledLine.blank, count: layout.size.rows)
    guard layout.fits else {
      let minimum = ScreenLayout.minimumSize
      lines[0] = StyledLine(
        TextWidth.truncated(
          "The terminal is too small: livelog search needs \(minimum.columns)×\(minimum.rows).",
          to: layout.width))
      return Frame(lines: lines, cursor: ScreenPosition(line: 0, column: 0))
    }
    let width = layout.width
    lines[ScreenLayout.titleLine] = StyledLine(
      TextWidth.fitted(" livelog search · " + title, to: width), .reverse)
    let (queryLine, cursorColumn) = queryLine(width: width)
    lines[ScreenLayout.queryLine] = queryLine
    lines[ScreenLayout.languageLine] = languageLine()
    let columns = layout.columns
    lines[ScreenLayout.headerLine] = RowFormat.header(columns)
    if let rows {
      for (line, position) in zip(layout.tableLines, min(offset, rows.count)..<rows.count) {
        let row = rows.row(at: position)
        let style = highlights[row.id].flatMap { $0.until > now ? $0.style : nil } ?? .plain
        lines[line] = RowFormat.line(row, columns, width: width, style: style)
      }
    }
    lines[layout.statusLine] = StatusText.status(self, tableHeight: layout.tableHeight)
    lines[layout.messageLine] = StatusText.message(self)
    return Frame(lines: lines, cursor: ScreenPosition(line: ScreenLayout.queryLine, column: cursorColumn))
  }

  private static let queryLabel = "Search: "

  /// The query line and the cursor's column; a term longer than the line shows its end.
  private func queryLine(width: Int) -> (StyledLine, Int) {
    let label = SearchSession.queryLabel
    let room = max(1, width - label.count - 1)
    var shown = term
    if TextWidth.columns(of: shown) > room {
      var tail = ""
      for character in term.reversed() {
        if TextWidth.columns(of: tail) + TextWidth.columns(of: character) + 1 > room { break }
        tail.insert(character, at: tail.startIndex)
      }
      shown = "…" + tail
    }
    var spans = [StyledSpan(label, .bold), StyledSpan(shown)]
    if term.isEmpty {
      spans.append(StyledSpan("type a repository name (3 characters or more)", .dim))
    }
    return (StyledLine(spans).clipped(to: width), label.count + TextWidth.columns(of: shown))
  }

  private func languageLine() -> StyledLine {
    var spans = [StyledSpan("Language:", .bold)]
    for (index, language) in languages.enumerated() {
      spans.append(StyledSpan(" "))
      spans.append(StyledSpan(" \(language.name ?? "any") ", index == languageIndex ? .reverse : .plain))
    }
    spans.append(StyledSpan("   Tab switches", .dim))
    return StyledLine(spans)
  }
}
