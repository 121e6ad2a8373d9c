import Changesets
import TestSupport
import Testing

@testable import LiveLogCommand

/// The screen update strategy: which table lines a changeset rewrites, which it only moves, and
/// that the terminal ends up showing exactly the frame.
@Suite struct ScreenDiffTests {
  /// A session drawn on a virtual screen, with a table of `height` rows.
  struct Harness {
    var session = SearchSession(term: "tetris", languages: [.any], title: "test")
    let layout: ScreenLayout
    var renderer: ScreenRenderer
    let screen: VirtualScreen
    var ids: [Int64]
    let start = ContinuousClock.now

    init(ids: [Int64], height: Int = 5, columns: Int = 100) {
      layout = ScreenLayout(size: TerminalSize(rows: ScreenLayout.tableTop + height + 2, columns: columns))
      renderer = ScreenRenderer(layout: layout)
      screen = VirtualScreen(rows: layout.size.rows, columns: columns)
      self.ids = ids
      session.showInitial(Harness.rows(ids))
      screen.feed(Array(renderer.redrawAll(session.frame(layout, now: start), layout: layout).utf8))
      screen.resetCounters()
    }

    static func rows(_ ids: [Int64], changed: Set<Int64> = []) -> ArrayResultRows {
      ArrayResultRows(
        rows: ids.map { id in
          DisplayRow(
            id: id, fullName: "owner/repository-\(id)", language: "Swift", stars: 1000 - id,
            description: changed.contains(id) ? "edited description of \(id)" : "description of \(id)")
        })
    }

    /// Applies the change from the current ids to `new` (with `changed` rows' content edited);
    /// returns the line operations and the table lines (0-based in the table) that were rewritten.
    mutating func change(to new: [Int64], changed: Set<Int64> = [], at seconds: Double = 0.1) throws -> (
      operations: [LineOperation], rewritten: [Int]
    ) {
      let changeset = try Changeset(from: ids, to: new, changed: changed)
      let now = start.advanced(by: .milliseconds(Int(seconds * 1000)))
      let operations = session.apply(
        changeset, rows: Harness.rows(new, changed: changed), tableHeight: layout.tableHeight, now: now)
      screen.feed(Array(renderer.shiftTable(operations).utf8))
      let frame = session.frame(layout, now: now)
      screen.feed(Array(renderer.draw(frame).utf8))
      ids = new
      let wanted = frame.lines.map { String($0.text.reversed().drop { $0 == " " }.reversed()) }
      #expect(screen.lines == wanted, "the terminal shows the frame")
      return (operations, tableLines(renderer.lastWrittenLines))
    }

    /// Draws the frame at `seconds` after the start; returns the table lines rewritten.
    mutating func draw(at seconds: Double) -> [Int] {
      let now = start.advanced(by: .milliseconds(Int(seconds * 1000)))
      _ = session.expireHighlights(now: now)
      screen.feed(Array(renderer.draw(session.frame(layout, now: now)).utf8))
      return tableLines(renderer.lastWrittenLines)
    }

    func tableLines(_ lines: [Int]) -> [Int] {
      lines.filter { layout.tableLines.contains($0) }.map { $0 - ScreenLayout.tableTop }
    }

    func tableText(_ line: Int) -> String { screen.text(ScreenLayout.tableTop + line) }

    func tableAttributes(_ line: Int) -> VirtualScreen.Attributes {
      screen.attributes(line: ScreenLayout.tableTop + line, column: 0)
    }
  }

  @Test func anInsertionAtTheTopMovesTheRowsDownAndDrawsOnlyTheNewRow() throws {
    var harness = Harness(ids: Array(1...10))
    let result = try harness.change(to: [11] + Array(1...10))
    #expect(result.operations == [.insert(line: 0, count: 1)])
    #expect(result.rewritten == [0])
    #expect(harness.tableText(0).hasPrefix("owner/repository-11"))
    #expect(harness.tableText(1).hasPrefix("owner/repository-1 "))
    #expect(harness.tableAttributes(0).reverse && harness.tableAttributes(0).foreground == 2)
    #expect(!harness.tableAttributes(1).reverse)
    #expect(harness.screen.fullClears == 0)
    #expect(harness.screen.writes[ScreenLayout.titleLine] == nil)
    #expect(harness.screen.writes[ScreenLayout.queryLine] == nil)
  }

  @Test func aDeletionPullsTheRowsUpAndDrawsOnlyTheRowFromBelow() throws {
    var harness = Harness(ids: Array(1...10))
    let result = try harness.change(to: [1, 2, 4, 5, 6, 7, 8, 9, 10])
    #expect(result.operations == [.delete(line: 2, count: 1)])
    #expect(result.rewritten == [4])
    #expect(harness.tableText(4).hasPrefix("owner/repository-6"))
  }

  @Test func aModificationRewritesItsLineInPlace() throws {
    var harness = Harness(ids: Array(1...10))
    let result = try harness.change(to: Array(1...10), changed: [4])
    #expect(result.operations.isEmpty)
    #expect(result.rewritten == [3])
    #expect(harness.tableText(3).contains("edited description of 4"))
    #expect(harness.tableAttributes(3).reverse && harness.tableAttributes(3).foreground == 3)
  }

  @Test func aMoveIsADeletionAndAnInsertion() throws {
    var harness = Harness(ids: Array(1...10))
    let result = try harness.change(to: [5, 1, 2, 3, 4, 6, 7, 8, 9, 10])
    #expect(result.operations == [.delete(line: 4, count: 1), .insert(line: 0, count: 1)])
    #expect(result.rewritten == [0])
    #expect(harness.tableAttributes(0).foreground == 3, "a moved row is shown as changed")
  }

  @Test func changesBelowTheWindowDrawNothingInTheTable() throws {
    var harness = Harness(ids: Array(1...10))
    let result = try harness.change(to: [1, 2, 3, 4, 5, 6, 7, 12, 8, 9], changed: [9])
    #expect(result.operations.isEmpty)
    #expect(result.rewritten.isEmpty)
  }

  @Test func changesAboveTheWindowKeepTheVisibleRowsInPlace() throws {
    var harness = Harness(ids: Array(1...10))
    for _ in 0..<3 { _ = harness.session.handle(.down, tableHeight: 5) }
    _ = harness.draw(at: 0.05)
    #expect(harness.tableText(0).hasPrefix("owner/repository-4"))
    harness.screen.resetCounters()
    var result = try harness.change(to: [2, 3, 4, 5, 6, 7, 8, 9, 10])
    #expect(harness.session.offset == 2)
    #expect(result.operations.isEmpty && result.rewritten.isEmpty)
    result = try harness.change(to: [20, 21, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    #expect(harness.session.offset == 4)
    #expect(result.operations.isEmpty && result.rewritten.isEmpty)
    #expect(harness.tableText(0).hasPrefix("owner/repository-4"))
  }

  @Test func insertionsBeyondTheWindowBecomeOneOperation() throws {
    var harness = Harness(ids: Array(1...10))
    let result = try harness.change(to: Array(30...37) + Array(1...10))
    #expect(result.operations == [.insert(line: 0, count: 5)])
    #expect(result.rewritten == [0, 1, 2, 3, 4])
  }

  @Test func adjacentDeletionsBecomeOneOperation() throws {
    var harness = Harness(ids: Array(1...10))
    let result = try harness.change(to: [1, 5, 6, 7, 8, 9, 10])
    #expect(result.operations == [.delete(line: 1, count: 3)])
    #expect(result.rewritten == [2, 3, 4])
  }

  @Test func highlightsEndWithARewriteOfTheirLinesOnly() throws {
    var harness = Harness(ids: Array(1...10))
    _ = try harness.change(to: [11, 1, 2, 3, 12, 4, 5, 6], at: 0.1)
    #expect(harness.draw(at: 0.5).isEmpty, "highlights last a second")
    #expect(harness.draw(at: 1.2) == [0, 4])
    #expect(!harness.tableAttributes(0).reverse && !harness.tableAttributes(4).reverse)
  }

  @Test func aResultSmallerThanTheWindowLeavesBlankLines() throws {
    var harness = Harness(ids: [1, 2, 3])
    let result = try harness.change(to: [3])
    #expect(result.operations == [.delete(line: 0, count: 2)])
    #expect(result.rewritten.isEmpty, "the lines that slid in are blank, as they should be")
    #expect(harness.tableText(1).isEmpty && harness.tableText(2).isEmpty)
  }

  /// Random changes: the terminal always ends up showing the frame (the line operations and the
  /// renderer's model of the screen agree), and no more lines are drawn than the changeset makes
  /// necessary: one per inserted or modified row in the window, one per row uncovered at the bottom.
  @Test func randomChangesShowTheFrameAndRewriteOnlyWhatTheyMust() throws {
    var random = SplitMix64(seed: 9)
    for _ in 0..<300 {
      let old = (0..<random.next(upTo: 14)).map { Int64($0 + 1) }.shuffled(using: &random)
      var harness = Harness(ids: old, height: 1 + random.next(upTo: 6))
      for _ in 0..<random.next(upTo: 4) {
        _ = harness.session.handle(.down, tableHeight: harness.layout.tableHeight)
      }
      _ = harness.draw(at: 0.05)
      let kept = old.filter { _ in random.next(upTo: 5) > 0 }
      var new = kept + (100..<100 + Int64(random.next(upTo: 5)))
      new.shuffle(using: &random)
      let changed = Set(kept.filter { _ in random.next(upTo: 4) == 0 })
      let changeset = try Changeset(from: old, to: new, changed: changed)
      let offset = harness.session.offset
      let height = harness.layout.tableHeight
      let result = try harness.change(to: new, changed: changed)
      let window = harness.session.offset..<(harness.session.offset + height)
      let structural = result.operations.reduce(0) {
        switch $1 {
        case .delete(_, let count), .insert(_, let count): $0 + count
        }
      }
      let modified = changeset.modificationsNew.filter(window.contains).count
      let clamped =
        harness.session.offset
        != TablePatch(
          changeset: changeset, offset: offset, height: height, newCount: Int.max / 2
        ).offset
      if !clamped {
        #expect(result.rewritten.count <= structural + modified, "old \(old) new \(new)")
      }
    }
  }
}

extension SplitMix64 {
  mutating func next(upTo bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}
