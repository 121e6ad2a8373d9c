import Foundation
import LMDB
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Random damage to a real store — bits flipped, byte runs and whole pages zeroed, the file
/// truncated — and every command run on it: none may die by a signal; `verify` must fail
/// whenever the damage touched a byte that means something (`StructureCheck`'s meaningful
/// ranges: page headers, node offsets, nodes, overflow values, meta fields) unless LMDB still
/// reads every database exactly as before (the state's digest and the log, read through LMDB,
/// unchanged); `salvage` must find every event one of whose copies the damage left whole, and
/// apply only true events.
///
/// `make test` runs 48 corruptions; `make corrupt` runs `LIVELOG_CORRUPTIONS` (default 1,000)
/// with `LIVELOG_CORRUPTION_SEED`.
@Suite(.serialized) struct CorruptionCampaignTests {
  enum Kind: String, CaseIterable {
    case flipBits = "flip 1-3 bits"
    case zeroRun = "zero 1-64 bytes"
    case zeroPage = "zero a page"
    case metaFlip = "flip a bit of a meta page"
    case truncate = "truncate"
  }

  struct Figures {
    var corruptions: [Kind: Int] = [:]
    var meaningful = 0
    var detected = 0
    /// Meaningful bytes changed, but LMDB reads the very same content (a branch page's separator
    /// key moved within the gap between its neighbours, say): verify rightly passes.
    var unchangedForLMDB = 0
    var reportedHarmless = 0
    var deaths = 0
    var commandsRun = 0
    var survived = 0
    var recovered = 0
    var survivedAndRecovered = 0
  }

  @Test func randomDamageNeverKillsACommandAndSalvageFindsWhatSurvived() throws {
    let environment = ProcessInfo.processInfo.environment
    let count = environment["LIVELOG_CORRUPTIONS"].flatMap(Int.init) ?? 48
    var random = SplitMix64(seed: environment["LIVELOG_CORRUPTION_SEED"].flatMap(UInt64.init) ?? 20_261_201)
    let started = Date()
    let directory = try TemporaryDirectory()
    let pristine = directory.child("pristine")
    try DamageSupport.makeStore(at: pristine, count: 700, batch: 20)
    // Updates, so that the file holds freed pages and older copies of pages too.
    let updates = directory.child("updates.ndjson")
    try Reliability.write(Reliability.repositories(from: 5_000_000, count: 60, tag: "u1"), to: updates)
    #expect(try CommandLineTool(store: pristine).run(["ingest", "--batch", "15", updates]).status == 0)
    try Reliability.write(Reliability.repositories(from: 5_000_000, count: 60, tag: "u2"), to: updates)
    #expect(try CommandLineTool(store: pristine).run(["ingest", "--batch", "15", updates]).status == 0)
    let original = pristine + "/data.mdb"
    let size = Reliability.fileSize(original)
    let structure = try StructureCheck.run(path: original, collectMeaningfulRanges: true)
    #expect(structure.isSound, "\(structure.damage)")
    let meaningful = Self.merged(structure.meaningfulRanges)
    let copies = try DataFileLayout.eventCopies(original)
    let exported = try DamageSupport.export(pristine).split(separator: "\n").map(String.init)
    let pristineDigest = try #require(
      Self.digest(try CommandLineTool(store: pristine).run(["verify"]).stdout))
    var figures = Figures()

    for index in 0..<count {
      let kind = Kind.allCases[index % Kind.allCases.count]
      figures.corruptions[kind, default: 0] += 1
      let store = directory.child("damaged-\(index)")
      try DamageSupport.copy(pristine, to: store)
      let file = store + "/data.mdb"
      var damaged: [Range<Int>] = []
      switch kind {
      case .flipBits:
        for _ in 0..<Int.random(in: 1...3, using: &random) {
          let offset = Int.random(in: 0..<size, using: &random)
          try DamageSupport.flip(file, at: offset, bit: Int.random(in: 0..<8, using: &random))
          damaged.append(offset..<offset + 1)
        }
      case .zeroRun:
        let length = Int.random(in: 1...64, using: &random)
        let offset = Int.random(in: 0..<(size - length), using: &random)
        try DamageSupport.overwrite(file, at: offset, count: length)
        damaged.append(offset..<offset + length)
      case .zeroPage:
        let page = Int.random(in: 0..<(size / 4096), using: &random)
        try DamageSupport.overwrite(file, at: page * 4096, count: 4096)
        damaged.append(page * 4096..<(page + 1) * 4096)
      case .metaFlip:
        let offset = Int.random(in: 0..<2, using: &random) * 4096 + Int.random(in: 0..<152, using: &random)
        try DamageSupport.flip(file, at: offset, bit: Int.random(in: 0..<8, using: &random))
        damaged.append(offset..<offset + 1)
      case .truncate:
        let to = [0, 4096, 8192, Int.random(in: 8192..<size, using: &random)][index / 5 % 4]
        DamageSupport.truncate(file, to: to)
        damaged.append(to..<size)
      }
      // Only bytes that really changed count (a zeroed byte may have been zero already).
      let before = try #require(FileManager.default.contents(atPath: original))
      let after = FileManager.default.contents(atPath: file) ?? Data()
      damaged = damaged.filter { range in
        range.contains { $0 >= after.count || before[$0] != after[$0] }
      }
      let what = "corruption \(index) (\(kind.rawValue) at \(damaged))"
      let isMeaningful = damaged.contains { Self.intersects($0, meaningful) }

      let tool = CommandLineTool(store: store)
      for arguments in [
        ["log", "--format", "ndjson"], ["query", "stargazers_count > 10", "--format", "json"],
        // A scan: its records are read on every core, from one read transaction.
        ["query", "forks_count > watchers_count + 0", "--format", "json"],
        // Two fields' ordered columns, read by row.
        ["query", "forks_count > watchers_count", "--format", "json"], ["stats"], ["replay"],
      ] {
        let result = try tool.run(arguments)
        figures.commandsRun += 1
        if result.signalled { figures.deaths += 1 }
        DamageSupport.expectNoSignal(result, "\(what): \(arguments)")
      }
      let verify = try tool.run(["verify"])
      figures.commandsRun += 1
      if verify.signalled { figures.deaths += 1 }
      DamageSupport.expectNoSignal(verify, "\(what): verify")
      if isMeaningful {
        figures.meaningful += 1
        if verify.status == 1 {
          figures.detected += 1
        } else if Self.digest(verify.stdout) == pristineDigest,
          try DamageSupport.export(store).split(separator: "\n").map(String.init) == exported
        {
          // The oracle is LMDB itself: every database read through it digests as before.
          figures.unchangedForLMDB += 1
        } else {
          Issue.record("\(what): verify passed: \(verify.stdout)")
        }
      } else if verify.status != 0 {
        figures.reportedHarmless += 1
      }

      let salvaged = directory.child("salvaged-\(index)")
      let (status, report) = try SalvageTests.salvage(store, into: salvaged)
      figures.commandsRun += 1
      let recovered = SalvageTests.lsns(report["recovered"])
      let survived = Set(
        copies.filter { _, copies in
          copies.contains { copy in
            copy.ranges.allSatisfy { range in !damaged.contains { $0.overlaps(range) } }
          }
        }.keys)
      figures.survived += survived.count
      figures.recovered += recovered.count
      figures.survivedAndRecovered += survived.intersection(recovered).count
      #expect(
        survived.isSubset(of: recovered),
        "\(what): lost intact events \(survived.subtracting(recovered).sorted().prefix(10))")
      #expect(status == 0 || status == 1)
      // Only true events were applied: the new store's log is the original's, as far as it goes.
      let salvagedLog = try DamageSupport.export(salvaged).split(separator: "\n").map(String.init)
      #expect(
        Array(exported.prefix(salvagedLog.count)) == salvagedLog,
        "\(what): salvage applied an event that is not the log's")
      try? FileManager.default.removeItem(atPath: store)
      try? FileManager.default.removeItem(atPath: salvaged)
    }
    #expect(figures.deaths == 0)
    #expect(figures.meaningful > 0 && figures.detected + figures.unchangedForLMDB == figures.meaningful)
    print(
      "corruption campaign: \(count) corruptions (\(Kind.allCases.map { "\(figures.corruptions[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", "))), "
        + "\(figures.commandsRun) commands run, \(figures.deaths) deaths by signal; \(figures.meaningful) touched meaningful bytes, "
        + "verify detected \(figures.detected) (the other \(figures.unchangedForLMDB) left every database as LMDB reads it unchanged); "
        + "\(count - figures.meaningful) did not, of which verify still reported \(figures.reportedHarmless); "
        + "events whose bytes survived: \(figures.survived), recovered by salvage \(figures.survivedAndRecovered) "
        + "(salvage recovered \(figures.recovered) in all); \(String(format: "%.0f", Date().timeIntervalSince(started))) s"
    )
  }

  /// The state digest `verify` printed, when it passed.
  static func digest(_ output: String) -> String? {
    guard let range = output.range(of: "(digest ") else { return nil }
    return String(output[range.upperBound...].prefix { $0 != ")" })
  }

  /// `ranges` sorted and merged.
  static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
    var result: [Range<Int>] = []
    for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
      if let last = result.last, last.upperBound >= range.lowerBound {
        result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
      } else {
        result.append(range)
      }
    }
    return result
  }

  /// Whether `range` overlaps one of the merged, sorted `ranges`.
  static func intersects(_ range: Range<Int>, _ ranges: [Range<Int>]) -> Bool {
    var low = 0
    var high = ranges.count
    while low < high {
      let middle = (low + high) / 2
      if ranges[middle].upperBound <= range.lowerBound { low = middle + 1 } else { high = middle }
    }
    return low < ranges.count && ranges[low].overlaps(range)
  }
}
