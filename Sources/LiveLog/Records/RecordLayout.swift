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
  /// The probe's instances (`RecordProbe.run`), for finding which field a key path reads.
  let probes: any Sendable

  private static let cache = Mutex<[ObjectIdentifier: Result<RecordLayout, SchemaError>]>([:])

  /// The layout of `R`, computed on first use.
  /// The declared field of `R` that `keyPath` reads, found by reading it on the probe's
  /// instances: key paths that name one property in two spellings (`\R.id` through `Identifiable`
  /// and `\Repository.id`) are different values but read the same sentinel.
  static func field<R: Record, V: FieldValueConvertible>(reading keyPath: KeyPath<R, V>) -> Field? {
    guard let layout = try? of(R.self), let instances = layout.probes as? [R], let base = instances.first
    else {
      return nil
    }
    let schema = R.schema
    let read = { (instance: R) in instance[keyPath: keyPath].fieldValue }
    for (index, field) in schema.declarations.enumerated() {
      if field.type == .bool {
        guard V.fieldType == .bool, read(base) != .bool(true) else { continue }
        if instances.indices.dropFirst().allSatisfy({ read(instances[$0]) == field.read(instances[$0]) }) {
          return schema.declaration.fields[index]
        }
      } else if field.read(base) == read(base), field.type == V.fieldType {
        return schema.declaration.fields[index]
      }
    }
    return nil
  }

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
    for field in schema.declarations {
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
          + "declares: declare it (every decoded property is stored), or leave it out of the type's Codable form"
      )
    }
    return RecordLayout(paths: paths, probes: instances)
  }
}
