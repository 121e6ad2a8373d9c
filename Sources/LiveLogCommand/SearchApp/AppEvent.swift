import GitHubSearch
import LiveLog

/// Everything the app reacts to, from every source, on one stream: the app handles one event at a
/// time on one task, so its state needs no locks and the screen is written by one writer.
enum AppEvent: Sendable {
  /// Bytes typed (raw mode: keys and escape sequences).
  case input([UInt8])
  /// Standard input ended or failed: the terminal is gone.
  case inputClosed
  /// SIGWINCH: the window changed size.
  case resized
  /// SIGTERM, SIGHUP or SIGINT from outside: quit, restoring the terminal.
  case terminate
  /// A delivery of the live query bound as `generation` (older generations are dropped).
  case results(generation: UInt64, ResultsChange<Repository>)
  /// What the search coordinator says about GitHub.
  case search(SearchEvent)
  /// A highlight may have ended.
  case tick
}
