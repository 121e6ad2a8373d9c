/// The look of a run of text: the SGR attributes the app uses.
struct TextStyle: Hashable, Sendable {
  /// The eight basic ANSI colours the app needs (SGR 30–37 foreground).
  enum Color: Int, Hashable, Sendable {
    case red = 1
    case green = 2
    case yellow = 3
    case blue = 4
    case cyan = 6
  }

  var bold = false
  var dim = false
  var underline = false
  var reverse = false
  var foreground: Color?

  static let plain = TextStyle()
  static let bold = TextStyle(bold: true)
  static let dim = TextStyle(dim: true)
  static let reverse = TextStyle(reverse: true)
  /// A row that just arrived: green bar.
  static let inserted = TextStyle(reverse: true, foreground: .green)
  /// A row whose content just changed: yellow bar.
  static let changed = TextStyle(reverse: true, foreground: .yellow)
  static let error = TextStyle(bold: true, foreground: .red)

  /// The escape sequence that sets exactly this style (starting from a reset, so that no
  /// attribute of the previous run leaks into this one).
  var sgr: String {
    var codes = ["0"]
    if bold { codes.append("1") }
    if dim { codes.append("2") }
    if underline { codes.append("4") }
    if reverse { codes.append("7") }
    if let foreground { codes.append(String(30 + foreground.rawValue)) }
    return "\u{1B}[" + codes.joined(separator: ";") + "m"
  }
}

/// A run of text in one style.
struct StyledSpan: Hashable, Sendable {
  var text: String
  var style: TextStyle

  /// Control characters in `text` become spaces: whatever reaches the screen (a store path, a
  /// server's error message, a description) is text, never a command to the terminal.
  init(_ text: String, _ style: TextStyle = .plain) {
    self.text = TextWidth.sanitized(text)
    self.style = style
  }
}

/// One screen line as the app wants it: styled runs, already cut to the line's width. Whatever
/// the runs do not cover is blank. Two lines that look the same compare equal (plain trailing
/// spaces are dropped), which is what lets the renderer skip lines that did not change.
struct StyledLine: Hashable, Sendable {
  private(set) var spans: [StyledSpan]

  static let blank = StyledLine([])

  init(_ spans: [StyledSpan]) {
    var spans = spans.filter { !$0.text.isEmpty }
    while let last = spans.last, last.style == .plain {
      let trimmed = String(last.text.reversed().drop { $0 == " " }.reversed())
      if trimmed.isEmpty {
        spans.removeLast()
      } else {
        spans[spans.count - 1].text = trimmed
        break
      }
    }
    self.spans = spans
  }

  init(_ text: String, _ style: TextStyle = .plain) {
    self.init([StyledSpan(text, style)])
  }

  /// The characters of the line, without styles.
  var text: String { spans.map(\.text).joined() }

  var isBlank: Bool { spans.isEmpty }

  /// The line cut to `width` columns: each run keeps as much as fits, in order.
  func clipped(to width: Int) -> StyledLine {
    var remaining = width
    var result: [StyledSpan] = []
    for span in spans where remaining > 0 {
      let size = TextWidth.columns(of: span.text)
      if size <= remaining {
        result.append(span)
        remaining -= size
      } else {
        result.append(StyledSpan(TextWidth.truncated(span.text, to: remaining), span.style))
        remaining = 0
      }
    }
    return StyledLine(result)
  }
}
