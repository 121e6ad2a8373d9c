import Foundation
import LiveLog

/// The peer of the query and ingest scenarios: the same repositories in SQLite, with the same
/// fields and exactly LiveLog's indexes — a B-tree index for each field LiveLog indexes by
/// equality or order (the primary key is the rowid; `topics`, a list LiveLog files element by
/// element, is a table of (topic, repository) pairs), and an FTS5 `trigram` index over the text
/// fields LiveLog indexes by substring.
final class SQLiteRepositoryStore {
  let database: SQLiteDatabase
  private let insertRow: Statement
  private let insertText: Statement
  private let insertTopic: Statement
  private let selectText: Statement
  private let updateRow: Statement
  private let deleteText: Statement
  private let deleteTopics: Statement

  /// `durable`: WAL with `synchronous=FULL` (an fsync per commit, like LiveLog's durable mode);
  /// otherwise `synchronous=OFF` (like LiveLog's no-sync mode).
  init(path: String, durable: Bool) throws {
    database = try SQLiteDatabase(path: path)
    try database.execute(
      """
      PRAGMA journal_mode=WAL;
      PRAGMA synchronous=\(durable ? "FULL" : "OFF");
      PRAGMA cache_size=-262144;
      CREATE TABLE IF NOT EXISTS repos(
        id INTEGER PRIMARY KEY, node_id TEXT, full_name TEXT NOT NULL, name TEXT, owner_login TEXT,
        owner_avatar_url TEXT, html_url TEXT, description TEXT, language TEXT, fork INTEGER,
        archived INTEGER, license TEXT, topics TEXT, stargazers_count INTEGER, forks_count INTEGER,
        watchers_count INTEGER, open_issues_count INTEGER, size INTEGER, created_at INTEGER,
        updated_at INTEGER, pushed_at INTEGER, default_branch TEXT);
      CREATE TABLE IF NOT EXISTS repo_topics(topic TEXT NOT NULL, repo INTEGER NOT NULL,
        PRIMARY KEY(topic, repo)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS repos_language ON repos(language);
      CREATE INDEX IF NOT EXISTS repos_owner ON repos(owner_login);
      CREATE INDEX IF NOT EXISTS repos_fork ON repos(fork);
      CREATE INDEX IF NOT EXISTS repos_archived ON repos(archived);
      CREATE INDEX IF NOT EXISTS repos_license ON repos(license);
      CREATE INDEX IF NOT EXISTS repos_stars ON repos(stargazers_count);
      CREATE INDEX IF NOT EXISTS repos_forks ON repos(forks_count);
      CREATE INDEX IF NOT EXISTS repos_watchers ON repos(watchers_count);
      CREATE INDEX IF NOT EXISTS repos_issues ON repos(open_issues_count);
      CREATE INDEX IF NOT EXISTS repos_size ON repos(size);
      CREATE INDEX IF NOT EXISTS repos_created ON repos(created_at);
      CREATE INDEX IF NOT EXISTS repos_updated ON repos(updated_at);
      CREATE INDEX IF NOT EXISTS repos_pushed ON repos(pushed_at);
      CREATE VIRTUAL TABLE IF NOT EXISTS repos_text USING fts5(
        full_name, name, description, owner_login, content='', tokenize='trigram');
      """)
    insertRow = try database.prepare(
      """
      INSERT OR REPLACE INTO repos VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
        ?16, ?17, ?18, ?19, ?20, ?21, ?22)
      """)
    insertText = try database.prepare(
      "INSERT INTO repos_text(rowid, full_name, name, description, owner_login) VALUES (?1, ?2, ?3, ?4, ?5)")
    insertTopic = try database.prepare("INSERT OR IGNORE INTO repo_topics VALUES (?1, ?2)")
    selectText = try database.prepare(
      "SELECT full_name, name, description, owner_login, topics FROM repos WHERE id = ?1")
    updateRow = try database.prepare(
      """
      UPDATE repos SET node_id = ?2, full_name = ?3, name = ?4, owner_login = ?5, owner_avatar_url = ?6,
        html_url = ?7, description = ?8, language = ?9, fork = ?10, archived = ?11, license = ?12,
        topics = ?13, stargazers_count = ?14, forks_count = ?15, watchers_count = ?16,
        open_issues_count = ?17, size = ?18, created_at = ?19, updated_at = ?20, pushed_at = ?21,
        default_branch = ?22
      WHERE id = ?1
      """)
    // A contentless FTS5 table forgets a row's entries given the text they were made from.
    deleteText = try database.prepare(
      """
      INSERT INTO repos_text(repos_text, rowid, full_name, name, description, owner_login)
      VALUES ('delete', ?1, ?2, ?3, ?4, ?5)
      """)
    deleteTopics = try database.prepare("DELETE FROM repo_topics WHERE repo = ?1")
  }

  /// The row's 22 columns, in the order of `repos` (the statement's parameters ?1 … ?22).
  private func bindRow(_ statement: Statement, _ r: Repository) {
    statement.bind(1, r.id)
    statement.bind(2, r.nodeID)
    statement.bind(3, r.fullName)
    statement.bind(4, r.name)
    statement.bind(5, r.ownerLogin)
    statement.bind(6, r.ownerAvatarURL)
    statement.bind(7, r.htmlURL)
    statement.bind(8, r.description)
    statement.bind(9, r.language)
    statement.bind(10, r.isFork.map { $0 ? 1 : 0 })
    statement.bind(11, r.isArchived.map { $0 ? 1 : 0 })
    statement.bind(12, r.licenseSPDXID)
    statement.bind(13, r.topics?.joined(separator: ","))
    statement.bind(14, r.stargazersCount)
    statement.bind(15, r.forksCount)
    statement.bind(16, r.watchersCount)
    statement.bind(17, r.openIssuesCount)
    statement.bind(18, r.size)
    statement.bind(19, r.createdAt?.secondsSince1970)
    statement.bind(20, r.updatedAt?.secondsSince1970)
    statement.bind(21, r.pushedAt?.secondsSince1970)
    statement.bind(22, r.defaultBranch)
  }

  private func insertText(of r: Repository) throws {
    insertText.bind(1, r.id)
    insertText.bind(2, r.fullName)
    insertText.bind(3, r.name)
    insertText.bind(4, r.description)
    insertText.bind(5, r.ownerLogin)
    try insertText.run()
  }

  private func insertTopics(of r: Repository) throws {
    for topic in r.topics ?? [] {
      insertTopic.bind(1, topic)
      insertTopic.bind(2, r.id)
      try insertTopic.run()
    }
  }

  /// Writes a page of records, new or already stored, in one transaction, as an app refreshing
  /// search results would with SQLite: a new id is inserted with its text and topics; a stored
  /// one is updated in place, and its text and topics are filed again only when they changed.
  func upsert(_ page: [Repository]) throws {
    try database.execute("BEGIN")
    for r in page {
      selectText.bind(1, r.id)
      guard let old = try selectText.texts(columns: 5) else {
        bindRow(insertRow, r)
        try insertRow.run()
        try insertText(of: r)
        try insertTopics(of: r)
        continue
      }
      bindRow(updateRow, r)
      try updateRow.run()
      if old[0] != r.fullName || old[1] != r.name || old[2] != r.description || old[3] != r.ownerLogin {
        deleteText.bind(1, r.id)
        for column in 0..<4 { deleteText.bind(Int32(column + 2), old[column]) }
        try deleteText.run()
        try insertText(of: r)
      }
      if old[4] != r.topics?.joined(separator: ",") {
        deleteTopics.bind(1, r.id)
        try deleteTopics.run()
        try insertTopics(of: r)
      }
    }
    try database.execute("COMMIT")
  }

  /// Inserts a batch in one transaction (new ids only: the contentless FTS table is not updated).
  func insert(_ batch: ArraySlice<Repository>) throws {
    try database.execute("BEGIN")
    for r in batch {
      bindRow(insertRow, r)
      try insertRow.run()
      try insertText(of: r)
      try insertTopics(of: r)
    }
    try database.execute("COMMIT")
  }

  /// Bytes of pages in use per kind of object (`dbstat`): the table, its B-tree indexes (the
  /// topics table among them) and the FTS5 index's shadow tables.
  func pageBytes() throws -> (table: Int, indexes: Int, text: Int) {
    let statement = try database.prepare("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")
    var sizes = (table: 0, indexes: 0, text: 0)
    for (name, bytes) in try statement.namedIntegers() {
      if name == "repos" {
        sizes.table += Int(bytes)
      } else if name.hasPrefix("repos_text") {
        sizes.text += Int(bytes)
      } else {
        sizes.indexes += Int(bytes)
      }
    }
    return sizes
  }
}
