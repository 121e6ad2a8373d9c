extension Query {
  /// The query in the query language, for `explain`, logs and the command line.
  ///
  /// Parsing it gives the query back: `Query(parsing: query.text) == query` for every query the
  /// parser or the typed form builds. Values are written inline (no placeholders), strings in
  /// single quotes with escapes, dates as `2021-01-31T10:20:30Z`. A `NaN` or infinite decimal,
  /// which only the typed form can hold, is written as `nan` / `inf` and does not parse.
  public var text: String {
    var parts: [String] = []
    if predicate != .constant(true) || clauses.isEmpty { parts.append(predicate.text) }
    for clause in clauses {
      switch clause {
      case .sort(let keys):
        parts.append(
          "SORT(\(keys.map { "\($0.field.name) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")))")
      case .distinct(let fields):
        parts.append("DISTINCT(\(fields.map(\.name).joined(separator: ", ")))")
      case .limit(let count):
        parts.append("LIMIT(\(count))")
      }
    }
    return parts.joined(separator: " ")
  }
}

extension Predicate {
  /// The predicate in the query language; see `Query.text`.
  ///
  /// An empty AND is `TRUEPREDICATE` and an empty OR `FALSEPREDICATE`, which is what they mean.
  public var text: String {
    var output = ""
    write(to: &output, context: .disjunction)
    return output
  }

  /// How tightly the surrounding text binds, to decide on parentheses.
  private enum Context: Int, Comparable {
    case disjunction
    case conjunction
    case negation

    static func < (lhs: Context, rhs: Context) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  private func write(to output: inout String, context: Context) {
    switch self {
    case .constant(let value):
      output += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
    case .comparison(let comparison):
      output += comparison.text
    case .relation(let relation):
      output += relation.text
    case .not(let inner):
      output += "NOT "
      inner.write(to: &output, context: .negation)
    case .and(let parts):
      Predicate.write(parts, joinedBy: " AND ", empty: "TRUEPREDICATE", level: .conjunction, context, &output)
    case .or(let parts):
      Predicate.write(parts, joinedBy: " OR ", empty: "FALSEPREDICATE", level: .disjunction, context, &output)
    }
  }

  private static func write(
    _ parts: [Predicate], joinedBy separator: String, empty: String, level: Context, _ context: Context,
    _ output: inout String
  ) {
    if parts.isEmpty {
      output += empty
      return
    }
    if parts.count == 1 {
      parts[0].write(to: &output, context: context)
      return
    }
    let needsParentheses = context > level
    if needsParentheses { output += "(" }
    for (index, part) in parts.enumerated() {
      if index > 0 { output += separator }
      part.write(to: &output, context: level)
    }
    if needsParentheses { output += ")" }
  }
}

extension Comparison {
  /// The comparison in the query language: `ANY topics BEGINSWITH[c] 'sw'`.
  public var text: String {
    quantifier.queryPrefix + field.name + " " + self.operator.rawValue + options.queryText + " "
      + value.queryText
  }
}

extension Quantifier {
  /// `ANY `, `ALL `, `NONE ` before a side with several values; nothing before one value.
  var queryPrefix: String {
    switch self {
    case .single: ""
    case .any: "ANY "
    case .all: "ALL "
    case .none: "NONE "
    }
  }
}

extension StringOptions {
  /// The options as written after an operator: `[c]`, `[d]`, `[cd]`, or nothing.
  var queryText: String {
    guard !isEmpty else { return "" }
    return "[" + (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "") + "]"
  }
}

extension QueryValue {
  /// The value as a literal of the query language.
  var queryText: String {
    switch self {
    case .null: return "nil"
    case .bool(let value): return value ? "true" : "false"
    case .integer(let value): return String(value)
    case .double(let value): return String(describing: value)
    case .string(let value): return QueryValue.quoted(value)
    case .date(let date):
      // Beyond years 1 to 9999 a date has no literal; Unix seconds mean the same to a date field.
      return Timestamp.range.contains(date.secondsSince1970) ? date.iso8601 : String(date.secondsSince1970)
    case .list(let items): return "{" + items.map(\.queryText).joined(separator: ", ") + "}"
    }
  }

  /// `text` in single quotes, escaped so that the lexer reads back exactly its scalars.
  static func quoted(_ text: String) -> String {
    var output = "'"
    for scalar in text.unicodeScalars {
      switch scalar {
      case "'": output += "\\'"
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\t": output += "\\t"
      case "\r": output += "\\r"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          output += "\\u" + Lexer.hex(scalar.value)
        } else {
          output.unicodeScalars.append(scalar)
        }
      }
    }
    return output + "'"
  }
}
