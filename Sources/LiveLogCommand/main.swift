import Foundation
import LiveLog
import LiveLogReplication

#if canImport(Glibc)
  import Glibc
#endif

let commands: [Command] = [
  collectionCommand,
  ingestCommand,
  queryCommand,
  explainCommand,
  watchCommand,
  searchCommand,
  diffCommand,
  logCommand,
  replayCommand,
  verifyCommand,
  salvageCommand,
  exportCommand,
  importCommand,
  statsCommand,
  followCommand,
  snapshotCommand,
  bootstrapCommand,
  purgeCommand,
]

/// The command names' column: the longest name and two spaces.
let commandColumn = (commands.map(\.name.count).max() ?? 0) + 2

let toolHelp = """
  livelog — an event-sourced store of records (GitHub repositories and any collection you
  declare) with live queries

  usage: livelog [--store DIR] [--max-map-size SIZE] [--nats URL[,URL...] --stream NAME] <command> [options]

  The store is DIR, else $LIVELOG_STORE, else ./livelog.store.
  --max-map-size SIZE caps the store's memory map, and so its data file (bytes, or with a K, M,
  G or T suffix: 512M). A commit that would need more fails with exit status 1 and writes
  nothing; the store stays usable, and a larger SIZE lets the commit through. Default: no cap
  but the disk.
  --nats URL[,URL...] and --stream NAME (else $LIVELOG_NATS and $LIVELOG_STREAM) make every
  command that writes (ingest, import, collection create, search) write through the store's NATS
  JetStream stream, and `follow` apply it (Docs/Replication.md). --stream-replicas N (1 to 5,
  default 1) is how many servers keep the stream when a command creates it.

  commands:
  \(commands.map { "  " + $0.name.padding(toLength: commandColumn, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

  `livelog <command> --help` describes a command. Exit status: 0 success, 2 usage, query or
  input error (nothing was written), 1 any other failure.
  """

func run() -> Int32 {
  var raw = Array(CommandLine.arguments.dropFirst())
  var storePath = ProcessInfo.processInfo.environment["LIVELOG_STORE"] ?? "livelog.store"
  var maximumMapSize: Int?
  var natsServers = ProcessInfo.processInfo.environment["LIVELOG_NATS"]
  var streamName = ProcessInfo.processInfo.environment["LIVELOG_STREAM"]
  var streamReplicas = 1
  /// The value of the global option `option` first in `raw` (`--name VALUE` or `--name=VALUE`),
  /// taken off `raw`; `nil` when it has none.
  func takeValue(_ option: String) -> String? {
    guard let first = raw.first else { return nil }
    if first == option {
      guard raw.count >= 2 else { return nil }
      defer { raw.removeFirst(2) }
      return raw[1]
    }
    raw.removeFirst()
    return String(first.dropFirst(option.count + 1))
  }
  // Global options come before the command.
  while let first = raw.first, first.hasPrefix("-") {
    if first == "--help" || first == "-h" {
      print(toolHelp)
      return 0
    } else if first == "--version" {
      print("livelog \(LiveLogVersion.string)")
      return 0
    } else if first == "--store" {
      guard raw.count >= 2 else {
        printError("error: --store needs a directory\n\n\(toolHelp)")
        return 2
      }
      storePath = raw[1]
      raw.removeFirst(2)
    } else if first.hasPrefix("--store=") {
      storePath = String(first.dropFirst("--store=".count))
      raw.removeFirst()
    } else if let option = ["--nats", "--stream", "--stream-replicas"].first(where: {
      first == $0 || first.hasPrefix($0 + "=")
    }) {
      guard let value = takeValue(option) else {
        printError("error: \(option) needs a value\n\n\(toolHelp)")
        return 2
      }
      switch option {
      case "--nats": natsServers = value
      case "--stream": streamName = value
      default:
        guard let count = Int(value), (1...5).contains(count) else {
          printError("error: --stream-replicas takes 1 to 5, not '\(ControlEscaping.excerpt(value))'")
          return 2
        }
        streamReplicas = count
      }
    } else if first == "--max-map-size" || first.hasPrefix("--max-map-size=") {
      guard let text = takeValue("--max-map-size") else {
        printError("error: --max-map-size needs a size (bytes, or 64M, 2G)\n\n\(toolHelp)")
        return 2
      }
      guard let size = byteCount(text), size >= 64 << 10 else {
        printError(
          "error: --max-map-size takes a size of at least 64K (bytes, or 64M, 2G), not '\(ControlEscaping.excerpt(text))'"
        )
        return 2
      }
      maximumMapSize = size
    } else {
      printError("error: unknown option \(ControlEscaping.excerpt(first))\n\n\(toolHelp)")
      return 2
    }
  }
  guard let name = raw.first else {
    printError(toolHelp)
    return 2
  }
  guard let command = commands.first(where: { $0.name == name }) else {
    printError("error: unknown command '\(ControlEscaping.excerpt(name))'\n\n\(toolHelp)")
    return 2
  }
  var arguments = Arguments(raw.dropFirst())
  if arguments.flag("--help", "-h") {
    print(command.help)
    return 0
  }
  var replication: ReplicationConfiguration?
  switch (natsServers.flatMap { $0.isEmpty ? nil : $0 }, streamName.flatMap { $0.isEmpty ? nil : $0 }) {
  case (let servers?, let stream?):
    replication = ReplicationConfiguration(
      servers: servers.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) },
      stream: stream)
    replication?.replicas = streamReplicas
  case (nil, nil):
    break
  default:
    printError("error: --nats and --stream go together (or $LIVELOG_NATS and $LIVELOG_STREAM)\n\n\(toolHelp)")
    return 2
  }
  FaultReport.install(storePath: storePath)
  let output = Output()
  defer { output.flush() }
  do {
    return try command.run(
      &arguments,
      CommandContext(
        storePath: storePath, maximumMapSize: maximumMapSize, output: output, replication: replication))
  } catch let error as UsageError {
    output.flush()
    printError("error: \(error.message)\n\n\(command.help)")
    return 2
  } catch let error as InputError {
    output.flush()
    printError("error: \(error)\nnothing was written.")
    return 2
  } catch  where error is QueryError || error is SchemaError || (error as? StoreError)?.isUsageError == true {
    output.flush()
    printError("error: \(error)")
    return 2
  } catch let error as ExitStatus {
    output.flush()
    if !error.message.isEmpty { printError(error.message) }
    return error.status
  } catch {
    output.flush()
    printError("error: \(FaultReport.message(error, storePath: storePath))")
    return 1
  }
}

/// A size in bytes, with an optional K, M, G or T suffix (powers of 1024): "512M" → 536870912.
func byteCount(_ text: String) -> Int? {
  let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
  var digits = Substring(text)
  var shift = 0
  if let last = digits.last?.uppercased().first, let unit = units[last] {
    shift = unit
    digits = digits.dropLast()
  }
  guard let value = Int(digits), value >= 0, value <= Int.max >> shift else { return nil }
  return value << shift
}

extension StoreError {
  /// Errors of the command's arguments rather than of the store: exit status 2.
  var isUsageError: Bool {
    switch self {
    case .unknownCollection, .invalidRecord, .versionsReversed: true
    default: false
    }
  }
}

/// Ends a command with a given status and message, for outcomes that are not exceptions.
struct ExitStatus: Error {
  var status: Int32
  var message: String
}

signal(SIGPIPE, SIG_IGN)
exit(run())
