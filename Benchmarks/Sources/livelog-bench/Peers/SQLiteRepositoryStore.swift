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
  }

  /// Inserts a batch in one transaction (new ids only: the contentless FTS table is not updated).
  func insert(_ batch: ArraySlice<Repository>) throws {
    try database.execute("BEGIN")
    for r in batch {
      insertRow.bind(1, r.id)
      insertRow.bind(2, r.nodeID)
      insertRow.bind(3, r.fullName)
      insertRow.bind(4, r.name)
      insertRow.bind(5, r.ownerLogin)
      insertRow.bind(6, r.ownerAvatarURL)
      insertRow.bind(7, r.htmlURL)
      insertRow.bind(8, r.description)
      insertRow.bind(9, r.language)
      insertRow.bind(10, r.isFork.map { $0 ? 1 : 0 })
      insertRow.bind(11, r.isArchived.map { $0 ? 1 : 0 })
      insertRow.bind(12, r.licenseSPDXID)
      insertRow.bind(13, r.topics?.joined(separator: ","))
      insertRow.bind(14, r.stargazersCount)
      insertRow.bind(15, r.forksCount)
      insertRow.bind(16, r.watchersCount)
      insertRow.bind(17, r.openIssuesCount)
      insertRow.bind(18, r.size)
      insertRow.bind(19, r.createdAt?.secondsSince1970)
      insertRow.bind(20, r.updatedAt?.secondsSince1970)
      insertRow.bind(21, r.pushedAt?.secondsSince1970)
      insertRow.bind(22, r.defaultBranch)
      try insertRow.run()
      insertText.bind(1, r.id)
      insertText.bind(2, r.fullName)
      insertText.bind(3, r.name)
      insertText.bind(4, r.description)
      insertText.bind(5, r.ownerLogin)
      try insertText.run()
      for topic in r.topics ?? [] {
        insertTopic.bind(1, topic)
        insertTopic.bind(2, r.id)
        try insertTopic.run()
      }
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
