import Foundation
import LiveLog

#if canImport(Glibc)
  import Glibc
#endif

let commands: [Command] = [
  ingestCommand,
  queryCommand,
  explainCommand,
  watchCommand,
  searchCommand,
  diffCommand,
  logCommand,
  replayCommand,
  verifyCommand,
  exportCommand,
  importCommand,
  statsCommand,
]

let toolHelp = """
  livelog — an event-sourced store of GitHub repositories with live queries

  usage: livelog [--store DIR] <command> [options]

  The store is DIR, else $LIVELOG_STORE, else ./livelog.store.

  commands:
  \(commands.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

  `livelog <command> --help` describes a command. Exit status: 0 success, 2 usage, query or
  input error (nothing was written), 1 any other failure.
  """

func run() -> Int32 {
  var raw = Array(CommandLine.arguments.dropFirst())
  var storePath = ProcessInfo.processInfo.environment["LIVELOG_STORE"] ?? "livelog.store"
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
    } else {
      printError("error: unknown option \(first)\n\n\(toolHelp)")
      return 2
    }
  }
  guard let name = raw.first else {
    printError(toolHelp)
    return 2
  }
  guard let command = commands.first(where: { $0.name == name }) else {
    printError("error: unknown command '\(name)'\n\n\(toolHelp)")
    return 2
  }
  var arguments = Arguments(raw.dropFirst())
  if arguments.flag("--help", "-h") {
    print(command.help)
    return 0
  }
  let output = Output()
  defer { output.flush() }
  do {
    return try command.run(&arguments, CommandContext(storePath: storePath, output: output))
  } catch let error as UsageError {
    output.flush()
    printError("error: \(error.message)\n\n\(command.help)")
    return 2
  } catch let error as QueryError {
    output.flush()
    printError("error: \(error)")
    return 2
  } catch let error as InputError {
    output.flush()
    printError("error: \(error)\nnothing was written.")
    return 2
  } catch let error as ExitStatus {
    output.flush()
    if !error.message.isEmpty { printError(error.message) }
    return error.status
  } catch {
    output.flush()
    printError("error: \(error)")
    return 1
  }
}

/// Ends a command with a given status and message, for outcomes that are not exceptions.
struct ExitStatus: Error {
  var status: Int32
  var message: String
}

signal(SIGPIPE, SIG_IGN)
exit(run())
