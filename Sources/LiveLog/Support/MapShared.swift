/// A value that points into an LMDB map (records, pages), or a read-only transaction to open
/// cursors in, handed to the workers of a `ParallelMap` call. The map stays mapped while the
/// read transaction the pointers come from is open, and the calling thread holds it open for the
/// whole call, since it waits inside it; nobody writes through the pointers, and a read-only
/// transaction may be read from several threads at once (`Snapshot`). Pages a write transaction
/// found may be shared too while its thread waits in the call, as long as it writes nothing until
/// the workers are done (`SegmentMerger`): the workers read memory, never LMDB.
struct MapShared<Value>: @unchecked Sendable {
  // @unchecked: pointers are not Sendable; the contract above is what makes sharing them sound.
  let value: Value

  init(_ value: Value) { self.value = value }
}
