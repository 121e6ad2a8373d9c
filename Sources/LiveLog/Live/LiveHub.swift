import Changesets
import Dispatch
import Foundation
import LMDB
import Synchronization

/// Keeps a store's live queries up to date, one commit at a time, in commit order.
///
/// The hub follows the log: commits of this process wake it at once (it observes the environment's
/// commits, whichever `Store` value made them), and a timer notices commits of other processes
/// (every `pollInterval`). Each commit's records are decoded once and offered
/// to every live query of their collection, which tests only those records. All of this happens
/// on one serial queue, so live queries need no locks and changes arrive in commit order.
final class LiveHub: CommitObserver, @unchecked Sendable {
  // @unchecked: `subscriptions` and `timer` are touched only on `queue`; `store` is a weak
  // reference behind a lock.

  /// How often the hub looks for commits made by other processes.
  static let pollInterval: DispatchTimeInterval = .milliseconds(10)

  private let queue = DispatchQueue(label: "LiveLog.LiveHub", qos: .userInitiated)
  private let owner = Mutex<WeakStore>(WeakStore())
  private var subscriptions: [UInt64: Subscription] = [:]
  private var timer: (any DispatchSourceTimer)?
  /// When `advance` first failed for want of a reader slot, while it keeps failing so.
  private var failingSince: DispatchTime?
  private let nextID = Mutex<UInt64>(1)

  /// One live query and where its changes go, whatever its results' element type.
  struct Subscription {
    var live: LiveQuery
    /// Whether the consumer went away.
    let isFinished: @Sendable () -> Bool
    /// Ends the consumer's sequence with an error.
    let fail: @Sendable (any Error) -> Void
    /// Hands the consumer the results after a commit (at a version, read from a log that ended
    /// at a later or the same LSN) and the changeset to them. The history (rows whose record at
    /// the version is in the log) is for a delivery older than the log's end: one commit of
    /// several taken at once.
    let deliver: @Sendable (Changeset, RowList, UInt64, UInt64, StoredCollection, [Row: UInt64]) -> Void
  }

  /// How a subscription starts: its live query and first delivery, made on the hub's queue from
  /// one short read of the store (`nil`: the consumer went away meanwhile).
  typealias Start = @Sendable (Store) throws -> Subscription?

  private struct WeakStore: @unchecked Sendable {
    weak var store: Store?
  }

  func attach(_ store: Store) {
    owner.withLock { $0.store = store }
  }

  /// Starts a subscription; `start` builds it on the hub's queue.
  func subscribe(onFailure fail: @escaping @Sendable (any Error) -> Void, _ start: @escaping Start) -> UInt64
  {
    let id = nextID.withLock { next in
      defer { next += 1 }
      return next
    }
    queue.async {
      self.start(id, start, fail: fail, firstTry: .now())
    }
    return id
  }

  /// How long the hub waits for a reader slot (LMDB's reader table full, shared by every process)
  /// before it fails the subscriptions that need one.
  static let readerWait: DispatchTimeInterval = .seconds(2)

  /// Whether `error` is one that passes: a full reader table, before `readerWait` has passed since
  /// `firstTry`.
  private static func isWorthRetrying(_ error: any Error, since firstTry: DispatchTime) -> Bool {
    guard let error = error as? LMDBError, error.isReadersFull else { return false }
    return DispatchTime.now() < firstTry + readerWait
  }

  private func start(
    _ id: UInt64, _ start: @escaping Start, fail: @escaping @Sendable (any Error) -> Void,
    firstTry: DispatchTime
  ) {
    guard let store = owner.withLock({ $0.store }) else {
      return fail(StoreError.corruptState(reason: "the store of a live query is gone"))
    }
    do {
      // The first view is read in one short read inside `start`. A snapshot taken here for it
      // stayed open through `advance()` below: with many subscriptions starting while commits
      // landed, it kept hundreds of commits' pages from reuse (Docs/Reliability.md, the soak).
      guard let subscription = try start(store) else { return }
      subscriptions[id] = subscription
      startTimer()
      advance()
    } catch  where Self.isWorthRetrying(error, since: firstTry) {
      queue.asyncAfter(deadline: .now() + LiveHub.pollInterval) {
        self.start(id, start, fail: fail, firstTry: firstTry)
      }
    } catch {
      // The subscription cannot start: the consumer gets the error.
      fail(error)
    }
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
  func environmentDidCommit() {
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
      let wanted = Set(subscriptions.values.map(\.live.collection))
      // One short read: the deliveries read through version views, so no reader is held while
      // the live queries work (a held reader keeps LMDB from reusing pages: the file would grow
      // by what every commit meanwhile writes).
      let (batches, current, catalog) = try store.readState { read in
        let batches = read.current > oldest ? try read.commits(after: oldest, collections: wanted) : []
        return (batches, read.current, read.catalog)
      }
      guard let newest = batches.last?.lastLSN else { return }
      for id in subscriptions.keys {
        guard var subscription = subscriptions[id] else { continue }
        guard let collection = catalog.collection(named: subscription.live.collection) else { continue }
        var composed: Changeset?
        var parts = 0
        let start = (rows: subscription.live.visibleRows, version: subscription.live.version)
        let versions =
          subscription.live.deliversEveryCommit ? batches.versionsAfterEach(of: collection.name) : []
        for (index, batch) in batches.enumerated() where batch.lastLSN > subscription.live.version {
          guard let changeset = try subscription.live.apply(batch) else { continue }
          if subscription.live.deliversEveryCommit {
            // Rows a later commit of this run changed read their version of then from the log.
            let history = versions[index].compactMapValues { $0 }
            subscription.deliver(
              changeset, subscription.live.visibleRows, batch.lastLSN, current, collection, history)
          } else {
            composed = composed.map { $0.composed(with: changeset) } ?? changeset
            parts += 1
          }
        }
        subscriptions[id] = subscription
        if var composed {
          if parts > 1 {
            let before = VersionView(
              version: start.version, collection: collection, store: store, through: current,
              versions: batches.versionsBefore(start.version, of: collection.name))
            let after = VersionView(version: newest, collection: collection, store: store, through: current)
            composed = ExactComposition.exact(
              composed, from: .init(rows: start.rows, view: before),
              to: .init(rows: subscription.live.visibleRows, view: after),
              watching: subscription.live.watchedFields)
          }
          subscription.deliver(composed, subscription.live.visibleRows, newest, current, collection, [:])
        }
      }
      failingSince = nil
    } catch  where Self.isWorthRetrying(error, since: failingSince ?? .now()) {
      // No reader slot now: the timer tries again.
      if failingSince == nil { failingSince = .now() }
    } catch {
      // A damaged log or state, or no reader slot for too long: end every subscription with the
      // error rather than deliver wrong changesets or none.
      failingSince = nil
      for subscription in subscriptions.values { subscription.fail(error) }
      subscriptions.removeAll()
    }
  }
}
