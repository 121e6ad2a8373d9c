/// Why a diff, a changeset or a sorted result refused its input.
///
/// Every entry point of the module reports bad input with one of these instead of trapping, so a
/// malformed query result or a corrupted stored changeset can never take the process down. Values
/// that caused the error are carried as their `String(describing:)` form: the error type stays
/// non-generic, which is what lets the functions throw it as a typed error.
public enum ChangesetError: Error, Hashable, Sendable {
  /// Which of the two collections of a diff an index refers to.
  public enum Side: String, Hashable, Sendable, Codable {
    /// The collection before the change.
    case old
    /// The collection after the change.
    case new
  }

  /// An id occurs twice in one collection; ids must identify rows uniquely.
  case duplicateID(id: String, side: Side, firstIndex: Int, secondIndex: Int)
  /// An id occurs twice in one sectioned collection (in the same or in different sections).
  case duplicateIDInSections(id: String, side: Side, first: RowPath, second: RowPath)
  /// Two sections of one collection have the same key.
  case duplicateSectionKey(key: String, side: Side, firstIndex: Int, secondIndex: Int)
  /// A changeset's index lists break one of the rules documented on ``Changeset``.
  case malformedChangeset(String)
  /// A changeset was applied to a collection it does not describe.
  case indexOutOfRange(index: Int, count: Int)
  /// Rows given as sorted are not in ascending order at `position`.
  case rowsNotSorted(position: Int)
  /// Two rows compare equal under the result's ordering, which must be total.
  case duplicateRow(row: String)
  /// A change names an old row that the result does not hold.
  case rowNotFound(row: String)
  /// Two changes name the same old row.
  case duplicateChange(row: String)
  /// The collections are too large to index with 32-bit positions.
  case tooManyElements(count: Int)
}

extension ChangesetError: CustomStringConvertible {
  /// A sentence naming the offending value and where it was found.
  public var description: String {
    switch self {
    case .duplicateID(let id, let side, let first, let second):
      return "id \(id) occurs twice in the \(side) collection, at \(first) and \(second)"
    case .duplicateIDInSections(let id, let side, let first, let second):
      return "id \(id) occurs twice in the \(side) sections, at \(first) and \(second)"
    case .duplicateSectionKey(let key, let side, let first, let second):
      return "section key \(key) occurs twice in the \(side) sections, at \(first) and \(second)"
    case .malformedChangeset(let reason):
      return "malformed changeset: \(reason)"
    case .indexOutOfRange(let index, let count):
      return "index \(index) is out of range for a collection of \(count) elements"
    case .rowsNotSorted(let position):
      return "rows are not in ascending order at position \(position)"
    case .duplicateRow(let row):
      return "row \(row) occurs twice"
    case .rowNotFound(let row):
      return "row \(row) is not in the result"
    case .duplicateChange(let row):
      return "two changes name the old row \(row)"
    case .tooManyElements(let count):
      return "\(count) elements are more than a diff can index"
    }
  }
}
