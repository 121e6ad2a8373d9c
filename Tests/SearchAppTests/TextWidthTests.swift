import Testing

@testable import LiveLogCommand

@Suite struct TextWidthTests {
  @Test func widthsOfWideAndCombiningCharacters() {
    #expect(TextWidth.columns(of: "tetris") == 6)
    #expect(TextWidth.columns(of: "计算机") == 6)
    #expect(TextWidth.columns(of: "e\u{301}") == 1)
    #expect(TextWidth.columns(of: "🚀") == 2)
  }

  @Test func truncationKeepsTheWidth() {
    #expect(TextWidth.truncated("nand2tetris", to: 6) == "nand2…")
    #expect(TextWidth.truncated("nand2tetris", to: 20) == "nand2tetris")
    #expect(TextWidth.truncated("计算机系统", to: 6) == "计算…")
    #expect(TextWidth.columns(of: TextWidth.truncated("计算机系统", to: 6)) <= 6)
    #expect(TextWidth.fitted("7", to: 4, alignRight: true) == "   7")
  }

  /// Text from the network must not command the terminal.
  @Test func controlCharactersAreReplaced() {
    #expect(TextWidth.sanitized("evil\u{1B}[2J\nname\u{9B}") == "evil [2J name ")
  }

  /// Nothing drawn can carry an escape: not an error message, not a store path.
  @Test func styledTextIsSanitizedToo() {
    let line = StyledLine([StyledSpan("rate limit \u{1B}]0;owned\u{07}", .error)])
    #expect(!line.text.unicodeScalars.contains { $0.value < 0x20 })
  }
}
