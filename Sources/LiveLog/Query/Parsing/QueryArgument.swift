public import Foundation

/// A value that can fill a `%@` placeholder, or name a field for `%K` (a string).
///
/// Arguments carry values that would otherwise need quoting and escaping in the text:
/// `Query(parsing: "full_name CONTAINS[c] %@", term)` is safe whatever `term` holds.
public protocol QueryArgument: Sendable {
  /// The value the placeholder stands for.
  var queryValue: QueryValue { get }
}

extension String: QueryArgument {
  /// `.string(self)`.
  public var queryValue: QueryValue { .string(self) }
}

extension Substring: QueryArgument {
  /// `.string` of the substring's text.
  public var queryValue: QueryValue { .string(String(self)) }
}

extension Int: QueryArgument {
  /// `.integer(self)`.
  public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Int64: QueryArgument {
  /// `.integer(self)`.
  public var queryValue: QueryValue { .integer(self) }
}

extension Int32: QueryArgument {
  /// `.integer(self)`.
  public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension UInt32: QueryArgument {
  /// `.integer(self)`.
  public var queryValue: QueryValue { .integer(Int64(self)) }
}

extension Double: QueryArgument {
  /// `.double(self)`.
  public var queryValue: QueryValue { .double(self) }
}

extension Bool: QueryArgument {
  /// `.bool(self)`.
  public var queryValue: QueryValue { .bool(self) }
}

extension Date: QueryArgument {
  /// `.date` of the moment, to the nanosecond.
  public var queryValue: QueryValue { .date(Timestamp(self)) }
}

extension UUID: QueryArgument {
  /// `.string` of its `uuidString`, as UUID keys are stored.
  public var queryValue: QueryValue { .string(uuidString) }
}

extension Timestamp: QueryArgument {
  /// `.date(self)`.
  public var queryValue: QueryValue { .date(self) }
}

extension QueryValue: QueryArgument {
  /// The value itself.
  public var queryValue: QueryValue { self }
}

extension Array: QueryArgument where Element: QueryArgument {
  /// `.list` of the elements' values: the right-hand side of `IN %@` or `BETWEEN %@`.
  public var queryValue: QueryValue { .list(map(\.queryValue)) }
}

extension Optional: QueryArgument where Wrapped: QueryArgument {
  /// The wrapped value's, or `.null` for `nil`.
  public var queryValue: QueryValue { self?.queryValue ?? .null }
}
