#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An LMDB data file read with `pread`, never mapped: a page past the end of a truncated file
/// reads as missing instead of killing the process with SIGBUS.
public final class DataFile: @unchecked Sendable {
  // @unchecked: `descriptor` is only read with pread, which is safe from any thread.
  private let descriptor: Int32
  public let path: String
  /// Size of the file in bytes when it was opened.
  public let size: Int

  /// Opens `path` for reading; throws the `errno` of `open` or `fstat`.
  public init(path: String) throws(LMDBError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw LMDBError(code: errno, operation: "open(\(path))") }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      close(descriptor)
      throw LMDBError(code: code, operation: "fstat(\(path))")
    }
    self.descriptor = descriptor
    self.path = path
    size = Int(status.st_size)
  }

  deinit { close(descriptor) }

  /// Up to `count` bytes from `offset`; fewer at the end of the file, none past it.
  public func read(offset: Int, count: Int) -> [UInt8] {
    guard offset >= 0, count > 0, offset < size else { return [] }
    let wanted = Swift.min(count, size - offset)
    var bytes = [UInt8](repeating: 0, count: wanted)
    var done = 0
    while done < wanted {
      let got = bytes.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return pread(descriptor, base + done, wanted - done, off_t(offset + done))
      }
      if got < 0 && errno == EINTR { continue }
      if got <= 0 { break }
      done += got
    }
    if done < wanted { bytes.removeLast(wanted - done) }
    return bytes
  }

  /// Page `number` of `pageSize` bytes, or nil when the file does not hold all of it.
  public func page(_ number: UInt64, pageSize: Int) -> [UInt8]? {
    guard number < UInt64(Int.max / pageSize) else { return nil }
    let bytes = read(offset: Int(number) * pageSize, count: pageSize)
    return bytes.count == pageSize ? bytes : nil
  }

  /// Pages in the file, whole or not.
  public func pageCount(pageSize: Int) -> UInt64 { UInt64((size + pageSize - 1) / pageSize) }

  /// Both meta pages as they read. The second one lies one page size in, which comes from the
  /// first; when the first is unreadable, each plausible page size is tried for a page that
  /// reads as meta page 1.
  public func metaPages() -> (first: MetaPage?, second: MetaPage?) {
    let first = MetaPage(read(offset: 0, count: MetaPage.byteCount), slot: 0)
    if let first, PageFormat.isPlausiblePageSize(first.pageSize) {
      let second = MetaPage(read(offset: first.pageSize, count: MetaPage.byteCount), slot: 1)
      if second?.defect == nil || first.defect == nil { return (first, second) }
    }
    for shift in 9...16 {
      let size = 1 << shift
      if let second = MetaPage(read(offset: size, count: MetaPage.byteCount), slot: 1),
        second.defect == nil, second.pageSize == size
      {
        return (first, second)
      }
    }
    let fallback = first.flatMap { PageFormat.isPlausiblePageSize($0.pageSize) ? $0.pageSize : nil } ?? 4096
    return (first, MetaPage(read(offset: fallback, count: MetaPage.byteCount), slot: 1))
  }
}
