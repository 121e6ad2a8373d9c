/// What a salvage found, lost and rebuilt.
public struct SalvageReport: Sendable {
  /// The data file read.
  public var source: String
  public var pageSize: Int
  public var pages: UInt64
  /// What was read and met: each meta page, the log's tree, the page scan.
  public var notes: [String]
  /// Events found through the log's B-tree, and only by the page scan.
  public var fromTree: Int
  public var fromScan: Int
  /// The log's length by the newest intact meta page's record of it, when there is one, and
  /// whether that meta page is the current state's (else later commits may be missing).
  public var expectedLastLSN: UInt64?
  public var lengthIsFinal: Bool
  /// Intact events found, and LSNs of the log that were not (up to the log's length, or to the
  /// highest LSN found).
  public var recovered: LSNRanges
  public var lost: LSNRanges
  /// LSNs under which two different intact events were found and no tree tells which is the
  /// log's; counted as lost.
  public var ambiguous: [UInt64]
  /// The events the new store holds: the whole commits from LSN 1 up to the first gap.
  public var applied: LSNRanges
  /// Events found after the first gap, which the new store does not hold (each later event may
  /// replace a version in the gap), and the files they were written to, one per run of LSNs.
  public var unapplied: LSNRanges
  public var unappliedFiles: [String]
  /// The new store, its records (in every collection) and digest.
  public var target: String
  public var records: Int
  public var digest: StateDigest

  /// Whether every event of the log is in the new store: nothing lost or left out, and the log's
  /// length known (from an intact meta page's record of the log), so that no lost tail can hide.
  public var isComplete: Bool {
    lost.isEmpty && unapplied.isEmpty && ambiguous.isEmpty && lengthIsFinal
  }
}
