import Foundation

/// SIGPIPE ignored, once per test process.
private let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// Runs the `livelog` executable built next to the test bundle, as a user would.
struct CommandLineTool {
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
    /// Whether the process was ended by a signal (a crash), in which case `status` is the signal.
    var signalled = false
  }

  /// The built `livelog`: `$LIVELOG_BINARY`, else beside the test runner.
  static let executable: String = {
    if let path = ProcessInfo.processInfo.environment["LIVELOG_BINARY"] { return path }
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return runner.appendingPathComponent("livelog").path
  }()

  let store: String

  /// Runs `livelog --store STORE arguments...`, feeding `input` to standard input.
  @discardableResult
  func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Result
  {
    try CommandLineTool.launch(
      CommandLineTool.executable, ["--store", store] + arguments, input: input, environment: environment)
  }

  /// Runs any program to its end, feeding `input` to standard input.
  static func launch(
    _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
  ) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let stdout = Pipe()
    let stderr = Pipe()
    let stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    // A child that exits before reading all its input (a refused ingest) closes the pipe: the
    // write must fail with EPIPE, not end the test process by SIGPIPE.
    _ = ignoreBrokenPipes
    try process.run()
    if let input { try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
    try? stdin.fileHandleForWriting.close()
    // Read both pipes to their ends before waiting, so a large output cannot block the child.
    let group = DispatchGroup()
    nonisolated(unsafe) var errorData = Data()
    group.enter()
    DispatchQueue.global().async {
      errorData = stderr.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      stdout: String(decoding: outputData, as: UTF8.self),
      stderr: String(decoding: errorData, as: UTF8.self),
      signalled: process.terminationReason == .uncaughtSignal)
  }
}
