import Changesets
import Dispatch
import Foundation
import LMDB
import Synchronization

/// Keeps a store's live queries up to date, one commit at a time, in commit order.
///
/// The hub follows the log: commits of this process wake it at once, and a timer notices commits
/// of other processes (every `pollInterval`). Each commit's records are decoded once and offered
/// to every live query of their collection, which tests only those records. All of this happens
/// on one serial queue, so live queries need no locks and changes arrive in commit order.
final class LiveHub: @unchecked Sendable {
  // @unchecked: `subscriptions` and `timer` are touched only on `queue`; `store` is a weak
  // reference behind a lock.

  /// How often the hub looks for commits made by other processes.
  static let pollInterval: DispatchTimeInterval = .milliseconds(10)

  private let queue = DispatchQueue(label: "LiveLog.LiveHub", qos: .userInitiated)
  private let owner = Mutex<WeakStore>(WeakStore())
  private var subscriptions: [UInt64: Subscription] = [:]
  private var timer: (any DispatchSourceTimer)?
  private let nextID = Mutex<UInt64>(1)

  /// One live query and where its changes go, whatever its results' element type.
  struct Subscription {
    var live: LiveQuery
    /// Whether the consumer went away.
    let isFinished: @Sendable () -> Bool
    /// Ends the consumer's sequence.
    let finish: @Sendable () -> Void
    /// Hands the consumer the results after a commit and the changeset to them.
    /// The history (rows whose record at the version is in the log) is for a delivery older than
    /// the snapshot: one commit of several taken at once.
    let deliver: @Sendable (Changeset, RowList, UInt64, Snapshot, StoredCollection, [Row: UInt64]) -> Void
  }

  /// How a subscription starts: its live query and first delivery, made on the hub's queue from
  /// a snapshot and the catalog it sees (`nil`: the collection does not exist yet).
  typealias Start = @Sendable (Snapshot, CatalogState, UInt64) throws -> Subscription?

  private struct WeakStore: @unchecked Sendable {
    weak var store: Store?
  }

  func attach(_ store: Store) {
    owner.withLock { $0.store = store }
  }

  /// Starts a subscription; `start` builds it on the hub's queue.
  func subscribe(onFailure finish: @escaping @Sendable () -> Void, _ start: @escaping Start) -> UInt64 {
    let id = nextID.withLock { next in
      defer { next += 1 }
      return next
    }
    queue.async {
      guard let store = self.owner.withLock({ $0.store }) else { return finish() }
      do {
        let (snapshot, catalog) = try store.makeSnapshot()
        let current = try snapshot.read { try store.log.lastLSN($0) }
        guard let subscription = try start(snapshot, catalog, current) else { return }
        self.subscriptions[id] = subscription
        self.startTimer()
        self.advance()
      } catch {
        // The subscription cannot start: end it; the consumer sees the sequence finish.
        finish()
      }
    }
    return id
  }

  func unsubscribe(_ id: UInt64) {
    queue.async {
      self.subscriptions[id] = nil
      if self.subscriptions.isEmpty {
        self.timer?.cancel()
        self.timer = nil
      }
    }
  }

  /// A commit happened in this process: look at the log now.
  func wake() {
    queue.async { self.advance() }
  }

  /// Returns once every live query has taken every commit up to the store's version now.
  func catchUp() {
    queue.sync { advance() }
  }

  // MARK: On the queue

  private func startTimer() {
    guard timer == nil else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + LiveHub.pollInterval, repeating: LiveHub.pollInterval)
    timer.setEventHandler { [weak self] in self?.advance() }
    timer.resume()
    self.timer = timer
  }

  /// Brings every live query to the store's version.
  private func advance() {
    guard !subscriptions.isEmpty, let store = owner.withLock({ $0.store }) else { return }
    for (id, subscription) in subscriptions where subscription.isFinished() { subscriptions[id] = nil }
    guard let oldest = subscriptions.values.map(\.live.version).min() else { return }
    do {
      let (snapshot, catalog) = try store.makeSnapshot()
      let wanted = Set(subscriptions.values.map(\.live.collection))
      let batches = try snapshot.read { txn -> [CommittedBatch] in
        let current = try store.log.lastLSN(txn)
        guard current > oldest else { return [] }
        return try store.log.commits(
          after: oldest, through: current, catalog: catalog, collections: wanted, txn)
      }
      guard let newest = batches.last?.lastLSN else { return }
      for id in subscriptions.keys {
        guard var subscription = subscriptions[id] else { continue }
        guard let collection = catalog.collection(named: subscription.live.collection) else { continue }
        var composed: Changeset?
        let versions =
          subscription.live.deliversEveryCommit ? batches.versionsAfterEach(of: collection.name) : []
        for (index, batch) in batches.enumerated() where batch.lastLSN > subscription.live.version {
          guard let changeset = try subscription.live.apply(batch) else { continue }
          if subscription.live.deliversEveryCommit {
            // Rows a later commit of this run changed read their version of then from the log.
            let history = versions[index].compactMapValues { $0 }
            subscription.deliver(
              changeset, subscription.live.visibleRows, batch.lastLSN, snapshot, collection, history)
          } else {
            composed = composed.map { $0.composed(with: changeset) } ?? changeset
          }
        }
        subscriptions[id] = subscription
        if let composed {
          subscription.deliver(composed, subscription.live.visibleRows, newest, snapshot, collection, [:])
        }
      }
    } catch {
      // A damaged log or state: end every subscription rather than deliver wrong changesets.
      for subscription in subscriptions.values { subscription.finish() }
      subscriptions.removeAll()
    }
  }
}
