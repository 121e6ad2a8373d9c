import Synchronization

/// Where each declared field of a record type lives in the type's `Codable` form: the coding
/// path the store decodes it from (`full_name` is the property `fullName`; `owner.login` may be
/// the property `login` of a nested `owner`).
///
/// Found once per type by `RecordProbe`, and checked against the declaration: a field whose key
/// path reads no decoded property, a decoded property no field declares, or a type that differs
/// is a `SchemaError` naming the field.
struct RecordLayout: Sendable {
  /// The coding path of each declared field, in declaration order.
  let paths: [[String]]

  private static let cache = Mutex<[ObjectIdentifier: Result<RecordLayout, SchemaError>]>([:])

  /// The layout of `R`, computed on first use.
  static func of<R: Record>(_ type: R.Type) throws(SchemaError) -> RecordLayout {
    let key = ObjectIdentifier(type)
    if let known = cache.withLock({ $0[key] }) { return try known.get() }
    let result = Result<RecordLayout, SchemaError> { () throws(SchemaError) in try compute(type) }
    cache.withLock { $0[key] = result }
    return try result.get()
  }

  private static func compute<R: Record>(_ type: R.Type) throws(SchemaError) -> RecordLayout {
    let schema = R.schema
    let collection = schema.declaration.name
    func fail(_ field: String?, _ message: String) -> SchemaError {
      SchemaError(collection: collection, field: field, message: message)
    }
    let leaves: [RecordProbe.Leaf]
    let instances: [R]
    do {
      (leaves, instances) = try RecordProbe.run(type)
    } catch {
      throw fail(
        nil,
        "\(type)'s property '\(error.path.joined(separator: "."))' \(error.message)")
    }
    var bySentinel: [FieldValue: Int] = [:]
    for (index, leaf) in leaves.enumerated() where leaf.kind != .bool {
      bySentinel[RecordProbe.sentinel(leaf.kind, index)] = index
    }
    let flags = leaves.indices.filter { leaves[$0].kind == .bool }
    var paths: [[String]] = []
    var claimed: [Int: String] = [:]
    for field in schema.fields {
      let leafIndex: Int?
      if field.type == .bool {
        let passes = instances.indices.dropFirst().filter { field.read(instances[$0]) == .bool(true) }
        leafIndex = passes.count == 1 && field.read(instances[0]) != .bool(true) ? flags[passes[0] - 1] : nil
      } else {
        leafIndex = bySentinel[field.read(instances[0])]
      }
      guard let leafIndex else {
        throw fail(
          field.name,
          "its key path does not read a property that \(type) decodes (a computed property, or one "
            + "its Codable conformance leaves out); declare stored, decoded properties only")
      }
      let leaf = leaves[leafIndex]
      let path = leaf.path.joined(separator: ".")
      if let other = claimed[leafIndex] {
        throw fail(field.name, "reads the same property '\(path)' as the field '\(other)'")
      }
      claimed[leafIndex] = field.name
      guard leaf.kind.fieldType == field.type else {
        throw fail(field.name, "the property '\(path)' decodes as \(leaf.kind.fieldType), not \(field.type)")
      }
      guard leaf.isOptional == field.isOptional else {
        throw fail(
          field.name,
          "the property '\(path)' is \(leaf.isOptional ? "optional" : "required") in \(type)'s Codable form "
            + "but \(field.isOptional ? "optional" : "required") in the key path's type")
      }
      paths.append(leaf.path)
    }
    if let missed = leaves.indices.first(where: { claimed[$0] == nil }) {
      throw fail(
        nil,
        "\(type) decodes the property '\(leaves[missed].path.joined(separator: "."))', which no field "
          + "declares: declare it (every decoded property is stored), or leave it out of the type's Codable form")
    }
    return RecordLayout(paths: paths)
  }
}
