import Foundation
import LiveLog

let queryCommand = Command(
  name: "query",
  summary: "print the repositories that match a predicate",
  help: """
    usage: livelog query 'PREDICATE' [--sort FIELD[:asc|:desc]]... [--limit N] [--as-of LSN]
                         [--format table|json|ndjson]

    PREDICATE is NSPredicate / Realm query language over the API's field names, e.g.
      full_name CONTAINS[c] 'anim' AND language == 'Swift'
      stargazers_count BETWEEN {100, 1000} AND NOT fork == true
      ANY topics == 'ios' SORT(stargazers_count DESC) LIMIT(10)
    (see Docs/QueryLanguage.md). Without a sort, results come in insertion order.

    options:
      --sort FIELD[:asc|:desc]  sort key, repeatable; after any SORT(...) in the predicate
      --limit N                 at most N results
      --as-of LSN               the results the store gave at version LSN
      --format F                table (default), json (an array of repository objects in the
                                API's shape) or ndjson (one object per line)
    """,
  run: { arguments, context in
    let sorts = try arguments.values("--sort")
    let limit = try arguments.integer("--limit", in: 0...Int.max)
    let asOf = try arguments.integer("--as-of", in: UInt64(0)...UInt64.max)
    let format = try arguments.choice("--format", ["table", "json", "ndjson"]) ?? "table"
    let positional = try arguments.remaining()
    guard positional.count == 1, let text = positional.first else {
      throw UsageError(message: "query needs exactly one PREDICATE (quote it)")
    }
    let query = try parsedQuery(text, sorts: sorts, limit: limit)
    let store = try context.openStore(readOnly: true)
    if let asOf, asOf > (try store.version()) {
      throw UsageError(message: "--as-of \(asOf) is past the store's version \(try store.version())")
    }
    let results = try store.results(query, asOf: asOf)
    let output = context.output
    switch format {
    case "json":
      output.write("[")
      for index in results.indices {
        if index > 0 { output.write(",\n") }
        output.write(try results.repository(at: index).json)
      }
      output.line("]")
    case "ndjson":
      for index in results.indices { output.line(bytes: try results.repository(at: index).jsonBytes) }
    default:
      var rows: [[String]] = [["FULL NAME", "LANGUAGE", "STARS", "DESCRIPTION"]]
      for index in results.indices {
        let repository = try results.repository(at: index)
        rows.append([
          TerminalSafe.escaped(repository.fullName), repository.language.map(TerminalSafe.escaped) ?? "-",
          repository.stargazersCount.map(grouped) ?? "-",
          repository.description.map { String(TerminalSafe.escaped($0).prefix(60)) } ?? "",
        ])
      }
      printTable(rows, to: output)
      output.line(
        "\(grouped(results.count)) repositor\(results.count == 1 ? "y" : "ies") (store version \(results.version))"
      )
    }
    return 0
  }
)

let explainCommand = Command(
  name: "explain",
  summary: "show how a query is answered: indexes, estimates and candidates",
  help: """
    usage: livelog explain 'PREDICATE'

    Runs the query and prints its plan: which index serves which part, the rows each part was
    estimated to produce and did produce, which parts were left to a per-row check, and how many
    records were read to check candidates.
    """,
  run: { arguments, context in
    let positional = try arguments.remaining()
    guard positional.count == 1, let text = positional.first else {
      throw UsageError(message: "explain needs exactly one PREDICATE (quote it)")
    }
    let query = try Query(parsing: text)
    let store = try context.openStore(readOnly: true)
    let explanation = try store.explain(query)
    let output = context.output
    output.line("query: \(TerminalSafe.escaped(query.text))")
    for step in explanation.steps {
      var line = String(repeating: "  ", count: step.depth + 1) + TerminalSafe.escaped(step.description)
      var figures: [String] = []
      if let estimated = step.estimated { figures.append("estimated \(grouped(estimated))") }
      if let actual = step.actual { figures.append("actual \(grouped(actual))") }
      figures.append(step.exact ? "exact" : "candidates")
      if let skipped = step.skipped { figures.append("skipped: \(TerminalSafe.escaped(skipped))") }
      line += "  [" + figures.joined(separator: ", ") + "]"
      output.line(line)
    }
    output.line("records checked: \(grouped(explanation.checked))")
    output.line("results: \(grouped(explanation.results))")
    output.line(explanation.usesIndex ? "plan: index" : "plan: scan")
    return 0
  }
)

/// Prints rows as aligned columns; the last column is not padded.
func printTable(_ rows: [[String]], to output: Output) {
  guard let columns = rows.first?.count else { return }
  var widths = [Int](repeating: 0, count: columns)
  for row in rows {
    for (index, cell) in row.enumerated() where index < columns - 1 {
      widths[index] = max(widths[index], cell.count)
    }
  }
  for row in rows {
    var line = ""
    for (index, cell) in row.enumerated() {
      if index == columns - 1 {
        line += cell
      } else if index == 2 {
        line += String(repeating: " ", count: widths[index] - cell.count) + cell + "  "
      } else {
        line += cell + String(repeating: " ", count: widths[index] - cell.count) + "  "
      }
    }
    output.line(line)
  }
}
