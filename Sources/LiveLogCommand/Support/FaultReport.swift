import Foundation
import LMDB

#if canImport(Glibc)
  import Glibc
#endif

/// Turns a fault met while reading a damaged store into a report and exit status 1, instead of
/// a death by signal.
///
/// LMDB trusts the pages it maps: a damaged page can send it past the end of a page or of the
/// file (SIGSEGV, or SIGBUS past the end of a truncated file), or fail one of its assertions
/// (`Assertion 'IS_LEAF(mp)' failed`, then `abort`). The file's size and meta pages are checked
/// before LMDB maps it (`DataFileHealth`) and `verify` walks every page without LMDB
/// (`StructureCheck`); this is for what is left: a fault at an address inside (or just past) a
/// mapping of a `data.mdb` is reported as damage, and the process exits 1. A fault anywhere else
/// is a bug and still kills the process, as it should.
enum FaultReport {
  /// What to do about a damaged data file.
  static func nextSteps(_ store: String) -> String {
    "Nothing was changed. `livelog --store \(store) verify` describes the damage; `livelog --store "
      + "\(store) salvage --into NEW` rebuilds a store in NEW from every intact event of the log."
  }

  /// The message of an error, with what to do when it is a damaged page LMDB met (not a fault,
  /// an error it returned).
  static func message(_ error: any Error, storePath: String) -> String {
    guard let error = error as? LMDBError, error.isDamagedPage else { return "\(error)" }
    let store = TerminalSafe.escaped(storePath)
    return "\(store)/data.mdb is damaged: \(error). \(nextSteps(store))"
  }

  /// Installs the handlers for a command on the store at `storePath`.
  static func install(storePath: String) {
    let store = TerminalSafe.escaped(storePath)
    let next = nextSteps(store) + "\n"
    LMDBAssertion.setHandler { text in
      printError(
        "error: \(store)/data.mdb is damaged: LMDB's own check failed while reading it (\(text)). \(next)")
      _exit(1)
    }
    prefix = strdup("error: \(store)/data.mdb is damaged: reading it faulted at byte ")
    suffix = strdup(
      " of the file (LMDB followed a damaged page, or the file is shorter than its pages). \(next)")
    maps = UnsafeMutablePointer<UInt8>.allocate(capacity: mapsCapacity)
    let stackSize = 1 << 16
    var stack = stack_t()
    stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: stackSize, alignment: 16)
    stack.ss_size = stackSize
    sigaltstack(&stack, nil)
    var action = sigaction()
    action.__sigaction_handler.sa_sigaction = handler
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | Int32(bitPattern: UInt32(SA_RESETHAND))
    sigemptyset(&action.sa_mask)
    sigaction(SIGSEGV, &action, nil)
    sigaction(SIGBUS, &action, nil)
  }
}

// What the handler needs, made before any fault: it may only call async-signal-safe functions
// (open, read, write, _exit) and must not allocate.
nonisolated(unsafe) private var prefix: UnsafeMutablePointer<CChar>?
nonisolated(unsafe) private var suffix: UnsafeMutablePointer<CChar>?
nonisolated(unsafe) private var maps: UnsafeMutablePointer<UInt8>?
private let mapsCapacity = 1 << 18
/// How far past the end of a mapping a fault still counts as a read of it: a damaged node size or
/// offset reaches at most a few pages past.
private let slack: UInt = 64 << 20

private let handler:
  @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
    _, info, _ in
    guard let info, let prefix, let suffix, let maps else { return }
    let address = UInt(bitPattern: info.pointee._sifields._sigfault.si_addr)
    // Returning after SA_RESETHAND repeats the fault under the default action: a bug stays a crash.
    guard let offset = dataFileOffset(of: address, maps: maps) else { return }
    _ = write(2, prefix, strlen(prefix))
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
      guard let base = buffer.baseAddress else { return }
      var value = offset
      var index = 24
      repeat {
        index &-= 1
        base[index] = UInt8(truncatingIfNeeded: 0x30 &+ value % 10)
        value /= 10
      } while value > 0 && index > 0
      _ = write(2, base + index, 24 &- index)
    }
    _ = write(2, suffix, strlen(suffix))
    _exit(1)
  }

/// The offset in its file of `address`, when it lies in (or within `slack` past) a mapping of a
/// file named `data.mdb`, read from /proc/self/maps ("start-end perms offset dev inode path").
private func dataFileOffset(of address: UInt, maps: UnsafeMutablePointer<UInt8>) -> UInt? {
  let descriptor = open("/proc/self/maps", O_RDONLY)
  guard descriptor >= 0 else { return nil }
  var total = 0
  while total < mapsCapacity {
    let count = read(descriptor, maps + total, mapsCapacity &- total)
    if count <= 0 { break }
    total &+= count
  }
  close(descriptor)
  var cursor = MapsCursor(bytes: maps, count: total)
  while cursor.index < total {
    let start = cursor.hex()
    cursor.index &+= 1  // '-'
    let end = cursor.hex()
    cursor.skipField()  // the rest of the range, then the permissions
    cursor.skipField()
    let fileOffset = cursor.hex()
    cursor.skipField()
    cursor.skipField()  // device
    cursor.skipField()  // inode
    let pathStart = cursor.index
    cursor.skipLine()
    if address >= start, address < end &+ slack, cursor.names(dataFileIn: pathStart) {
      return fileOffset &+ (address &- start)
    }
  }
  return nil
}

/// A reader of /proc/self/maps that allocates nothing (it runs in a signal handler).
private struct MapsCursor {
  let bytes: UnsafeMutablePointer<UInt8>
  let count: Int
  var index = 0
  /// Where the current line ends (set by `skipLine`).
  var lineEnd = 0

  init(bytes: UnsafeMutablePointer<UInt8>, count: Int) {
    self.bytes = bytes
    self.count = count
  }

  mutating func hex() -> UInt {
    var value: UInt = 0
    while index < count {
      let byte = bytes[index]
      let digit: UInt
      switch byte {
      case 0x30...0x39: digit = UInt(byte &- 0x30)
      case 0x61...0x66: digit = UInt(byte &- 0x61 &+ 10)
      default: return value
      }
      value = value &* 16 &+ digit
      index &+= 1
    }
    return value
  }

  mutating func skipField() {
    while index < count && bytes[index] != 0x20 && bytes[index] != 0x0A { index &+= 1 }
    while index < count && bytes[index] == 0x20 { index &+= 1 }
  }

  mutating func skipLine() {
    while index < count && bytes[index] != 0x0A { index &+= 1 }
    lineEnd = index
    index &+= 1
  }

  /// Whether the line's path, from `start` to `lineEnd`, contains "/data.mdb" (it may end in
  /// " (deleted)").
  func names(dataFileIn start: Int) -> Bool {
    let name: StaticString = "/data.mdb"
    let length = name.utf8CodeUnitCount
    var position = start
    while position &+ length <= lineEnd {
      var same = true
      for offset in 0..<length where bytes[position &+ offset] != name.utf8Start[offset] {
        same = false
        break
      }
      if same { return true }
      position &+= 1
    }
    return false
  }
}
