public import Dispatch
import LMDB
import Synchronization

/// The changes of a query's results as an `AsyncSequence`: `.initial(results)`, then
/// `.update(results, changeset)` after each commit that changes them.
///
/// ```swift
/// for try await change in try store.objects(Repository.self).filter("language == 'Swift'").changes {
///   switch change {
///   case .initial(let results): tableView.reloadData(with: results)
///   case .update(let results, let changeset): tableView.apply(changeset, results)
///   }
/// }
/// ```
///
/// Each iteration is its own subscription, started when iteration starts and ended when the
/// iterating task is cancelled or the iterator goes away. A subscription that fails throws why,
/// after the changes delivered before: a start past the end of the log (`StoreError.lsnOutOfRange`,
/// as an as-of query), a damaged log or state, LMDB's reader table full for more than
/// `LiveHub.readerWait`. A failed subscription is over; start a new one to go on.
public struct ResultsChanges<Value: Sendable>: AsyncSequence, Sendable {
  public typealias Element = ResultsChange<Value>

  let results: Results<Value>
  let keyPaths: [Field]?
  let since: UInt64?
  let coalescing: Bool

  public func makeAsyncIterator() -> Iterator {
    Iterator(
      subscription: LiveSubscription(
        results: results, keyPaths: keyPaths, since: since, coalescing: coalescing))
  }

  public struct Iterator: AsyncIteratorProtocol {
    let subscription: LiveSubscription<Value>

    public mutating func next() async throws -> ResultsChange<Value>? {
      try await subscription.channel.next()
    }
  }
}

/// One registration with the store's live-query hub; ends when released.
public final class LiveSubscription<Element: Sendable>: Sendable {
  let channel: ChangeChannel<Element>
  private let hub: LiveHub
  private let id: UInt64

  init(
    results: Results<Element>, keyPaths: [Field]?, since: UInt64?, coalescing: Bool,
    notify: ((ChangeChannel<Element>) -> (@Sendable () -> Void))? = nil
  ) {
    let hub = results.store.hub
    let box = Mutex<UInt64?>(nil)
    let channel = ChangeChannel<Element>(coalescing: coalescing, watching: keyPaths) {
      if let id = box.withLock({ $0 }) { hub.unsubscribe(id) }
    }
    self.channel = channel
    self.hub = hub
    let notified = notify?(channel)
    let since = since ?? results.asOf
    id = hub.subscribe(
      onFailure: { error in
        channel.finish(throwing: error)
        notified?()
      }
    ) { store in
      guard !channel.isFinished else { return nil }
      let (live, view) = try store.readState { read -> (LiveQuery, VersionView?) in
        let version = since ?? read.current
        let stored = read.catalog.collection(named: results.collection)
        // A collection that does not exist yet is followed from empty: its first records arrive
        // as insertions.
        let query = try results.query.bound(to: stored?.schema ?? results.schema)
        var matches: [(row: Row, values: [FieldValue])] = []
        var view: VersionView?
        if let stored {
          let then = try read.collection(stored, at: version)
          // The whole result: a LIMIT is a window over it.
          let rows = try then.rows(for: query.unlimited)
          let needsValues = LiveQuery.needsValues(query, watching: keyPaths)
          matches = try rows.map { row -> (row: Row, values: [FieldValue]) in
            guard needsValues else { return (row, []) }
            return (row, try then.records.values(row))
          }
          view = then.view(of: store)
        } else if version > read.current {
          throw StoreError.lsnOutOfRange(requested: version, version: read.current)
        }
        var live = try LiveQuery(
          query: query, collection: results.collection, watching: keyPaths, version: version, matches: matches
        )
        live.deliversEveryCommit = !coalescing
        return (live, view)
      }
      channel.send(
        .initial(
          results.with(
            query: results.query, asOf: since,
            evaluation: .init(rows: live.visibleRows, view: view, version: live.version))))
      notified?()
      return LiveHub.Subscription(
        live: live, isFinished: { channel.isFinished },
        fail: { error in
          channel.finish(throwing: error)
          notified?()
        },
        deliver: { changeset, rows, version, through, collection, history in
          let view = VersionView(
            version: version, collection: collection, store: results.store, through: through,
            versions: history)
          let updated = results.with(
            query: results.query, asOf: nil, evaluation: .init(rows: rows, view: view, version: version))
          channel.send(.update(updated, changeset))
          notified?()
        })
    }
    box.withLock { $0 = id }
  }

  deinit {
    channel.finish()
  }
}

/// Stops the deliveries of `Results.observe` when invalidated or released, like Realm's token.
public final class NotificationToken: Sendable {
  private let stop: @Sendable () -> Void
  private let keep: any Sendable

  init<Element: Sendable>(_ subscription: LiveSubscription<Element>) {
    stop = { subscription.channel.finish() }
    keep = subscription
  }

  /// Stops delivery; no handler call starts after this returns.
  public func invalidate() {
    stop()
  }
}

extension Results {
  /// The changes of these results, coalescing commits a slow consumer missed into one exactly
  /// composed changeset. See `changes(keyPaths:since:coalescing:)`.
  public var changes: ResultsChanges<Element> {
    ResultsChanges(results: self, keyPaths: nil, since: nil, coalescing: true)
  }

  /// The changes of these results.
  ///
  /// - Parameters:
  ///   - keyPaths: fields whose changes count as modifications (Realm's `keyPaths:`); changes to
  ///     other fields of a row are not reported (moves, insertions and deletions still are).
  ///   - since: an earlier LSN to resume from: the first delivery is the result as it was then,
  ///     and the next is one changeset from then to now — a subscriber that was away catches up
  ///     exactly. Default: these results' version (`asOf`, or now).
  ///   - coalescing: `true` (default) folds the updates a slow consumer has not taken yet into
  ///     one, composed exactly; `false` delivers one update per commit.
  public func changes(keyPaths: [String]? = nil, since: UInt64? = nil, coalescing: Bool = true)
    throws(QueryError) -> ResultsChanges<Element>
  {
    ResultsChanges(results: self, keyPaths: try fields(keyPaths), since: since, coalescing: coalescing)
  }

  /// Calls `handler` on `queue` with the initial results, then after each commit that changes
  /// them, until the token is invalidated or released. `keyPaths`, `since` and `coalescing` mean
  /// what they mean for `changes(keyPaths:since:coalescing:)`. If the subscription fails (see
  /// `ResultsChanges`), `onError` is called on `queue` with why, after the changes delivered
  /// before, and nothing more is delivered.
  public func observe(
    keyPaths: [String]? = nil, since: UInt64? = nil, coalescing: Bool = true, on queue: DispatchQueue,
    onError: (@Sendable (any Error) -> Void)? = nil,
    _ handler: @escaping @Sendable (ResultsChange<Element>) -> Void
  ) throws(QueryError) -> NotificationToken {
    let subscription = LiveSubscription(
      results: self, keyPaths: try fields(keyPaths), since: since, coalescing: coalescing,
      notify: { channel in channel.pump(on: queue, handler, onError: onError) })
    return NotificationToken(subscription)
  }

  func fields(_ names: [String]?) throws(QueryError) -> [Field]? {
    guard let names else { return nil }
    var fields: [Field] = []
    for name in names {
      guard let field = schema.field(named: name) else {
        throw QueryError(
          kind: .unknownField,
          message: "unknown key path '\(name)'; valid fields: "
            + schema.fields.map(\.name).joined(separator: ", "))
      }
      fields.append(field)
    }
    return fields
  }
}
