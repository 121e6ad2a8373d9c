/// The inclusive range of ordered-index keys that a comparison of a numeric or date field admits,
/// exactly: a value is in the range if and only if the comparison holds for it.
struct OrderedBounds {
  var lower: OrderedKey
  var upper: OrderedKey

  /// The least and greatest keys of values (nil and NaN lie outside).
  static let lowest = OrderedKey(flag: 1, high: 0, low: 0)
  static let highest = OrderedKey(flag: 1, high: .max, low: .max)

  var isEmpty: Bool { upper < lower || lower.flag != upper.flag }

  func intersection(_ other: OrderedBounds) -> OrderedBounds {
    OrderedBounds(lower: max(lower, other.lower), upper: min(upper, other.upper))
  }

  /// The range of `field OP value`, or `nil` when the index cannot answer it exactly (an integer
  /// beyond 2^53 against a double field).
  init?(_ field: Field, _ op: ComparisonOperator, _ value: QueryValue) {
    let width = OrderedKey.width(of: field.type)
    let point: OrderedKey
    switch (field.type, value) {
    case (.integer, .integer(let number)):
      point = .integer(number)
    case (.integer, .double(let number)):
      guard let bounds = OrderedBounds.integerBounds(op, number) else { return nil }
      self = bounds
      return
    case (.date, .date(let date)):
      point = .date(date)
    case (.date, .integer(let seconds)):
      point = .date(Timestamp(secondsSince1970: seconds))
    case (.double, .double(let number)):
      if number.isNaN {
        self.init(lower: OrderedBounds.highest, upper: OrderedBounds.lowest)
        return
      }
      point = .double(number)
    case (.double, .integer(let number)):
      guard let exact = Double(exactly: number) else { return nil }
      point = .double(exact)
    default:
      return nil
    }
    switch op {
    case .equal: self.init(lower: point, upper: point)
    case .less: self.init(lower: OrderedBounds.lowest, upper: point.predecessor(width: width))
    case .lessOrEqual: self.init(lower: OrderedBounds.lowest, upper: point)
    case .greater: self.init(lower: point.successor(width: width), upper: OrderedBounds.highest)
    case .greaterOrEqual: self.init(lower: point, upper: OrderedBounds.highest)
    default: return nil
    }
  }

  init(lower: OrderedKey, upper: OrderedKey) {
    self.lower = lower
    self.upper = upper
  }

  /// An integer field against a decimal: the whole numbers the comparison admits.
  private static func integerBounds(_ op: ComparisonOperator, _ d: Double) -> OrderedBounds? {
    guard !d.isNaN else { return OrderedBounds(lower: highest, upper: lowest) }
    // 2^63: every Int64 lies in [-2^63, 2^63), and a whole double in it converts exactly.
    let limit = 9_223_372_036_854_775_808.0
    let range: (Int64, Int64)?
    switch op {
    case .equal: range = d.rounded() == d && d >= -limit && d < limit ? (Int64(d), Int64(d)) : nil
    case .less:
      let c = d.rounded(.up)
      range = c <= -limit ? nil : c >= limit ? (.min, .max) : (.min, Int64(c) - 1)
    case .lessOrEqual:
      let f = d.rounded(.down)
      range = f < -limit ? nil : f >= limit ? (.min, .max) : (.min, Int64(f))
    case .greater:
      let f = d.rounded(.down)
      range = f >= limit ? nil : f < -limit ? (.min, .max) : (Int64(f) + 1, .max)
    case .greaterOrEqual:
      let c = d.rounded(.up)
      range = c >= limit ? nil : c < -limit ? (.min, .max) : (Int64(c), .max)
    default: return nil
    }
    guard let (low, high) = range else { return OrderedBounds(lower: highest, upper: lowest) }
    return OrderedBounds(lower: .integer(low), upper: .integer(high))
  }
}

extension OrderedKey {
  /// The next key of a field of this width (a key's bytes hold `low` only at width 13).
  func successor(width: Int) -> OrderedKey {
    if width == 13 && low < .max { return OrderedKey(flag: flag, high: high, low: low + 1) }
    if high < .max { return OrderedKey(flag: flag, high: high + 1, low: 0) }
    return OrderedKey(flag: flag + 1, high: 0, low: 0)
  }

  /// The key before this one, at this width.
  func predecessor(width: Int) -> OrderedKey {
    if width == 13 && low > 0 { return OrderedKey(flag: flag, high: high, low: low - 1) }
    if high > 0 { return OrderedKey(flag: flag, high: high - 1, low: width == 13 ? .max : 0) }
    return OrderedKey(flag: flag == 0 ? 0 : flag - 1, high: .max, low: .max)
  }
}
