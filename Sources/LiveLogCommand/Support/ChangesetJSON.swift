import Changesets
import LiveLog

/// The JSON lines of `watch` and `diff`:
/// `{"kind", "lsn", "count", "deletions", "insertions", "modifications", "modifications_new",
/// "moves": [[from, to], ...], "ids"?}`.
enum ChangesetJSON {
  static func object(kind: String, lsn: UInt64, count: Int, changeset: Changeset, ids: [PrimaryKey]?)
    -> String
  {
    func list(_ values: [Int]) -> String { "[" + values.map(String.init).joined(separator: ",") + "]" }
    var parts = [
      "\"kind\":\"\(kind)\"", "\"lsn\":\(lsn)", "\"count\":\(count)",
      "\"deletions\":\(list(changeset.deletions))", "\"insertions\":\(list(changeset.insertions))",
      "\"modifications\":\(list(changeset.modifications))",
      "\"modifications_new\":\(list(changeset.modificationsNew))",
      "\"moves\":[" + changeset.moves.map { "[\($0.from),\($0.to)]" }.joined(separator: ",") + "]",
    ]
    if let ids { parts.append("\"ids\":[" + ids.map(\.json).joined(separator: ",") + "]") }
    return "{" + parts.joined(separator: ",") + "}"
  }
}
