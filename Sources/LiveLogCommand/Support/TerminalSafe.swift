import LiveLog

/// Every piece of text from data or input that a command prints for people goes through here:
/// control characters (C0, DEL, C1, so escape sequences, carriage returns and newlines) are
/// shown as visible escapes, so that a repository's name cannot forge a table row or a link, nor
/// command the terminal. JSON output is escaped by JSON's own rules instead and stays exact.
enum TerminalSafe {
  /// One line's worth of text: every control character escaped.
  static func escaped(_ text: some StringProtocol) -> String { ControlEscaping.escaped(text) }

  /// A message of this program's own, which may have several lines, around text that may not:
  /// line feeds are kept, every other control character is escaped.
  static func message(_ text: some StringProtocol) -> String {
    ControlEscaping.escaped(text, keepingNewlines: true)
  }
}
