import CLMDB

/// How hard a commit works to survive a crash of the operating system or a power loss.
///
/// A crash of the *process* (`kill -9`, a trap) never loses a committed write in any mode: LMDB has
/// handed the pages to the kernel before `commit` returns. The modes differ only when the machine
/// itself goes down before the kernel has written its cache to the disk.
public enum Durability: Sendable, Hashable, CustomStringConvertible {
  /// Flushes data and metadata to the disk (`fsync`) at every commit. When `commit` returns the
  /// write survives a power loss. The default; costs one or two disk flushes per commit.
  case durable

  /// Flushes data at every commit but not the metadata page (`MDB_NOMETASYNC`).
  ///
  /// **Risk:** after an operating-system crash or power loss the *last* commit may be lost; the
  /// database stays consistent (LMDB falls back to the previous metadata page). The next durable
  /// commit or `Environment.sync()` makes everything before it durable again.
  case noMetaSync

  /// Never flushes at commit (`MDB_NOSYNC`); the kernel writes pages back when it likes.
  ///
  /// **Risk:** after an operating-system crash or power loss, any number of recent commits may be
  /// lost, and on file systems that reorder writes the database itself may be corrupted. Use it for
  /// bulk loads that can be redone, and call `Environment.sync()` when the load is done.
  case noSync

  /// Orders the modes from the least to the most durable.
  var strictness: Int {
    switch self {
    case .noSync: 0
    case .noMetaSync: 1
    case .durable: 2
    }
  }

  var environmentFlags: UInt32 {
    switch self {
    case .durable: 0
    case .noMetaSync: UInt32(MDB_NOMETASYNC)
    case .noSync: UInt32(MDB_NOSYNC)
    }
  }

  public var description: String {
    switch self {
    case .durable: "durable"
    case .noMetaSync: "no-meta-sync"
    case .noSync: "no-sync"
    }
  }
}
