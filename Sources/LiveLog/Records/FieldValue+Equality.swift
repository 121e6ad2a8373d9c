/// Two values are equal when the store holds them alike: text by its UTF-8 bytes, not by Swift's
/// canonical equivalence, under which `"é"` and `"e\u{301}"` are one string. Queries compare text
/// byte by byte and the equality index files each value's bytes, so replacing one form by the
/// other is a change, whose index entries must be rewritten (an update judged "the same value"
/// left the old bytes filed under the row).
extension FieldValue {
  public static func == (lhs: FieldValue, rhs: FieldValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.integer(let a), .integer(let b)): a == b
    case (.double(let a), .double(let b)): a == b
    case (.date(let a), .date(let b)): a == b
    case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
    case (.strings(let a), .strings(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    case (.integers(let a), .integers(let b)): a == b
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    func combine(_ text: String) {
      var text = text
      hasher.combine(text.utf8.count)
      text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
    switch self {
    case .null: hasher.combine(0)
    case .bool(let flag):
      hasher.combine(1)
      hasher.combine(flag)
    case .integer(let number):
      hasher.combine(2)
      hasher.combine(number)
    case .double(let number):
      hasher.combine(3)
      hasher.combine(number)
    case .date(let date):
      hasher.combine(4)
      hasher.combine(date)
    case .string(let text):
      hasher.combine(5)
      combine(text)
    case .strings(let list):
      hasher.combine(6)
      hasher.combine(list.count)
      for text in list { combine(text) }
    case .integers(let list):
      hasher.combine(7)
      hasher.combine(list)
    }
  }
}
