import Changesets
import Dispatch
import Foundation
import LMDB
import Synchronization

/// Keeps a store's live queries up to date, one commit at a time, in commit order.
///
/// The hub follows the log: commits of this process wake it at once, and a timer notices commits
/// of other processes (every `pollInterval`). Each commit's records are decoded once and offered
/// to every live query, which tests only those records. All of this happens on one serial queue,
/// so live queries need no locks and changes arrive in commit order.
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

  private struct Subscription {
    var live: LiveQuery
    let channel: ChangeChannel
    /// Called after each delivery (the callback pump), if any.
    let notify: (@Sendable () -> Void)?
  }

  private struct WeakStore: @unchecked Sendable {
    weak var store: Store?
  }

  func attach(_ store: Store) {
    owner.withLock { $0.store = store }
  }

  /// Starts a live query. Its first delivery is the result at `since` (an LSN of the past) or
  /// now, then one update per commit after it, caught up from the log.
  func subscribe(
    query: Query, watching keyPaths: [Field]?, since: UInt64?, channel: ChangeChannel,
    notify: (@Sendable () -> Void)?
  ) -> UInt64 {
    let id = nextID.withLock { next in
      defer { next += 1 }
      return next
    }
    queue.async {
      self.start(id, query: query, keyPaths: keyPaths, since: since, channel: channel, notify: notify)
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

  private func start(
    _ id: UInt64, query: Query, keyPaths: [Field]?, since: UInt64?, channel: ChangeChannel,
    notify: (@Sendable () -> Void)?
  ) {
    guard !channel.isFinished, let store = owner.withLock({ $0.store }) else { return }
    do {
      let snapshot = try store.environment.makeSnapshot()
      let (live, initial) = try snapshot.read { txn -> (LiveQuery, Results) in
        let current = try store.log.lastLSN(txn)
        let version = since ?? current
        let history = try HistoricalState.at(version, current: current, log: store.log, txn)
        let run = HistoricalQuery(materializer: store.materializer, log: store.log, txn: txn, state: history)
        // The whole result: a LIMIT is a window over it.
        let rows = try run.rows(for: Query(predicate: query.predicate, sort: query.sort))
        let needsValues = LiveQuery.needsValues(query, watching: keyPaths)
        let matches = try rows.map { row -> (row: Row, values: [FieldValue]) in
          guard needsValues else { return (row, []) }
          do {
            return (row, try RecordCodec.decode(try run.record(row), schema: Repository.schema))
          } catch let error as MalformedBytes {
            throw StoreError.corruptState(reason: "record at row \(row): \(error)")
          }
        }
        let live = try LiveQuery(query: query, watching: keyPaths, version: version, matches: matches)
        let results = Results(
          store: store, query: query, asOf: since,
          evaluation: .init(
            rows: live.visibleRows, snapshot: snapshot, version: version, history: history.versions))
        return (live, results)
      }
      subscriptions[id] = Subscription(live: live, channel: channel, notify: notify)
      channel.send(.initial(initial))
      notify?()
      startTimer()
      advance()
    } catch {
      // The subscription cannot start: end it; the consumer sees the sequence finish.
      channel.finish()
    }
  }

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
    for (id, subscription) in subscriptions where subscription.channel.isFinished { subscriptions[id] = nil }
    guard let oldest = subscriptions.values.map(\.live.version).min() else { return }
    do {
      let snapshot = try store.environment.makeSnapshot()
      let batches = try snapshot.read { txn -> [CommittedBatch] in
        let current = try store.log.lastLSN(txn)
        guard current > oldest else { return [] }
        return try store.log.commits(after: oldest, through: current, txn)
      }
      guard let newest = batches.last?.lastLSN else { return }
      for id in subscriptions.keys {
        guard var subscription = subscriptions[id] else { continue }
        var composed: Changeset?
        var changed = false
        for batch in batches where batch.lastLSN > subscription.live.version {
          guard let changeset = try subscription.live.apply(batch) else { continue }
          changed = true
          if subscription.channel.coalescing {
            composed = composed.map { $0.composed(with: changeset) } ?? changeset
          } else {
            deliver(subscription, changeset, version: batch.lastLSN, snapshot: snapshot, store: store)
          }
        }
        subscriptions[id] = subscription
        if changed, let composed {
          deliver(subscription, composed, version: newest, snapshot: snapshot, store: store)
        }
      }
    } catch {
      // A damaged log or state: end every subscription rather than deliver wrong changesets.
      for subscription in subscriptions.values { subscription.channel.finish() }
      subscriptions.removeAll()
    }
  }

  private func deliver(
    _ subscription: Subscription, _ changeset: Changeset, version: UInt64, snapshot: Snapshot, store: Store
  ) {
    let results = Results(
      store: store, query: subscription.live.query,
      evaluation: .init(rows: subscription.live.visibleRows, snapshot: snapshot, version: version))
    subscription.channel.send(.update(results, changeset))
    subscription.notify?()
  }
}
