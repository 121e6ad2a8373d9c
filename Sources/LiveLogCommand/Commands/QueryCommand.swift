import Foundation
import LiveLog

let queryCommand = Command(
  name: "query",
  summary: "print the records that match a predicate",
  help: """
    usage: livelog query 'PREDICATE' [--collection NAME] [--sort FIELD[:asc|:desc]]... [--limit N]
                         [--arg VALUE | --arg-json JSON]... [--as-of LSN] [--format table|json|ndjson]

    PREDICATE is NSPredicate / Realm query language over the collection's field names (for
    repositories, the API's), e.g.
      full_name CONTAINS[c] 'anim' AND language == 'Swift'
      stargazers_count BETWEEN {100, 1000} AND NOT fork == true
      ANY topics == 'ios' SORT(stargazers_count DESC) LIMIT(10)
      stargazers_count > %@ AND language IN %@   --arg 100 --arg-json '["Go", "Rust"]'
    (see Docs/QueryLanguage.md). Without a sort, results come in insertion order.

    options:
      --collection NAME         the collection to query (default: repositories)
      --sort FIELD[:asc|:desc]  sort key, repeatable; after any SORT(...) in the predicate
      --limit N                 at most N results
    \(CollectionOption.argumentHelp)
      --as-of LSN               the results the store gave at version LSN
      --format F                table (default), json (an array of record objects shaped by the
                                schema: for repositories, the API's) or ndjson (one object per line)
    """,
  run: { arguments, context in
    let collection = try CollectionOption(&arguments)
    let queryArguments = try CollectionOption.queryArguments(&arguments)
    let sorts = try arguments.values("--sort")
    let limit = try arguments.integer("--limit", in: 0...Int.max)
    let asOf = try arguments.integer("--as-of", in: UInt64(0)...UInt64.max)
    let format = try arguments.choice("--format", ["table", "json", "ndjson"]) ?? "table"
    let positional = try arguments.remaining()
    guard positional.count == 1, let text = positional.first else {
      throw UsageError(message: "query needs exactly one PREDICATE (quote it)")
    }
    let store = try context.openStore(readOnly: true)
    let query = try collection.query(text, in: store, arguments: queryArguments, sorts: sorts, limit: limit)
    if let asOf, asOf > (try store.version()) {
      throw UsageError(message: "--as-of \(asOf) is past the store's version \(try store.version())")
    }
    var results = try collection.objects(in: store).with(query)
    if let asOf { results = results.asOf(asOf) }
    try results.evaluate()
    let output = context.output
    switch format {
    case "json":
      output.write("[")
      for index in results.indices {
        if index > 0 { output.write(",\n") }
        output.write(try results.record(at: index).json)
      }
      output.line("]")
    case "ndjson":
      for index in results.indices { output.line(bytes: try results.record(at: index).jsonBytes) }
    default:
      let records = try results.indices.map { try results.record(at: $0) }
      RecordText.table(records, schema: results.schema).print(to: output)
      let noun =
        collection.isRepositories
        ? "repositor\(results.count == 1 ? "y" : "ies")"
        : "record\(results.count == 1 ? "" : "s") of \(collection.name)"
      output.line("\(grouped(results.count)) \(noun) (store version \(results.version))")
    }
    return 0
  }
)

let explainCommand = Command(
  name: "explain",
  summary: "show how a query is answered: indexes, estimates and candidates",
  help: """
    usage: livelog explain 'PREDICATE' [--collection NAME] [--arg VALUE | --arg-json JSON]...

    Runs the query and prints its plan: which index serves which part, the rows each part was
    estimated to produce and did produce, which parts were left to a per-row check, and how many
    records were read to check candidates.
    """,
  run: { arguments, context in
    let collection = try CollectionOption(&arguments)
    let queryArguments = try CollectionOption.queryArguments(&arguments)
    let positional = try arguments.remaining()
    guard positional.count == 1, let text = positional.first else {
      throw UsageError(message: "explain needs exactly one PREDICATE (quote it)")
    }
    let store = try context.openStore(readOnly: true)
    let query = try collection.query(text, in: store, arguments: queryArguments, sorts: [], limit: nil)
    guard try store.schema(of: collection.name) != nil else {
      context.output.line("query: \(query.text)")
      context.output.line("the store holds no \(collection.name) yet: no rows")
      return 0
    }
    let explanation = try store.explain(query, in: collection.name)
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

/// Rows of text cells printed as aligned columns under a header.
struct TextTable {
  var header: [String]
  /// The columns (numbers) aligned right; the others are aligned left.
  var rightAligned: Set<Int>
  var rows: [[String]] = []

  /// Prints the header and the rows; the last column is not padded when it is aligned left.
  func print(to output: Output) {
    let lines = [header] + rows
    var widths = [Int](repeating: 0, count: header.count)
    for row in lines {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    for row in lines {
      var line = ""
      for (index, cell) in row.enumerated() {
        let padding = String(repeating: " ", count: widths[index] - cell.count)
        if index > 0 { line += "  " }
        if rightAligned.contains(index) {
          line += padding + cell
        } else {
          line += index == header.count - 1 ? cell : cell + padding
        }
      }
      output.line(line)
    }
  }
}
