/// Control characters shown as escapes, for text that reaches a terminal or an error message:
/// data and input may hold escape sequences, carriage returns and newlines that would command
/// the terminal (clear it, move the cursor, forge a line or a link) if printed raw.
public enum ControlEscaping {
  /// Whether `scalar` is a control character: C0 (U+0000–U+001F), DEL (U+007F) or C1
  /// (U+0080–U+009F, where U+009B is a one-character escape sequence introducer).
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// `text` with each control character replaced by a visible escape: `\n`, `\r`, `\t`, or
  /// `\u{1B}` for the others. `keepingNewlines` leaves line feeds as they are, for messages of
  /// several lines whose text is this program's own.
  public static func escaped(_ text: some StringProtocol, keepingNewlines: Bool = false) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return String(text) }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      guard isControl(scalar) else {
        result.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": result += keepingNewlines ? "\n" : "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
    return result
  }

  /// At most the first `limit` characters of `text`, control characters escaped, followed by
  /// "… (N bytes)" when something was cut: what an error message may quote of its input, which
  /// can be megabytes long.
  public static func excerpt(_ text: some StringProtocol, limit: Int = 40) -> String {
    var cut = Substring(text)
    var shortened = false
    if text.utf8.count > limit {
      var characters = 0
      var end = text.startIndex
      while end < text.endIndex, characters < limit {
        end = text.index(after: end)
        characters += 1
      }
      if end < text.endIndex {
        cut = Substring(text[..<end])
        shortened = true
      }
    }
    let shown = escaped(cut)
    return shortened ? shown + "… (\(text.utf8.count) bytes)" : shown
  }
}
