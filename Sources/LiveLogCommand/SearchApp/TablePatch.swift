import Changesets

/// A structural edit of the table's lines on the terminal: lines deleted (the lines below move up,
/// blank lines come in at the bottom) or inserted (the lines below move down, the bottom ones
/// fall off). Line numbers are relative to the table's first line.
enum LineOperation: Hashable, Sendable {
  case delete(line: Int, count: Int)
  case insert(line: Int, count: Int)
}

/// What a changeset does to the visible window of the table: the terminal's table-view
/// `deleteRows` / `insertRows`.
///
/// The window shows the result rows `offset ..< offset + height`. Deletions (old indices, from the
/// bottom up) and insertions (new indices, from the top down) that fall in the window become line
/// deletions and insertions, so that the rows that stay slide into place without being drawn
/// again; only inserted rows, modified rows and rows that slid up from below the window need
/// drawing afterwards (the renderer finds them by comparing lines). Changes above the window keep
/// the visible rows where they are by moving the offset, as a table view keeps its content offset.
struct TablePatch: Hashable, Sendable {
  /// The line operations, in the order to perform them.
  var operations: [LineOperation]
  /// The first visible row after the change.
  var offset: Int

  /// The patch for `changeset` on a window of `height` lines at `offset`, for a result of
  /// `newCount` rows after the change.
  init(changeset: Changeset, offset: Int, height: Int, newCount: Int) {
    var offset = offset
    var operations: [LineOperation] = []
    for index in changeset.deletions.sorted(by: >) {
      if index < offset {
        offset -= 1
      } else if index < offset + height {
        let line = index - offset
        // Deleting the line just above the previous deletion: one operation for both.
        if case .delete(let previous, let count)? = operations.last, previous == line + 1 {
          operations[operations.count - 1] = .delete(line: line, count: count + 1)
        } else {
          operations.append(.delete(line: line, count: 1))
        }
      }
    }
    for index in changeset.insertions.sorted() {
      if index < offset {
        offset += 1
      } else if index < offset + height {
        let line = index - offset
        if case .insert(let first, let count)? = operations.last, first + count == line {
          operations[operations.count - 1] = .insert(line: first, count: count + 1)
        } else {
          operations.append(.insert(line: line, count: 1))
        }
      }
    }
    // A result that shrank below the window: show its end. (The lines that change because of
    // this are found by comparison like any others.)
    let clamped = max(0, min(offset, newCount - height))
    self.operations = clamped == offset ? operations : []
    self.offset = clamped
  }

  /// Applies the operations to a model of the window's lines (`nil` for a blank line), as the
  /// terminal applies them to the screen: what the renderer keeps to know what is shown.
  static func apply<T>(_ operations: [LineOperation], to lines: inout [T?]) {
    let height = lines.count
    for operation in operations {
      switch operation {
      case .delete(let line, let count):
        guard line < height else { continue }
        let removed = min(count, height - line)
        lines.removeSubrange(line..<line + removed)
        lines.append(contentsOf: repeatElement(nil, count: removed))
      case .insert(let line, let count):
        guard line < height else { continue }
        let added = min(count, height - line)
        lines.insert(contentsOf: repeatElement(nil, count: added), at: line)
        lines.removeLast(added)
      }
    }
  }
}
