import Foundation
import LMDB

/// Every intact event of a data file, found without LMDB: through the log's B-tree from each
/// intact meta page where the tree holds, and by reading every page of the file as a possible
/// leaf where it does not (a damaged branch page hides whole ranges; pages of older states and
/// freed pages hold copies of events too).
///
/// An event is intact when `EventCodec.header(_:lsn:)` accepts its bytes under the LSN of its
/// key: the checksum covers the LSN, so a value found under the wrong key, a damaged value or
/// something that is not an event at all is refused. Copies of one event found in several
/// places are one event. Two different intact events under one LSN (a page of a transaction that
/// never committed) are resolved in favour of the tree; when no tree holds either, the LSN is
/// ambiguous and counts as lost.
struct LogSalvage {
  struct Found {
    var location: TreeWalker.ValueLocation
    var contentChecksum: UInt32
    var endsCommit: Bool
    var fromTree: Bool
  }

  let file: DataFile
  let health: DataFileHealth
  let pageSize: Int
  private(set) var events: [UInt64: Found] = [:]
  private(set) var ambiguous: Set<UInt64> = []
  /// What was read and met, for the report: meta pages, damaged pages of the log's tree.
  private(set) var notes: [String] = []
  /// The log's length by its B-tree record, when an intact meta page leads to it, and whether
  /// that page is the current state's (else later commits may be missing from the count).
  private(set) var expectedLastLSN: UInt64?
  private(set) var lengthIsFinal = false
  private(set) var fromTree = 0
  private(set) var fromScan = 0
  /// Copies found in the scan that differ from the tree's event under the same LSN.
  private(set) var conflicts = 0

  init(path: String) throws {
    do {
      file = try DataFile(path: path)
    } catch {
      throw StoreError.unusablePath(path: path, reason: "it cannot be read (\(error.message))")
    }
    guard let health = try DataFileHealth.examine(path: path) else { throw StoreError.noStore(path: path) }
    self.health = health
    pageSize = health.pageSize ?? 4096
  }

  mutating func collect() {
    let intact = zip(health.metaPages, health.metaDefects).compactMap { $1 == nil ? $0 : nil }
      .sorted { $0.transactionID > $1.transactionID }
    for (slot, defect) in health.metaDefects.enumerated() {
      let transaction = health.metaPages[slot].map { " (transaction \($0.transactionID))" } ?? ""
      notes.append("meta page \(slot)\(transaction): " + (defect.map { "damaged: \($0)" } ?? "intact"))
    }
    if let newest = health.newestIntactMetaPage, UInt64(health.fileSize) < newest.usedBytes {
      let missing = newest.lastPage + 1 - UInt64(health.fileSize / pageSize)
      notes.append(
        "the file is \(health.fileSize.formatted()) bytes long, but meta page \(newest.slot) uses "
          + "\((newest.lastPage + 1).formatted()) pages: it was truncated, and the last \(missing.formatted()) "
          + "pages are lost")
    }
    for meta in intact { walkLog(meta) }
    scanPages()
    for lsn in ambiguous { events[lsn] = nil }
  }

  /// The log's entries through the tree of `meta`.
  private mutating func walkLog(_ meta: MetaPage) {
    let (databases, damage) = NamedDatabases.read(file, meta: meta)
    guard let log = databases.first(where: { $0.name == StoreLayout.log }) else {
      notes.append(
        "transaction \(meta.transactionID): no log database found" + (damage.first.map { " (\($0))" } ?? ""))
      return
    }
    if expectedLastLSN == nil {
      expectedLastLSN = log.record.entries
      lengthIsFinal = health.newestIntactIsCurrent && meta == health.newestIntactMetaPage
      notes.append(
        "the log's record in transaction \(meta.transactionID) counts \(log.record.entries.formatted()) events"
          + (lengthIsFinal
            ? "" : " (this is not the current meta page: later commits may be missing from the count)"))
    }
    let walker = TreeWalker(file: file, pageSize: pageSize, lastPage: meta.lastPage, integerKeys: true)
    var damaged: [String] = []
    var count = 0
    _ = walker.walk(
      root: log.record.root,
      onEntry: { entry in
        guard let lsn = entry.key.count == 8 ? Array(entry.key).littleEndianUInt64 : nil,
          let bytes = entry.inlineValue.map(Array.init) ?? walker.read(entry.value)
        else { return }
        if offer(lsn, entry.value, bytes, fromTree: true) { count += 1 }
      }, onDamage: { damaged.append($0.description) })
    notes.append(
      "the log's B-tree of transaction \(meta.transactionID): \(count.formatted()) new intact events, "
        + (damaged.isEmpty
          ? "no damaged page"
          : "\(damaged.count) damaged pages (\(damaged.prefix(3).joined(separator: "; ")))"))
  }

  /// Every page of the file read for nodes of the log (8-byte keys, the LSNs).
  private mutating func scanPages() {
    let scan = RawPageScan(file: file, pageSize: pageSize)
    let walker = TreeWalker(
      file: file, pageSize: pageSize, lastPage: file.pageCount(pageSize: pageSize), integerKeys: true)
    var count = 0
    scan.forEachNode(keySize: 8) { found in
      guard let lsn = Array(found.key).littleEndianUInt64, lsn >= 1 else { return }
      if let known = events[lsn], known.fromTree { return }
      guard let bytes = found.inlineValue.map(Array.init) ?? walker.read(found.value) else { return }
      if offer(lsn, found.value, bytes, fromTree: false) { count += 1 }
    }
    fromScan = count
    notes.append(
      "the scan of all \(file.pageCount(pageSize: pageSize).formatted()) pages: \(count.formatted()) more intact events"
    )
  }

  /// Takes `bytes` as event `lsn` if it is intact; returns whether it was new.
  private mutating func offer(
    _ lsn: UInt64, _ location: TreeWalker.ValueLocation, _ bytes: [UInt8], fromTree: Bool
  )
    -> Bool
  {
    guard lsn >= 1, let header = bytes.withUnsafeBytes({ try? EventCodec.header($0, lsn: lsn) }) else {
      return false
    }
    let found = Found(
      location: location, contentChecksum: bytes.withUnsafeBytes { CRC32C.checksum($0) },
      endsCommit: header.endsCommit, fromTree: fromTree)
    if let known = events[lsn] {
      guard known.contentChecksum != found.contentChecksum else { return false }
      if known.fromTree {
        conflicts += 1
      } else if fromTree {
        events[lsn] = found
        if fromTree { self.fromTree += 1 }
      } else {
        ambiguous.insert(lsn)
      }
      return false
    }
    guard !ambiguous.contains(lsn) else { return false }
    events[lsn] = found
    if fromTree { self.fromTree += 1 }
    return true
  }

  /// The bytes of a found event, read again (the salvage keeps locations, not bytes).
  func bytes(of lsn: UInt64) -> [UInt8]? {
    guard let found = events[lsn] else { return nil }
    let walker = TreeWalker(
      file: file, pageSize: pageSize, lastPage: file.pageCount(pageSize: pageSize), integerKeys: true)
    return walker.read(found.location)
  }
}

extension [UInt8] {
  /// The bytes as a little-endian (native on the machines LMDB files here come from) UInt64.
  fileprivate var littleEndianUInt64: UInt64? {
    guard count == 8 else { return nil }
    return self.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
  }
}
