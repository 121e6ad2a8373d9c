/// One field of a collection: its query name, type, indexes and place in the stored encoding.
public struct Field: Sendable, Hashable, CustomStringConvertible {
  /// The field's slot: its place in the stored encoding of the collection's records, fixed for
  /// the life of the collection. Slots are handed out in order as fields are declared and never
  /// reused, so a record written under any version of the schema reads under every later one.
  public let position: Int
  /// The name in queries and JSON; dotted for nested objects (`owner.login`).
  public let name: String
  public let type: FieldType
  public let indexes: IndexKinds
  /// Whether a record may lack the field (`null` in JSON, `nil` in Swift).
  public let isOptional: Bool

  public init(position: Int, name: String, type: FieldType, indexes: IndexKinds = [], isOptional: Bool = true)
  {
    self.position = position
    self.name = name
    self.type = type
    self.indexes = indexes
    self.isOptional = isOptional
  }

  public var description: String { name }

  /// The same field at another slot.
  func at(_ position: Int) -> Field {
    Field(position: position, name: name, type: type, indexes: indexes, isOptional: isOptional)
  }

  /// The same field with other indexes.
  func indexed(_ indexes: IndexKinds) -> Field {
    Field(position: position, name: name, type: type, indexes: indexes, isOptional: isOptional)
  }

  /// Whether `other` declares the same field: name, type and optionality (indexes may differ).
  func sameDeclaration(as other: Field) -> Bool {
    name == other.name && type == other.type && isOptional == other.isOptional
  }

  /// "stars (integer, optional, ordered index)", for messages that compare declarations.
  var declarationText: String {
    var parts = [type.description, isOptional ? "optional" : "required"]
    if !indexes.isEmpty { parts.append("\(indexes) index") }
    return "\(name) (\(parts.joined(separator: ", ")))"
  }
}
