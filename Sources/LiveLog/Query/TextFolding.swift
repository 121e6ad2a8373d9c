import Foundation
import Synchronization

/// How `[c]` and `[d]` compare text: every string is *folded* to UTF-8 bytes, then compared byte
/// by byte (which orders strings by Unicode scalar values).
///
/// Folding works on each Unicode scalar alone, never on its neighbours:
/// - `[d]` replaces a scalar by its canonical decomposition without nonspacing marks
///   (`é` → `e`, `Å` → `A`). Letters that do not decompose keep their form (`ø`, `ł`).
/// - `[c]` replaces a scalar by the lowercase mapping of its uppercase mapping, Unicode's full
///   mappings, so that every case variant meets in one form (`ß` → `ss`, `ſ` → `s`, `Σ`/`ς` → `σ`).
/// - Without options, text is compared as stored.
///
/// Because each scalar folds on its own, folding keeps substrings: if `p` occurs in `t`, then
/// `fold(p)` occurs in `fold(t)`. The substring index relies on that, and on
/// `fold(fold(x, o), [c, d]) == fold(x, [c, d])` for every option set `o` (a test checks every
/// scalar of the Basic Multilingual Plane), to answer every option set from one index of `[cd]`
/// folded text.
enum TextFolding {
  static let all: StringOptions = [.caseInsensitive, .diacriticInsensitive]

  /// `text` folded per `options`, as UTF-8.
  static func fold(_ text: String, _ options: StringOptions) -> [UInt8] {
    if options.isEmpty { return Array(text.utf8) }
    var result: [UInt8] = []
    result.reserveCapacity(text.utf8.count)
    var isASCII = true
    let ascii: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
      for byte in bytes {
        if byte >= 0x80 {
          isASCII = false
          return
        }
        result.append(options.contains(.caseInsensitive) && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
      }
    }
    if ascii != nil && isASCII { return result }
    result.removeAll(keepingCapacity: true)
    for scalar in text.unicodeScalars {
      if scalar.isASCII {
        let byte = UInt8(scalar.value)
        result.append(options.contains(.caseInsensitive) && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
      } else {
        result.append(contentsOf: ScalarFolds.shared.fold(scalar, options))
      }
    }
    return result
  }

  /// Folds UTF-8 bytes (valid, as stored) into `result`, replacing its contents. ASCII folds
  /// in place without allocating; other text goes through `fold(_:_:)`.
  static func fold(utf8 bytes: UnsafeRawBufferPointer, _ options: StringOptions, into result: inout [UInt8]) {
    result.removeAll(keepingCapacity: true)
    let lower = options.contains(.caseInsensitive)
    for byte in bytes {
      if byte >= 0x80 {
        result = fold(String(decoding: bytes, as: UTF8.self), options)
        return
      }
      result.append(lower && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
    }
  }

  /// `fold(text, options)` as a string.
  static func foldedString(_ text: String, _ options: StringOptions) -> String {
    String(decoding: fold(text, options), as: UTF8.self)
  }
}

/// The folded form of each non-ASCII scalar met so far (Foundation's decomposition is slow;
/// real text repeats its few non-ASCII scalars).
final class ScalarFolds: Sendable {
  static let shared = ScalarFolds()
  private let cache = Mutex<[UInt64: [UInt8]]>([:])

  func fold(_ scalar: Unicode.Scalar, _ options: StringOptions) -> [UInt8] {
    let key = UInt64(scalar.value) << 8 | UInt64(options.rawValue)
    if let known = cache.withLock({ $0[key] }) { return known }
    let folded = ScalarFolds.compute(scalar, options)
    cache.withLock { $0[key] = folded }
    return folded
  }

  private static func compute(_ scalar: Unicode.Scalar, _ options: StringOptions) -> [UInt8] {
    var scalars: [Unicode.Scalar] = [scalar]
    if options.contains(.diacriticInsensitive) {
      let decomposed = String(String.UnicodeScalarView([scalar])).decomposedStringWithCanonicalMapping
      scalars = decomposed.unicodeScalars.filter { $0.properties.generalCategory != .nonspacingMark }
    }
    if options.contains(.caseInsensitive) {
      scalars = scalars.flatMap { s -> [Unicode.Scalar] in
        Array(
          s.properties.uppercaseMapping.unicodeScalars.flatMap {
            $0.properties.lowercaseMapping.unicodeScalars
          })
      }
    }
    return Array(String(String.UnicodeScalarView(scalars)).utf8)
  }
}
