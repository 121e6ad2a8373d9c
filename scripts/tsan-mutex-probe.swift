// Does ThreadSanitizer see the standard library's `Mutex`? Four threads increment a dictionary,
// each access inside `Mutex.withLock`, so there is no race. Run:
//
//   swiftc -sanitize=thread -O scripts/tsan-mutex-probe.swift -o /tmp/tsan-mutex-probe && /tmp/tsan-mutex-probe
//
// A toolchain whose `Mutex` ThreadSanitizer understands prints only the count (97). Swift 6.3.1 on
// Linux also prints "ThreadSanitizer: Swift access race" reports (4 on 2026-12-02), though every
// access is inside `withLock`; the likely cause, not confirmed, is that its `Mutex` waits on
// futexes, which ThreadSanitizer does not intercept. `make sanitize` reports the same kind of race
// on LiveLog's `Mutex`-guarded state (Reliability.md).
import Dispatch
import Synchronization

final class Counter: Sendable {
  let counts = Mutex<[Int: Int]>([:])
}

let counter = Counter()
DispatchQueue.concurrentPerform(iterations: 4) { worker in
  for index in 0..<20_000 {
    counter.counts.withLock { $0[index % 97, default: 0] += worker }
  }
}
print(counter.counts.withLock { $0.count })
