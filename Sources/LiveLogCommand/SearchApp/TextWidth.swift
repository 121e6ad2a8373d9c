/// How many terminal columns text takes, and text cut or padded to a number of columns.
///
/// Table cells hold text from the network (descriptions with CJK, emoji, combining accents, and
/// sometimes control characters), so widths are counted per grapheme, the way terminals place
/// them: wide East Asian characters and emoji take two columns, combining marks none. Control
/// characters are replaced before display: a description holding `ESC[2J` must not reach the
/// terminal as a command.
enum TextWidth {
  /// Columns that `character` takes.
  static func columns(of character: Character) -> Int {
    guard let first = character.unicodeScalars.first else { return 0 }
    if isControl(first) { return 1 }  // shown as a replacement, see `sanitized`
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if first.properties.isEmojiPresentation || isWide(first.value) { return 2 }
    // A text-style emoji followed by VARIATION SELECTOR-16 is drawn as a wide emoji.
    if character.unicodeScalars.contains("\u{FE0F}") && first.properties.isEmoji { return 2 }
    return 1
  }

  /// Columns that `text` takes.
  static func columns(of text: some StringProtocol) -> Int {
    text.reduce(0) { $0 + columns(of: $1) }
  }

  /// `text` with control characters (C0, DEL, C1: escape sequences, newlines, tabs) replaced by
  /// spaces, so that it can be drawn on one line without commanding the terminal.
  static func sanitized(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars { result.append(isControl(scalar) ? " " : scalar) }
    return String(result)
  }

  /// `text` cut to at most `width` columns, ending with "…" when something was cut.
  static func truncated(_ text: String, to width: Int) -> String {
    guard width > 0 else { return "" }
    guard columns(of: text) > width else { return text }
    var result = ""
    var used = 0
    for character in text {
      let size = columns(of: character)
      if used + size > width - 1 { break }
      result.append(character)
      used += size
    }
    return result + "…"
  }

  /// `text` cut to `width` columns and padded with spaces to exactly `width`, aligned left or right.
  static func fitted(_ text: String, to width: Int, alignRight: Bool = false) -> String {
    let cut = truncated(text, to: width)
    let padding = String(repeating: " ", count: max(0, width - columns(of: cut)))
    return alignRight ? padding + cut : cut + padding
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W and F, in broad ranges).
  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
      0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
      0x20000...0x2FFFD, 0x30000...0x3FFFD:
      return true
    default:
      return false
    }
  }
}
