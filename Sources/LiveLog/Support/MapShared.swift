/// A value that points into an LMDB map (records, pages), or a read-only transaction to open
/// cursors in, handed to the workers of a `ParallelMap` call. The map stays mapped while the
/// read transaction the pointers come from is open, and the calling thread holds it open for the
/// whole call, since it waits inside it; nobody writes through the pointers, and a read-only
/// transaction may be read from several threads at once (`Snapshot`). Pages a write transaction
/// found may be shared too, as long as its thread writes nothing until the workers are done (a
/// write may move or free them, the transaction's own dirty pages included): `SegmentMerger`'s
/// workers read that memory, never LMDB.
struct MapShared<Value>: @unchecked Sendable {
  // @unchecked: pointers are not Sendable; the contract above is what makes sharing them sound.
  let value: Value

  init(_ value: Value) { self.value = value }
}
