import Testing

@testable import LiveLogCommand

@Suite struct KeyDecoderTests {
  @Test func textAndControlKeys() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array("tet".utf8)) == [.text("tet")])
    #expect(
      decoder.decode([0x7F, 0x09, 0x12, 0x15, 0x17, 0x0C]) == [
        .backspace, .tab, .searchAgain, .eraseLine, .eraseWord, .redraw,
      ])
    #expect(decoder.decode(Array("ab\u{7F}c".utf8)) == [.text("ab"), .backspace, .text("c")])
    #expect(decoder.decode([0x0D]) == [], "Enter does nothing")
  }

  @Test func quitKeys() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x03]) == [.quit])
    #expect(decoder.decode([0x04]) == [.quit])
    #expect(decoder.decode([0x1B]) == [.quit], "a lone Esc")
  }

  @Test func escapeSequences() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array("\u{1B}[A\u{1B}[B\u{1B}OA".utf8)) == [.up, .down, .up])
    #expect(
      decoder.decode(Array("\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[4~\u{1B}[Z".utf8)) == [
        .pageUp, .pageDown, .home, .end, .backTab,
      ])
    #expect(decoder.decode(Array("\u{1B}[1;5C".utf8)) == [], "unknown sequences are skipped whole")
    #expect(decoder.decode(Array("\u{1B}x".utf8)) == [], "Alt+x is ignored")
  }

  @Test func sequencesAndCharactersSplitAcrossReads() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B, 0x5B]) == [])
    #expect(decoder.decode([0x41]) == [.up])
    let snowman = Array("é☃".utf8)
    #expect(decoder.decode(snowman.prefix(3)) == [.text("é")])
    #expect(decoder.decode(snowman.dropFirst(3)) == [.text("☃")])
  }
}
