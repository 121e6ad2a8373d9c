/// A moment to the second, as GitHub's API gives its dates (`2014-01-11T09:27:47Z`).
///
/// Seconds since 1970-01-01T00:00:00Z, proleptic Gregorian calendar, no leap seconds.
/// Stored and compared as a whole number, so that dates sort in the ordered index like numbers.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Seconds since 1970-01-01T00:00:00Z.
  public var secondsSince1970: Int64

  public init(secondsSince1970: Int64) { self.secondsSince1970 = secondsSince1970 }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.secondsSince1970 < rhs.secondsSince1970
  }

  /// The earliest and latest dates accepted: years 0001 to 9999.
  static let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

  /// Parses ISO 8601 / RFC 3339 date-times: `YYYY-MM-DDTHH:MM:SS`, an optional fraction (dropped),
  /// then `Z` or `±HH:MM`; also a bare date `YYYY-MM-DD` (midnight UTC). `nil` if malformed.
  public init?(iso8601 text: String) {
    var text = text
    guard let seconds = text.withUTF8({ Timestamp.parse($0) }) else { return nil }
    self.secondsSince1970 = seconds
  }

  /// `YYYY-MM-DDTHH:MM:SSZ`, the API's own form.
  public var iso8601: String {
    let days = secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400
    let secondOfDay = secondsSince1970 - days * 86_400
    let (year, month, day) = Timestamp.civil(fromDays: days)
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    var yearText = String(year)
    while yearText.count < 4 { yearText = "0" + yearText }
    return
      "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
  }

  public var description: String { iso8601 }

  private static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
    var index = 0
    func digits(_ count: Int) -> Int64? {
      guard index + count <= s.count else { return nil }
      var value: Int64 = 0
      for _ in 0..<count {
        let c = s[index]
        guard c >= 0x30 && c <= 0x39 else { return nil }
        value = value * 10 + Int64(c - 0x30)
        index += 1
      }
      return value
    }
    func expect(_ c: UInt8) -> Bool {
      guard index < s.count && s[index] == c else { return false }
      index += 1
      return true
    }
    guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
      (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
    else { return nil }
    var seconds = Timestamp.days(year: year, month: month, day: day) * 86_400
    if index == s.count { return seconds }
    guard expect(0x54) || expect(0x74) || expect(0x20),
      let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2),
      hour < 24, minute < 60, second < 61
    else { return nil }
    seconds += hour * 3600 + minute * 60 + Swift.min(second, 59)
    if expect(0x2E) {
      let start = index
      while index < s.count && s[index] >= 0x30 && s[index] <= 0x39 { index += 1 }
      guard index > start else { return nil }
    }
    if expect(0x5A) || expect(0x7A) {
      // UTC
    } else if index < s.count && (s[index] == 0x2B || s[index] == 0x2D) {
      let sign: Int64 = s[index] == 0x2B ? 1 : -1
      index += 1
      guard let offsetHours = digits(2), offsetHours < 24 else { return nil }
      _ = expect(0x3A)
      guard let offsetMinutes = digits(2), offsetMinutes < 60 else { return nil }
      seconds -= sign * (offsetHours * 3600 + offsetMinutes * 60)
    } else {
      return nil
    }
    guard index == s.count, range.contains(seconds) else { return nil }
    return seconds
  }

  private static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (eras of 400 years from 0000-03-01).
  static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let shiftedMonth = month > 2 ? month - 3 : month + 9
    let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The inverse of `days(year:month:day:)`.
  static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
