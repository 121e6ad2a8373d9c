/// Why a store could not be opened, read or written.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The directory exists but is not a LiveLog store; nothing was changed in it.
  case notAStore(path: String, reason: String)
  /// The store was written by a newer LiveLog whose format this build cannot read.
  case unsupportedFormat(path: String, found: Int, supported: Int)
  /// The store is open read-only (or its files are not writable) and a write was attempted.
  case readOnly(path: String)
  /// An event of the log failed its checks.
  case corruptEvent(lsn: UInt64, reason: String)
  /// A stored record or index entry failed its checks.
  case corruptState(reason: String)
  /// An LSN outside the log was asked for.
  case lsnOutOfRange(requested: UInt64, version: UInt64)

  public var description: String {
    switch self {
    case .notAStore(let path, let reason):
      "\(path) is not a LiveLog store: \(reason). Nothing in it was changed; give an empty or new directory"
    case .unsupportedFormat(let path, let found, let supported):
      "\(path) holds a store of format \(found), written by a newer LiveLog; this build reads format "
        + "\(supported) and older. Nothing was changed; open it with a newer livelog"
    case .readOnly(let path):
      "\(path) is open read-only: writes need write access to the store directory"
    case .corruptEvent(let lsn, let reason):
      "event \(lsn) of the log is corrupt: \(reason). Restore from a backup or an export"
    case .corruptState(let reason):
      "the materialized state is corrupt: \(reason). Rebuild it from the log with `livelog replay --in-place`"
    case .lsnOutOfRange(let requested, let version):
      "LSN \(requested) is outside the log, which ends at \(version)"
    }
  }
}
