import CSQLite
import Foundation

/// A minimal SQLite connection for the benchmarks' peers.
final class SQLiteDatabase {
  struct Failure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  private let handle: OpaquePointer
  let path: String

  init(path: String) throws {
    var pointer: OpaquePointer?
    guard sqlite3_open_v2(path, &pointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
      let pointer
    else {
      throw Failure(message: "cannot open \(path)")
    }
    handle = pointer
    self.path = path
  }

  deinit { sqlite3_close_v2(handle) }

  func execute(_ sql: String) throws {
    var error: UnsafeMutablePointer<CChar>?
    if sqlite3_exec(handle, sql, nil, nil, &error) != SQLITE_OK {
      let message = error.map { String(cString: $0) } ?? "unknown error"
      sqlite3_free(error)
      throw Failure(message: "\(message) in: \(sql.prefix(200))")
    }
  }

  func prepare(_ sql: String) throws -> Statement {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
      throw Failure(message: "\(String(cString: sqlite3_errmsg(handle))) in: \(sql)")
    }
    return Statement(handle: statement, database: handle)
  }

  /// Bytes of the database file and its WAL.
  var fileSize: Int {
    let manager = FileManager.default
    return [path, path + "-wal"].reduce(0) { total, file in
      total + ((try? manager.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
    }
  }
}

/// A prepared statement: bind, step, read columns, reset.
final class Statement {
  private let handle: OpaquePointer
  private let database: OpaquePointer

  init(handle: OpaquePointer, database: OpaquePointer) {
    self.handle = handle
    self.database = database
  }

  deinit { sqlite3_finalize(handle) }

  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  func bind(_ index: Int32, _ value: Int64?) {
    if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
  }

  func bind(_ index: Int32, _ value: String?) {
    if let value {
      sqlite3_bind_text(handle, index, value, -1, Statement.transient)
    } else {
      sqlite3_bind_null(handle, index)
    }
  }

  /// Runs to completion, ignoring rows.
  func run() throws {
    defer { sqlite3_reset(handle) }
    var rc = sqlite3_step(handle)
    while rc == SQLITE_ROW { rc = sqlite3_step(handle) }
    guard rc == SQLITE_DONE else {
      throw SQLiteDatabase.Failure(message: String(cString: sqlite3_errmsg(database)))
    }
  }

  /// The first column of every row as integers.
  func integers() throws -> [Int64] {
    defer { sqlite3_reset(handle) }
    var result: [Int64] = []
    var rc = sqlite3_step(handle)
    while rc == SQLITE_ROW {
      result.append(sqlite3_column_int64(handle, 0))
      rc = sqlite3_step(handle)
    }
    guard rc == SQLITE_DONE else {
      throw SQLiteDatabase.Failure(message: String(cString: sqlite3_errmsg(database)))
    }
    return result
  }

  /// The rows as (text of the first column, integer of the second).
  func namedIntegers() throws -> [(String, Int64)] {
    defer { sqlite3_reset(handle) }
    var result: [(String, Int64)] = []
    var rc = sqlite3_step(handle)
    while rc == SQLITE_ROW {
      let name = sqlite3_column_text(handle, 0).map { String(cString: $0) } ?? ""
      result.append((name, sqlite3_column_int64(handle, 1)))
      rc = sqlite3_step(handle)
    }
    guard rc == SQLITE_DONE else {
      throw SQLiteDatabase.Failure(message: String(cString: sqlite3_errmsg(database)))
    }
    return result
  }

  /// The first row's first `columns` columns as text (nil for NULL), or nil when there is no row.
  func texts(columns: Int32) throws -> [String?]? {
    defer { sqlite3_reset(handle) }
    let rc = sqlite3_step(handle)
    guard rc == SQLITE_ROW else {
      guard rc == SQLITE_DONE else {
        throw SQLiteDatabase.Failure(message: String(cString: sqlite3_errmsg(database)))
      }
      return nil
    }
    return (0..<columns).map { column in sqlite3_column_text(handle, column).map { String(cString: $0) } }
  }

  /// The rows of `EXPLAIN QUERY PLAN`'s detail column, joined: how SQLite runs the statement.
  func planDetails() throws -> String {
    defer { sqlite3_reset(handle) }
    var details: [String] = []
    var rc = sqlite3_step(handle)
    while rc == SQLITE_ROW {
      details.append(sqlite3_column_text(handle, 3).map { String(cString: $0) } ?? "")
      rc = sqlite3_step(handle)
    }
    return details.joined(separator: "; ")
  }
}
