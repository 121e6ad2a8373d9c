public import Foundation

/// A moment to the nanosecond, as dates are stored: GitHub's API gives seconds
/// (`2014-01-11T09:27:47Z`), Swift's `Date` and Realm's timestamps carry fractions.
///
/// Seconds since 1970-01-01T00:00:00Z (proleptic Gregorian calendar, no leap seconds) and the
/// nanoseconds into that second, so that dates sort in the ordered index by seconds, then by
/// nanoseconds.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  /// Whole seconds since 1970-01-01T00:00:00Z (the floor, for moments before 1970).
  public var secondsSince1970: Int64
  /// Nanoseconds into the second, `0 ..< 1_000_000_000`.
  public var nanoseconds: Int32

  public init(secondsSince1970: Int64, nanoseconds: Int32 = 0) {
    // Keep the fraction in range whatever the caller passed: a second carries over.
    let carry = Int64(
      nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000)
    self.secondsSince1970 = secondsSince1970 &+ carry
    self.nanoseconds = Int32(Int64(nanoseconds) - carry * 1_000_000_000)
  }

  /// Seconds from 1970 to 2001, the epoch of `Date`'s own count.
  private static let referenceOffset: Int64 = 978_307_200

  /// The moment of a Swift `Date`, to the nearest nanosecond.
  ///
  /// The conversion works on `Date`'s own count (seconds since 2001, a `Double`), split into whole
  /// seconds and a fraction, both exact; so for every date more than a few seconds from 2001,
  /// whose `Double` is coarser than a nanosecond, `Timestamp(date).date == date` exactly.
  public init(_ date: Date) {
    let interval = date.timeIntervalSinceReferenceDate
    guard interval.isFinite else {
      self.init(secondsSince1970: interval < 0 ? Timestamp.range.lowerBound : Timestamp.range.upperBound)
      return
    }
    let seconds = interval.rounded(.down)
    var nanos = ((interval - seconds) * 1e9).rounded()
    var whole = Int64(exactly: seconds) ?? (seconds < 0 ? Int64.min / 2 : Int64.max / 2)
    if nanos >= 1e9 {
      nanos -= 1e9
      whole &+= 1
    }
    self.init(secondsSince1970: whole &+ Timestamp.referenceOffset, nanoseconds: Int32(nanos))
  }

  /// The moment as a Swift `Date` (whose `Double` holds about 0.1 µs of precision today).
  public var date: Date {
    Date(
      timeIntervalSinceReferenceDate: Double(secondsSince1970 &- Timestamp.referenceOffset) + Double(
        nanoseconds) / 1e9)
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    (lhs.secondsSince1970, lhs.nanoseconds) < (rhs.secondsSince1970, rhs.nanoseconds)
  }

  /// The earliest and latest seconds accepted in text: years 0001 to 9999.
  static let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

  /// Parses ISO 8601 / RFC 3339 date-times: `YYYY-MM-DDTHH:MM:SS`, an optional fraction (kept to
  /// the nanosecond), then `Z` or `±HH:MM`; also a bare date `YYYY-MM-DD` (midnight UTC). `nil`
  /// if malformed.
  public init?(iso8601 text: String) {
    var text = text
    guard let (seconds, nanos) = text.withUTF8({ Timestamp.parse($0) }) else { return nil }
    self.init(secondsSince1970: seconds, nanoseconds: nanos)
  }

  /// `YYYY-MM-DDTHH:MM:SSZ`, the API's own form, with a fraction (`.123456789`, trailing zeros
  /// dropped) when the moment has one.
  public var iso8601: String {
    let days = secondsSince1970 >= 0 ? secondsSince1970 / 86_400 : (secondsSince1970 - 86_399) / 86_400
    let secondOfDay = secondsSince1970 - days * 86_400
    let (year, month, day) = Timestamp.civil(fromDays: days)
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    var yearText = String(year)
    while yearText.count < 4 { yearText = "0" + yearText }
    var text =
      "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
    if nanoseconds != 0 { text += "." + Timestamp.fractionDigits(nanoseconds) }
    return text + "Z"
  }

  /// Nine digits of nanoseconds without the trailing zeros: 500_000_000 → "5".
  static func fractionDigits(_ nanoseconds: Int32) -> String {
    var digits = String(nanoseconds)
    digits = String(repeating: "0", count: 9 - digits.count) + digits
    while digits.count > 1 && digits.hasSuffix("0") { digits.removeLast() }
    return digits
  }

  public var description: String { iso8601 }

  // Codable as the ISO 8601 text, which every JSON reader of dates understands.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let value = Timestamp(iso8601: text) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "expected an ISO 8601 date such as 2014-01-11T09:27:47Z, found \(text)")
    }
    self = value
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(iso8601)
  }

  private static func parse(_ s: UnsafeBufferPointer<UInt8>) -> (Int64, Int32)? {
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
    if index == s.count { return (seconds, 0) }
    guard expect(0x54) || expect(0x74) || expect(0x20),
      let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2),
      hour < 24, minute < 60, second < 61
    else { return nil }
    seconds += hour * 3600 + minute * 60 + Swift.min(second, 59)
    var nanoseconds: Int32 = 0
    if expect(0x2E) {
      let start = index
      var scale: Int32 = 100_000_000
      while index < s.count && s[index] >= 0x30 && s[index] <= 0x39 {
        // Digits past the ninth are below a nanosecond: read, and dropped.
        nanoseconds += Int32(s[index] - 0x30) * scale
        scale /= 10
        index += 1
      }
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
    return (seconds, nanoseconds)
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
