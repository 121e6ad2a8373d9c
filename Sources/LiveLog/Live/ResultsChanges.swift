public import Dispatch
import Synchronization

/// The changes of a query's results as an `AsyncSequence`: `.initial(results)`, then
/// `.update(results, changeset)` after each commit that changes them.
///
/// ```swift
/// for await change in try store.objects(Repository.self).filter("language == 'Swift'").changes {
///   switch change {
///   case .initial(let results): tableView.reloadData(with: results)
///   case .update(let results, let changeset): tableView.apply(changeset, results)
///   }
/// }
/// ```
///
/// Each iteration is its own subscription, started when iteration starts and ended when the
/// iterating task is cancelled or the iterator goes away.
public struct ResultsChanges: AsyncSequence, Sendable {
  public typealias Element = ResultsChange

  let results: Results
  let keyPaths: [Field]?
  let since: UInt64?
  let coalescing: Bool

  public func makeAsyncIterator() -> Iterator {
    Iterator(
      subscription: LiveSubscription(
        results: results, keyPaths: keyPaths, since: since, coalescing: coalescing))
  }

  public struct Iterator: AsyncIteratorProtocol {
    let subscription: LiveSubscription

    public mutating func next() async -> ResultsChange? {
      await subscription.channel.next()
    }
  }
}

/// One registration with the store's live-query hub; ends when released.
public final class LiveSubscription: Sendable {
  let channel: ChangeChannel
  private let hub: LiveHub
  private let id: UInt64

  init(
    results: Results, keyPaths: [Field]?, since: UInt64?, coalescing: Bool,
    notify: ((ChangeChannel) -> (@Sendable () -> Void))? = nil
  ) {
    let hub = results.store.hub
    let box = Mutex<UInt64?>(nil)
    let channel = ChangeChannel(coalescing: coalescing) {
      if let id = box.withLock({ $0 }) { hub.unsubscribe(id) }
    }
    self.channel = channel
    self.hub = hub
    id = hub.subscribe(
      query: results.query, watching: keyPaths, since: since ?? results.asOf, channel: channel,
      notify: notify?(channel))
    box.withLock { $0 = id }
  }

  deinit {
    channel.finish()
  }
}

/// Stops the deliveries of `Results.observe` when invalidated or released, like Realm's token.
public final class NotificationToken: Sendable {
  private let subscription: LiveSubscription

  init(_ subscription: LiveSubscription) {
    self.subscription = subscription
  }

  /// Stops delivery; no handler call starts after this returns.
  public func invalidate() {
    subscription.channel.finish()
  }
}

extension Results {
  /// The changes of these results, coalescing commits a slow consumer missed into one exactly
  /// composed changeset. See `changes(keyPaths:since:coalescing:)`.
  public var changes: ResultsChanges {
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
    throws(QueryError)
    -> ResultsChanges
  {
    ResultsChanges(
      results: self, keyPaths: try Results.fields(keyPaths), since: since, coalescing: coalescing)
  }

  /// Calls `handler` on `queue` with the initial results, then after each commit that changes
  /// them, until the token is invalidated or released. `keyPaths`, `since` and `coalescing` mean
  /// what they mean for `changes(keyPaths:since:coalescing:)`.
  public func observe(
    keyPaths: [String]? = nil, since: UInt64? = nil, coalescing: Bool = true, on queue: DispatchQueue,
    _ handler: @escaping @Sendable (ResultsChange) -> Void
  ) throws(QueryError) -> NotificationToken {
    let subscription = LiveSubscription(
      results: self, keyPaths: try Results.fields(keyPaths), since: since, coalescing: coalescing,
      notify: { channel in channel.pump(on: queue, handler) })
    return NotificationToken(subscription)
  }

  static func fields(_ names: [String]?) throws(QueryError) -> [Field]? {
    guard let names else { return nil }
    var fields: [Field] = []
    for name in names {
      guard let field = Repository.schema.field(named: name) else {
        throw QueryError(
          kind: .unknownField,
          message: "unknown key path '\(name)'; valid fields: "
            + Repository.schema.fields.map(\.name).joined(separator: ", "))
      }
      fields.append(field)
    }
    return fields
  }
}
