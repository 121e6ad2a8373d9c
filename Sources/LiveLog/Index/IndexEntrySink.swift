/// What `IndexEntries.forEach` hands a record's entries to, one by one. A sink rather than
/// closures: the state a closure captures is checked for exclusive access at run time, entry by
/// entry, which cost a verification's fingerprints a tenth of their time.
protocol IndexEntrySink {
  /// A trigram posting, `code << 32 | position`.
  mutating func trigram(_ posting: UInt64)
  /// An equality prefix (valid only during the call).
  mutating func term(_ prefix: UnsafeRawBufferPointer)
  /// An ordered value, with row 0.
  mutating func ordered(_ entry: OrderedEntry)
}
