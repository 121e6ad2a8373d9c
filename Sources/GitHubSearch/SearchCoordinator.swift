/// Search-as-you-type: turns the terms a person types into at most one request per pause, and
/// only ever delivers the newest search's results — the seed's
/// `filter { $0.count > 2 }.throttle(0.5).flatMapLatest { rx_JSON($0) }`, in structured concurrency.
///
/// - A searchable term waits for a quiet period (0.5 s) with no newer input; only then does its
///   request go out. (RxSwift 2's `throttle`, which the seed used, is what is now called debounce.)
/// - When a request goes out, the request still in flight for an older search is cancelled, and
///   nothing of the older search is emitted after that.
/// - A term shorter than `SearchQuery.minimumTermLength` clears the results at once: it cancels the
///   waiting term and the request in flight, and emits `.cleared`. (In the seed, a short term only
///   skipped the throttle, so "tetris" typed then erased to "te" still brought tetris results.)
/// - A settled query equal to the one in flight leaves that request alone.
///
/// Events arrive on `events` in order; every decision is made on the actor, so an old search's
/// answer cannot overtake a newer search's events. The clock is injectable for tests.
public actor SearchCoordinator<C: Clock> where C.Duration == Duration {
  /// Everything the search box must show, in order, for one consumer. Ends after `finish()` or
  /// `cancel()`; when the consumer stops listening, the work in progress is cancelled.
  public nonisolated let events: AsyncStream<SearchEvent>

  private let continuation: AsyncStream<SearchEvent>.Continuation
  private let client: GitHubSearchClient
  private let clock: C
  private let quietPeriod: Duration
  private let maxPages: Int

  /// The term waiting for its quiet period, and the task that sleeps for it.
  private var waiting: (query: SearchQuery, ticket: UInt64, task: Task<Void, Never>)?
  /// The search whose request is out.
  private var running: (query: SearchQuery, generation: UInt64, task: Task<Void, Never>)?
  /// Bumped whenever the current search changes; work of an older generation emits nothing.
  private var generation: UInt64 = 0
  private var nextTicket: UInt64 = 0
  private var isCleared = false
  private var isFinishing = false
  private var isFinished = false

  /// A coordinator that searches with `client`, waiting `quietPeriod` on `clock` after each
  /// keystroke, and fetching up to `maxPages` pages per search (each page its own `.results`).
  public init(
    client: GitHubSearchClient, clock: C, quietPeriod: Duration = .milliseconds(500), maxPages: Int = 1
  ) {
    (events, continuation) = AsyncStream.makeStream(of: SearchEvent.self)
    self.client = client
    self.clock = clock
    self.quietPeriod = quietPeriod
    self.maxPages = max(maxPages, 1)
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      Task { await self.cancel() }
    }
  }

  /// Takes the latest input (term and language together, as the seed's `combineLatest` made them).
  public func submit(_ query: SearchQuery) {
    guard !isFinishing && !isFinished else { return }
    waiting?.task.cancel()
    waiting = nil
    guard query.isSearchable else {
      stopRunning()
      if !isCleared {
        isCleared = true
        continuation.yield(.cleared)
      }
      return
    }
    isCleared = false
    // The deadline is fixed now, not when the sleeping task starts, so that the quiet period is
    // measured from the keystroke whatever the scheduling.
    let deadline = clock.now.advanced(by: quietPeriod)
    nextTicket += 1
    let ticket = nextTicket
    let clock = self.clock
    let task = Task {
      do {
        try await clock.sleep(until: deadline, tolerance: nil)
      } catch {
        return  // superseded by newer input
      }
      self.settle(ticket)  // the task runs on this actor: no hop
    }
    waiting = (query, ticket, task)
  }

  /// Submits every query of `queries` in turn, then `finish()`es when they end; if the calling
  /// task is cancelled instead, `cancel()`s (a closed search box wants no last request).
  public func run(_ queries: some AsyncSequence<SearchQuery, Never>) async {
    for await query in queries { submit(query) }
    if Task.isCancelled { cancel() } else { finish() }
  }

  /// No more input: the waiting term (if any) is searched at once, and `events` ends after the
  /// last request's answer.
  public func finish() {
    guard !isFinishing && !isFinished else { return }
    isFinishing = true
    if let waiting {
      waiting.task.cancel()
      self.waiting = nil
      start(waiting.query)
    }
    if running == nil { end() }
  }

  /// Stops everything: the waiting term is dropped, the request in flight cancelled, `events` ends.
  public func cancel() {
    waiting?.task.cancel()
    waiting = nil
    stopRunning()
    end()
  }

  // MARK: Internals

  /// The quiet period of `ticket`'s term has passed.
  private func settle(_ ticket: UInt64) {
    guard let waiting, waiting.ticket == ticket else { return }  // a newer term came meanwhile
    self.waiting = nil
    start(waiting.query)
  }

  private func start(_ query: SearchQuery) {
    if let running, running.query == query { return }
    stopRunning()
    let generation = self.generation
    continuation.yield(.searching(query))
    let task = Task { await self.perform(query, generation: generation) }
    running = (query, generation, task)
  }

  /// Cancels the request in flight and makes sure nothing of it is emitted.
  private func stopRunning() {
    generation += 1
    running?.task.cancel()
    running = nil
  }

  private func perform(_ query: SearchQuery, generation: UInt64) async {
    var number = 1
    var fetched = 0
    while true {
      let result: SearchResult
      do {
        result = try await client.page(number, of: query)
      } catch {
        // Superseded work (whose cancellation is the usual error here) says nothing.
        guard generation == self.generation else { return }
        continuation.yield(.failed(query, error))
        done(generation)
        return
      }
      guard generation == self.generation else { return }
      continuation.yield(.results(query, result))
      fetched += 1
      guard fetched < maxPages, let next = result.followingPage else { break }
      number = next
    }
    done(generation)
  }

  private func done(_ generation: UInt64) {
    guard generation == self.generation else { return }
    running = nil
    if isFinishing && waiting == nil { end() }
  }

  private func end() {
    guard !isFinished else { return }
    isFinished = true
    continuation.finish()
  }
}

extension SearchCoordinator where C == ContinuousClock {
  /// A coordinator on the real clock.
  public init(client: GitHubSearchClient, quietPeriod: Duration = .milliseconds(500), maxPages: Int = 1) {
    self.init(client: client, clock: ContinuousClock(), quietPeriod: quietPeriod, maxPages: maxPages)
  }
}
