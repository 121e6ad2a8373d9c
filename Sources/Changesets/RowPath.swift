/// The position of a row in a sectioned result: a section index and a row index inside that section.
///
/// The module avoids Foundation, so this stands in for `IndexPath`; converting is
/// `IndexPath(row: path.row, section: path.section)`.
public struct RowPath: Hashable, Sendable, Codable, Comparable {
  /// Index of the section.
  public var section: Int
  /// Index of the row inside its section.
  public var row: Int

  /// The row at `row` in section `section`.
  @inlinable
  public init(section: Int, row: Int) {
    self.section = section
    self.row = row
  }

  /// Orders paths section first, the order UIKit lists them in.
  @inlinable
  public static func < (lhs: RowPath, rhs: RowPath) -> Bool {
    (lhs.section, lhs.row) < (rhs.section, rhs.row)
  }
}

extension RowPath: CustomStringConvertible {
  /// `[section, row]`.
  public var description: String { "[\(section), \(row)]" }
}
