/// The validators of the last full answer per URL, for `If-None-Match` and for answering a 304
/// with the links and count that a 304 does not repeat.
///
/// Bounded, oldest entry out first: a long typing session visits many URLs, and a forgotten ETag
/// only costs one full answer.
struct ETagStore: Sendable {
  struct Entry: Sendable, Hashable {
    var etag: String
    var links: PageLinks
    var totalCount: Int?
  }

  let capacity: Int
  private var entries: [String: Entry] = [:]
  /// URLs in the order they were last stored, oldest first.
  private var order: [String] = []

  init(capacity: Int = 512) { self.capacity = max(capacity, 1) }

  var count: Int { entries.count }

  func entry(for url: String) -> Entry? { entries[url] }

  mutating func store(_ entry: Entry, for url: String) {
    if entries.updateValue(entry, forKey: url) != nil {
      order.removeAll { $0 == url }
    }
    order.append(url)
    while order.count > capacity {
      entries[order.removeFirst()] = nil
    }
  }

  mutating func remove(_ url: String) {
    if entries.removeValue(forKey: url) != nil { order.removeAll { $0 == url } }
  }

  mutating func removeAll() {
    entries = [:]
    order = []
  }
}
