import LiveLog

/// What every command gets: the store's directory and the buffered output.
struct CommandContext {
  var storePath: String
  var output: Output

  /// Opens the store, read-only when the command only reads.
  func openStore(readOnly: Bool = false, durability: StoreOptions? = nil) throws -> Store {
    var options = durability ?? StoreOptions()
    options.readOnly = readOnly
    return try Store(directory: storePath, options: options)
  }
}

/// A subcommand of `livelog`.
struct Command: Sendable {
  var name: String
  /// One line for `livelog --help`.
  var summary: String
  /// The full help of `livelog NAME --help`.
  var help: String
  var run: @Sendable (inout Arguments, CommandContext) throws -> Int32
}
