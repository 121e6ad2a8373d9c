#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Guards the memory map of one environment within this process.
///
/// Reads and writes hold it shared while they touch mapped memory; growing the map (`munmap` +
/// `mmap` in `mdb_env_set_mapsize`) holds it exclusively, so that no thread reads through a mapping
/// that is being replaced. Growth is rare, so the shared side is what matters: an uncontended
/// `pthread_rwlock_rdlock` costs a few nanoseconds.
///
/// Not reentrant in the exclusive direction: a thread that holds it shared must release it before
/// asking for it exclusively.
final class AccessLock: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_rwlock_t>

  init() {
    lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    lock.initialize(to: pthread_rwlock_t())
    pthread_rwlock_init(lock, nil)
  }

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deallocate()
  }

  @inline(__always)
  func withShared<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    pthread_rwlock_rdlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }

  func withExclusive<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    pthread_rwlock_wrlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }
}

/// Serializes this process's writers, so that a writer waiting to grow the map never waits
/// behind another writer of the same process that holds the map lock shared.
final class WriterLock: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init() {
    mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}
