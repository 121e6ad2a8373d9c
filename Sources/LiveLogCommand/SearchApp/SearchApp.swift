import Dispatch
import Foundation
import GitHubSearch
import LiveLog
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The full-screen search app: the seed's GitHub search screen in a terminal.
///
/// Typing binds a live query on the local store at once (cached results appear immediately) and
/// hands the term to a `SearchCoordinator` (0.5 s quiet period, one request per pause, a newer
/// term cancels the request in flight). Fresh pages are written to the store with upserts; the
/// live query turns each commit into a changeset, and only changesets change the table: rows
/// slide with line insertions and deletions, new rows flash green, changed rows yellow.
///
/// One task runs the app: every source (keys, signals, the live query, the coordinator, timers)
/// feeds one `AppEvent` stream, and the app handles an event, then draws what changed.
final class SearchApp {
  private let store: Store
  private let coordinator: SearchCoordinator<ContinuousClock>
  private let terminal: TerminalDevice
  private var session: SearchSession
  private var layout: ScreenLayout
  private var renderer: ScreenRenderer
  private var decoder = KeyDecoder()
  private let clock = ContinuousClock()

  private let events: AsyncStream<AppEvent>
  private let continuation: AsyncStream<AppEvent>.Continuation
  /// The live query of the current term; replaced at every change of term or language.
  private var subscription: NotificationToken?
  private var generation: UInt64 = 0
  private let deliveries = DispatchQueue(label: "livelog.search.results")
  private var tick: (deadline: ContinuousClock.Instant, task: Task<Void, Never>)?
  private let stopReading = StopFlag()
  private var signalSources: [any DispatchSourceSignal] = []

  init(
    store: Store, client: GitHubSearchClient, terminal: TerminalDevice, session: SearchSession, maxPages: Int
  ) {
    self.store = store
    self.coordinator = SearchCoordinator(client: client, maxPages: maxPages)
    self.terminal = terminal
    self.session = session
    layout = ScreenLayout(size: terminal.size)
    renderer = ScreenRenderer(layout: layout)
    (events, continuation) = AsyncStream.makeStream(of: AppEvent.self)
  }

  /// Runs until the user quits; the terminal is restored however it ends.
  func run() async throws(TerminalError) {
    try terminal.start()
    defer { terminal.restore() }
    startReadingKeys()
    startSignals()
    defer { stopSignals() }
    let searchEvents = coordinator.events
    let continuation = self.continuation
    let forwarding = Task {
      for await event in searchEvents { continuation.yield(.search(event)) }
    }
    terminal.write(renderer.redrawAll(session.frame(layout, now: clock.now), layout: layout))
    if !session.term.isEmpty { await queryChanged() }
    loop: for await event in events {
      switch event {
      case .input(let bytes):
        guard await handle(decoder.decode(bytes)) else { break loop }
      case .inputClosed, .terminate:
        break loop
      case .resized:
        layout = ScreenLayout(size: terminal.size)
        session.clampOffset(tableHeight: layout.tableHeight)
        terminal.write(renderer.redrawAll(session.frame(layout, now: clock.now), layout: layout))
      case .results(let generation, let change):
        guard generation == self.generation else { continue }  // a replaced query's late delivery
        take(change)
      case .search(let event):
        take(event)
      case .tick:
        tick = nil
        session.expireHighlights(now: clock.now)
      }
      draw()
    }
    stopReadingKeys()
    subscription?.invalidate()
    tick?.task.cancel()
    await coordinator.cancel()
    forwarding.cancel()
  }

  // MARK: Events

  /// Applies keys; returns false to quit. A paste of many characters binds the query once.
  private func handle(_ keys: [Key]) async -> Bool {
    var queryChanged = false
    for key in keys {
      switch session.handle(key, tableHeight: layout.tableHeight) {
      case .none: break
      case .queryChanged: queryChanged = true
      case .searchAgain:
        session.network = .waiting(session.query)
        await coordinator.submit(session.query)
      case .redrawAll:
        terminal.write(renderer.redrawAll(session.frame(layout, now: clock.now), layout: layout))
      case .quit: return false
      }
    }
    if queryChanged { await self.queryChanged() }
    return true
  }

  /// The term or language changed: the local results of the new query at once, and the network
  /// search after the quiet period.
  private func queryChanged() async {
    bindLocalResults()
    session.network = session.query.isSearchable ? .waiting(session.query) : .idle
    await coordinator.submit(session.query)
  }

  /// Replaces the live query (the seed's `bindTableView`): a short term clears the table.
  private func bindLocalResults() {
    subscription?.invalidate()
    subscription = nil
    generation += 1
    session.localError = nil
    guard session.query.isSearchable else {
      session.clear()
      return
    }
    do {
      let results = try LocalSearch.results(in: store, for: session.query)
      let generation = self.generation
      let continuation = self.continuation
      subscription = try results.observe(on: deliveries) { change in
        continuation.yield(.results(generation: generation, change))
      }
    } catch {
      session.clear()
      session.localError = "the local query failed: \(error)"
    }
  }

  private func take(_ change: ResultsChange<Repository>) {
    switch change {
    case .initial(let results):
      session.showInitial(LiveResultRows(results: results))
    case .update(let results, let changeset):
      let operations = session.apply(
        changeset, rows: LiveResultRows(results: results), tableHeight: layout.tableHeight, now: clock.now)
      terminal.write(renderer.shiftTable(operations))
    }
  }

  private func take(_ event: SearchEvent) {
    switch event {
    case .cleared:
      session.network = .idle
    case .searching(let query):
      session.network = .searching(query)
    case .results(let query, .fresh(let page)):
      do {
        // The upsert: repositories GitHub sent replace the cached ones; unchanged ones write
        // nothing. The live query sees the commit and sends the changeset that animates it.
        let summary = try store.write(page.mutations)
        session.network = .fetched(
          query, repositories: page.repositories.count, totalCount: page.totalCount, summary: summary)
      } catch {
        session.localError = "the results could not be stored: \(error)"
      }
    case .results(let query, .notModified):
      session.network = .notModified(query)
    case .failed(let query, let error):
      session.network = .failed(query, error)
    }
  }

  // MARK: Drawing

  private func draw() {
    terminal.write(renderer.draw(session.frame(layout, now: clock.now)))
    scheduleTick()
  }

  /// Wakes the loop when the earliest highlight ends, so its line is drawn plain again.
  private func scheduleTick() {
    guard let next = session.nextExpiry else { return }
    if let tick, tick.deadline <= next { return }
    tick?.task.cancel()
    let continuation = self.continuation
    let task = Task {
      try? await Task.sleep(until: next, clock: .continuous)
      if !Task.isCancelled { continuation.yield(.tick) }
    }
    tick = (next, task)
  }

  // MARK: Sources

  /// Keys come from a thread of their own: reading a terminal blocks, and the concurrency pool
  /// must not be blocked. It polls, so that it notices the end of the app within 100 ms.
  private func startReadingKeys() {
    let input = terminal.input
    let continuation = self.continuation
    let stop = stopReading
    Thread.detachNewThread {
      while !stop.isSet {
        guard let bytes = TerminalDevice.read(input, timeout: 100) else {
          continuation.yield(.inputClosed)
          return
        }
        if !bytes.isEmpty { continuation.yield(.input(bytes)) }
      }
    }
  }

  private func stopReadingKeys() {
    stopReading.set()
  }

  private func startSignals() {
    let continuation = self.continuation
    let handled: [(Int32, AppEvent)] = [
      (SIGWINCH, .resized), (SIGTERM, .terminate), (SIGHUP, .terminate), (SIGINT, .terminate),
    ]
    for (number, event) in handled {
      // Dispatch sees the signal only if its default action is off.
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: deliveries)
      source.setEventHandler { continuation.yield(event) }
      source.resume()
      signalSources.append(source)
    }
  }

  private func stopSignals() {
    for source in signalSources { source.cancel() }
    signalSources = []
    for number in [SIGWINCH, SIGTERM, SIGHUP, SIGINT] { signal(number, SIG_DFL) }
  }
}

/// Tells the key reader thread to end.
private final class StopFlag: Sendable {
  private let state = Mutex(false)

  var isSet: Bool { state.withLock { $0 } }

  func set() { state.withLock { $0 = true } }
}
