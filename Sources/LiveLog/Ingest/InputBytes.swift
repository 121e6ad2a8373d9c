import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The bytes of an input: an array, or a read-only memory map of a file.
///
/// A mapped input costs page cache, which the kernel fills as the input is read and can reclaim
/// when memory is short, instead of anonymous memory the size of the input (twice over while
/// `Data` was copied into an array). Standard input that is not a regular file (a pipe, a
/// terminal) is first copied to an unlinked temporary file and mapped from there, so that an
/// ingest can check all of it before committing anything and then read it again.
///
/// Unchecked `Sendable`: the mapping is read-only and never changes until `deinit` unmaps it.
final class InputBytes: @unchecked Sendable {
  private enum Storage {
    case array([UInt8])
    case mapped(UnsafeRawPointer, count: Int)
  }

  private let storage: Storage

  init(_ bytes: [UInt8]) { storage = .array(bytes) }

  private init(mapping base: UnsafeRawPointer, count: Int) { storage = .mapped(base, count: count) }

  deinit {
    if case .mapped(let base, let count) = storage { munmap(UnsafeMutableRawPointer(mutating: base), count) }
  }

  var count: Int {
    switch storage {
    case .array(let bytes): bytes.count
    case .mapped(_, let count): count
    }
  }

  func withUnsafeBufferPointer<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
    switch storage {
    case .array(let bytes): try bytes.withUnsafeBufferPointer(body)
    case .mapped(let base, let count):
      try body(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
    }
  }

  /// The file at `path`, mapped.
  static func mapping(path: String) throws(InputError) -> InputBytes {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw InputError(
        source: path, message: "cannot be opened: \(errnoText()) (check the path and its permissions)")
    }
    defer { close(descriptor) }
    return try mapping(descriptor, source: path)
  }

  /// Standard input to its end: mapped when it is a regular file read from its start, else
  /// copied to a temporary file first.
  static func standardInput() throws(InputError) -> InputBytes {
    var status = stat()
    if fstat(STDIN_FILENO, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
      lseek(STDIN_FILENO, 0, SEEK_CUR) == 0
    {
      return try mapping(STDIN_FILENO, source: "-")
    }
    let directory = NSTemporaryDirectory()
    var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
    template.append(contentsOf: Array("livelog-stdin-XXXXXX".utf8CString))
    let descriptor = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
    guard descriptor >= 0 else {
      throw InputError(
        source: "-",
        message: "cannot make a temporary file in \(directory) to hold standard input: \(errnoText()) "
          + "(set TMPDIR to a writable directory)")
    }
    // Unlinked at once: the file goes away with the descriptor and the mapping, on every exit.
    template.withUnsafeBufferPointer { name in _ = name.baseAddress.map { unlink($0) } }
    defer { close(descriptor) }
    try forEachChunk(of: STDIN_FILENO, source: "-") { (chunk: UnsafeRawBufferPointer) throws(InputError) in
      var written = 0
      while written < chunk.count {
        let result = write(descriptor, chunk.baseAddress.map { $0 + written }, chunk.count - written)
        if result < 0 {
          if errno == EINTR { continue }
          throw InputError(
            source: "-",
            message: "cannot copy standard input to a temporary file in \(directory): \(errnoText()) "
              + "(set TMPDIR to a directory with room for the whole input)")
        }
        written += result
      }
    }
    return try mapping(descriptor, source: "-")
  }

  private static func mapping(_ descriptor: Int32, source: String) throws(InputError) -> InputBytes {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw InputError(source: source, message: "cannot be read: \(errnoText())")
    }
    guard (status.st_mode & S_IFMT) != S_IFDIR else {
      throw InputError(source: source, message: "is a directory, not a file")
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      // A FIFO or a device given by name: read it whole, as it cannot be mapped.
      return InputBytes(try readWhole(descriptor, source: source))
    }
    let size = Int(status.st_size)
    // mmap refuses a length of 0; an empty file is an empty input.
    guard size > 0 else { return InputBytes([]) }
    let failed = UnsafeMutableRawPointer(bitPattern: -1)
    guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != failed else {
      throw InputError(source: source, message: "cannot be mapped into memory: \(errnoText())")
    }
    return InputBytes(mapping: UnsafeRawPointer(address), count: size)
  }

  private static func readWhole(_ descriptor: Int32, source: String) throws(InputError) -> [UInt8] {
    var bytes: [UInt8] = []
    try forEachChunk(of: descriptor, source: source) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// Calls `body` with each chunk read from `descriptor` until its end.
  private static func forEachChunk(
    of descriptor: Int32, source: String, _ body: (UnsafeRawBufferPointer) throws(InputError) -> Void
  ) throws(InputError) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
    defer { buffer.deallocate() }
    while true {
      let got = read(descriptor, buffer.baseAddress, buffer.count)
      if got == 0 { return }
      if got < 0 {
        if errno == EINTR { continue }
        throw InputError(source: source, message: "cannot be read: \(errnoText())")
      }
      try body(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
    }
  }

  private static func errnoText() -> String { String(cString: strerror(errno)) }
}
