/// A key the app reacts to.
enum Key: Hashable, Sendable {
  /// Text to add to the search term (one character, or more for a paste).
  case text(String)
  case backspace
  /// Ctrl-U: erase the whole term.
  case eraseLine
  /// Ctrl-W: erase the last word.
  case eraseWord
  case tab
  case backTab
  case up
  case down
  case pageUp
  case pageDown
  case home
  case end
  /// Ctrl-R: search GitHub again for the same term.
  case searchAgain
  /// Ctrl-L: draw the whole screen again.
  case redraw
  /// Esc, Ctrl-C or Ctrl-D.
  case quit
}

/// Turns the bytes a terminal in raw mode sends into keys.
///
/// Escape sequences (arrows, Page Up/Down, Home/End, Shift-Tab) are recognised in their CSI and
/// SS3 forms; unknown sequences are skipped whole. A lone ESC at the end of a read is the Esc key:
/// terminals send a key's sequence in one write, so an ESC with nothing after it was typed alone.
/// Text is decoded as UTF-8; a multi-byte character split across reads waits for its rest.
struct KeyDecoder {
  private var pending: [UInt8] = []

  /// The keys in `bytes` (with whatever an earlier read left incomplete).
  mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
    pending.append(contentsOf: bytes)
    var keys: [Key] = []
    var text: [UInt8] = []
    var index = 0
    func flushText() {
      if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))) }
      text = []
    }
    func key(_ key: Key) {
      flushText()
      keys.append(key)
    }
    while index < pending.count {
      let byte = pending[index]
      switch byte {
      case 0x1B:
        flushText()
        switch Self.escapeSequence(pending[index...]) {
        case .incomplete:
          pending.removeFirst(index)  // wait for the rest
          return keys
        case .complete(let key, let length):
          if let key { keys.append(key) }
          index += length
        }
        continue
      case 0x03, 0x04: key(.quit)
      case 0x7F, 0x08: key(.backspace)
      case 0x09: key(.tab)
      case 0x0C: key(.redraw)
      case 0x12: key(.searchAgain)
      case 0x15: key(.eraseLine)
      case 0x17: key(.eraseWord)
      case 0x00..<0x20: break  // other control keys (Enter among them) do nothing
      default:
        let length = Self.utf8Length(byte)
        guard index + length <= pending.count else {
          flushText()
          pending.removeFirst(index)
          return keys
        }
        text.append(contentsOf: pending[index..<index + length])
        index += length
        continue
      }
      index += 1
    }
    flushText()
    pending.removeAll()
    return keys
  }

  /// An escape sequence at the start of the pending bytes.
  private enum EscapeSequence {
    /// `length` bytes that mean `key` (`nil`: a sequence the app ignores).
    case complete(Key?, length: Int)
    /// The sequence goes on in bytes not read yet.
    case incomplete
  }

  private static func escapeSequence(_ bytes: ArraySlice<UInt8>) -> EscapeSequence {
    let start = bytes.startIndex
    guard bytes.count >= 2 else { return .complete(.quit, length: 1) }  // a lone ESC
    let kind = bytes[start + 1]
    if kind == 0x4F {  // SS3: ESC O x
      guard bytes.count >= 3 else { return .incomplete }
      return .complete(ss3Key(bytes[start + 2]), length: 3)
    }
    guard kind == 0x5B else { return .complete(nil, length: 2) }  // Alt+key: ignored
    // CSI: parameters and intermediates, then a final byte in 0x40...0x7E.
    var end = start + 2
    while end < bytes.endIndex, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
    guard end < bytes.endIndex else { return .incomplete }
    let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
    return .complete(csiKey(final: bytes[end], parameters: parameters), length: end - start + 1)
  }

  private static func ss3Key(_ final: UInt8) -> Key? {
    switch final {
    case 0x41: .up
    case 0x42: .down
    case 0x48: .home
    case 0x46: .end
    default: nil
    }
  }

  private static func csiKey(final: UInt8, parameters: String) -> Key? {
    switch (final, parameters) {
    case (0x41, _): .up
    case (0x42, _): .down
    case (0x48, _), (0x7E, "1"), (0x7E, "7"): .home
    case (0x46, _), (0x7E, "4"), (0x7E, "8"): .end
    case (0x7E, "5"): .pageUp
    case (0x7E, "6"): .pageDown
    case (0x5A, _): .backTab
    default: nil
    }
  }

  private static func utf8Length(_ lead: UInt8) -> Int {
    switch lead {
    case 0xF0...0xF7: 4
    case 0xE0...0xEF: 3
    case 0xC0...0xDF: 2
    default: 1  // ASCII, or a stray continuation byte (decoded as U+FFFD)
    }
  }
}
