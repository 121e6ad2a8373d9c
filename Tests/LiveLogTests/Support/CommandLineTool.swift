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

  /// A copy of the built `livelog` in `directory`, where another user may run it (the build
  /// directory may not be theirs to read). Written through a descriptor closed on exec: tests
  /// start processes on other threads meanwhile, and a child that inherited a plain descriptor
  /// would hold the copy open for writing as long as it runs, so that running the copy failed
  /// with "Text file busy".
  static func copyOfExecutable(in directory: String) throws -> String {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: executable))
    let path = directory + "/livelog"
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(descriptor) }
    try bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, base + offset, buffer.count - offset)
        guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        offset += written
      }
    }
    return path
  }

  /// Runs `binary` (a `copyOfExecutable`) as `nobody` through setpriv, which the tests use when
  /// they run as root. A child forked by another thread in the instant between its fork and its
  /// exec still holds the copy's descriptor, so a "Text file busy" is tried again.
  static func launchAsNobody(_ binary: String, _ arguments: [String], input: String? = nil) throws -> Result {
    var attempt = 0
    while true {
      let result = try launch(
        "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments,
        input: input)
      attempt += 1
      guard result.status == 126, result.stderr.contains("Text file busy"), attempt < 50 else {
        return result
      }
      usleep(100_000)
    }
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
