/// What one commit did.
public struct CommitSummary: Sendable, Hashable {
  /// The LSN of the commit's first event, or `nil` when nothing changed (no event was written).
  public var firstLSN: UInt64?
  /// The LSN of the commit's last event: the store's new version. `nil` when nothing changed.
  public var lastLSN: UInt64?
  /// Repositories that were not in the store.
  public var inserted = 0
  /// Repositories whose stored content changed.
  public var updated = 0
  /// Upserts identical to the stored repository, and deletes of ids not in the store: no event.
  public var unchanged = 0
  /// Repositories removed.
  public var deleted = 0
  /// Commits that appended events: 1 or 0 for one commit, more for accumulated summaries.
  public var commits = 0

  public init() {}

  /// Events the commit appended.
  public var events: Int { inserted + updated + deleted }

  /// Adds another commit's counts, keeping the widest LSN range: commits of concurrent writers
  /// may be accumulated in any order.
  public mutating func accumulate(_ other: CommitSummary) {
    if let first = other.firstLSN { firstLSN = min(firstLSN ?? first, first) }
    if let last = other.lastLSN { lastLSN = max(lastLSN ?? last, last) }
    inserted += other.inserted
    updated += other.updated
    unchanged += other.unchanged
    deleted += other.deleted
    commits += other.commits
  }
}
