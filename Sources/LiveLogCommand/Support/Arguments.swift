import LiveLog

/// A mistake in how the command was called: exit status 2, with the command's usage.
struct UsageError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// The arguments of one command, consumed as the command reads them.
///
/// Options take their value as the next argument or after `=` (`--limit 10`, `--limit=10`);
/// `--` ends the options. Whatever is left unread at the end is an error, so a misspelled option
/// never passes silently.
struct Arguments {
  private var items: [String]
  private var positionals: [String] = []

  init(_ items: some Sequence<String>) {
    var options: [String] = []
    var afterDashes = false
    for item in items {
      if afterDashes {
        positionals.append(item)
      } else if item == "--" {
        afterDashes = true
      } else {
        options.append(item)
      }
    }
    self.items = options
  }

  /// Whether `--name` is present (removing it).
  mutating func flag(_ names: String...) -> Bool {
    var found = false
    items.removeAll { item in
      let match = names.contains(item)
      if match { found = true }
      return match
    }
    return found
  }

  /// Every value of a repeatable option, in order.
  mutating func values(_ name: String) throws -> [String] {
    var values: [String] = []
    var index = 0
    while index < items.count {
      let item = items[index]
      if item == name {
        guard index + 1 < items.count else { throw UsageError(message: "\(name) needs a value") }
        values.append(items[index + 1])
        items.removeSubrange(index...index + 1)
      } else if item.hasPrefix(name + "=") {
        values.append(String(item.dropFirst(name.count + 1)))
        items.remove(at: index)
      } else {
        index += 1
      }
    }
    return values
  }

  /// The values of several repeatable options, in the order given: `--arg 1 --arg-json '[2]'`
  /// gives `[("--arg", "1"), ("--arg-json", "[2]")]`.
  mutating func interleaved(_ names: [String]) throws -> [(name: String, value: String)] {
    var found: [(name: String, value: String)] = []
    var index = 0
    while index < items.count {
      let item = items[index]
      if let name = names.first(where: { $0 == item }) {
        guard index + 1 < items.count else { throw UsageError(message: "\(name) needs a value") }
        found.append((name, items[index + 1]))
        items.removeSubrange(index...index + 1)
      } else if let name = names.first(where: { item.hasPrefix($0 + "=") }) {
        found.append((name, String(item.dropFirst(name.count + 1))))
        items.remove(at: index)
      } else {
        index += 1
      }
    }
    return found
  }

  /// The value of an option given at most once.
  mutating func value(_ name: String) throws -> String? {
    let all = try values(name)
    guard all.count <= 1 else { throw UsageError(message: "\(name) is given \(all.count) times") }
    return all.first
  }

  /// A whole-number option within `range`.
  mutating func integer<I: FixedWidthInteger>(_ name: String, in range: ClosedRange<I>) throws -> I? {
    guard let text = try value(name) else { return nil }
    guard let number = I(text), range.contains(number) else {
      throw UsageError(
        message:
          "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(ControlEscaping.excerpt(text))'"
      )
    }
    return number
  }

  /// An option whose value is one of `choices`.
  mutating func choice(_ name: String, _ choices: [String]) throws -> String? {
    guard let text = try value(name) else { return nil }
    guard choices.contains(text) else {
      throw UsageError(
        message:
          "\(name) takes one of \(choices.joined(separator: ", ")), not '\(ControlEscaping.excerpt(text))'")
    }
    return text
  }

  /// The remaining arguments, which must not look like options.
  mutating func remaining() throws -> [String] {
    if let option = items.first(where: { $0.hasPrefix("--") || ($0.hasPrefix("-") && $0.count > 1) }) {
      throw UsageError(message: "unknown option \(ControlEscaping.excerpt(option))")
    }
    defer {
      items = []
      positionals = []
    }
    return items + positionals
  }

  /// Fails if anything was not read.
  func finish() throws {
    if let first = (items + positionals).first {
      throw UsageError(
        message: first.hasPrefix("-")
          ? "unknown option \(ControlEscaping.excerpt(first))"
          : "unexpected argument '\(ControlEscaping.excerpt(first))'")
    }
  }
}
