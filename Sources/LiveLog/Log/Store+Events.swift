extension Store {
  /// Calls `body` with each event from `first` through `last` (default: the end), in order,
  /// until it returns false; with `collection`, only that collection's events (schema events
  /// included). Every event's checksum is checked, and each record is decoded with the schema
  /// version it was written with.
  public func forEachEvent(
    from first: UInt64 = 1, through last: UInt64? = nil, collection: String? = nil,
    _ body: (Event) throws -> Bool
  ) throws {
    let (snapshot, catalog) = try makeSnapshot()
    try snapshot.read { txn in
      let end = try last ?? log.lastLSN(txn)
      try log.forEach(from: Swift.max(first, 1), through: end, catalog: catalog, txn) { event in
        if let collection, event.collection != collection { return true }
        return try body(event)
      }
    }
  }

  /// The events from `first` through `last` (default: the end), of `collection` if given.
  public func events(from first: UInt64 = 1, through last: UInt64? = nil, collection: String? = nil) throws
    -> [Event]
  {
    var events: [Event] = []
    try forEachEvent(from: first, through: last, collection: collection) {
      events.append($0)
      return true
    }
    return events
  }
}
