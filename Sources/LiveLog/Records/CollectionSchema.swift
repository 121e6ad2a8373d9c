/// A collection's fields and primary key: what the engine stores, indexes and queries.
///
/// Every record type, `Repository` included, comes down to one of these; so does a schema file of
/// `livelog collection create`. A declaration lists fields in the order they were written, and
/// each field's `position` is its slot in the stored encoding. Once a collection is stored, its
/// slots are fixed: a field added later takes the next free slot, and a field a migration retires
/// keeps its slot forever unused, so every record ever written reads under the current schema.
public struct CollectionSchema: Sendable, Hashable, CustomStringConvertible {
  /// The collection's name: letters, digits and `_`, starting with a letter.
  public var name: String { storage.name }
  /// The fields in slot order, the primary key among them.
  public var fields: [Field] { storage.fields }
  /// The primary key: an `integer` or `string` field every record has.
  public var primaryKey: Field { storage.primaryKey }
  /// One past the highest slot ever used, retired slots included.
  public var slotCount: Int { storage.slotCount }
  /// Field indexes by name and by slot (-1 for a free or retired slot).
  private var byName: [String: Int] { storage.byName }
  private var bySlot: [Int] { storage.bySlot }
  /// What is wrong with the declaration, if anything; `validated()` throws it.
  private var problem: SchemaError? { storage.problem }
  /// The fields with at least one index, in slot order, as the indexes read them.
  var indexedFields: [IndexedField] { storage.indexedFields }

  /// The schema's parts, which every copy shares: a schema is copied into each query's run and
  /// results, and in a profile copying seven references took a twentieth of a small query's time.
  private final class Storage: Sendable {
    let name: String
    let fields: [Field]
    let primaryKey: Field
    let slotCount: Int
    let byName: [String: Int]
    let bySlot: [Int]
    let problem: SchemaError?
    let indexedFields: [IndexedField]
    /// Each slot's indexed field, `nil` for a slot without indexes, free or retired.
    let indexedBySlot: [IndexedField?]

    init(
      name: String, fields: [Field], primaryKey: Field, slotCount: Int, byName: [String: Int], bySlot: [Int],
      problem: SchemaError?
    ) {
      self.name = name
      self.fields = fields
      self.primaryKey = primaryKey
      self.slotCount = slotCount
      self.byName = byName
      self.bySlot = bySlot
      self.problem = problem
      indexedFields = fields.compactMap(IndexedField.init)
      indexedBySlot = bySlot.map { $0 >= 0 ? IndexedField(fields[$0]) : nil }
    }
  }
  private let storage: Storage

  /// Equal when the declarations are: the name, the fields with their slots, the key and the
  /// slots used decide every other part.
  public static func == (left: CollectionSchema, right: CollectionSchema) -> Bool {
    left.storage === right.storage
      || (left.name == right.name && left.fields == right.fields && left.primaryKey == right.primaryKey
        && left.slotCount == right.slotCount)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(fields)
    hasher.combine(primaryKey)
    hasher.combine(slotCount)
  }

  /// The most slots a collection may use: an index key names its field in one byte.
  public static let maximumSlots = 255
  /// The longest collection and field names.
  static let maximumNameLength = 64

  /// A declaration: `primaryKey` names one of `fields`, which take slots in their order (the
  /// `position` each field carries is ignored). Check it with `validated()`.
  public init(name: String, primaryKey: String, fields declared: [Field]) {
    self.init(name: name, primaryKey: primaryKey, slotted: declared.enumerated().map { $1.at($0) })
  }

  /// Fields that already carry their slots (a stored schema, or an evolved declaration).
  init(name: String, primaryKey keyName: String, slotted: [Field], slotCount: Int? = nil) {
    let sorted = slotted.sorted { $0.position < $1.position }
    var names: [String: Int] = [:]
    var problem: SchemaError?
    func fail(_ field: String?, _ message: String) {
      if problem == nil { problem = SchemaError(collection: name, field: field, message: message) }
    }
    let count = max(slotCount ?? 0, (sorted.last?.position ?? -1) + 1)
    var slots = [Int](repeating: -1, count: max(count, 0))
    for (index, field) in sorted.enumerated() {
      if names[field.name] != nil {
        fail(field.name, "the field is declared twice; each name may appear once")
      } else {
        names[field.name] = index
      }
      if field.position >= 0 && field.position < slots.count {
        if slots[field.position] >= 0 { fail(field.name, "slot \(field.position) is taken twice") }
        slots[field.position] = index
      } else {
        fail(field.name, "slot \(field.position) is out of range")
      }
    }
    let key = names[keyName].map { sorted[$0] }
    if problem == nil {
      problem = CollectionSchema.check(name: name, fields: sorted, key: key, keyName: keyName, slots: count)
    }
    storage = Storage(
      name: name, fields: sorted,
      primaryKey: key ?? Field(position: -1, name: keyName, type: .integer, isOptional: false),
      slotCount: count,
      byName: names, bySlot: slots, problem: problem)
  }

  /// The field called `name`, or `nil`.
  public func field(named name: String) -> Field? {
    byName[name].map { fields[$0] }
  }

  /// The field called `name`, looked for first at `index` of `fields`: where two declarations of
  /// one collection list their fields in the same order (nearly always), no name is hashed. The
  /// same answer as `field(named:)` where names are distinct (a stored or validated schema).
  func field(named name: String, probablyAt index: Int) -> Field? {
    if fields.indices.contains(index), fields[index].name == name { return fields[index] }
    return field(named: name)
  }

  /// The field stored in `slot`, or `nil` for a free or retired slot.
  func field(atSlot slot: Int) -> Field? {
    fieldIndex(atSlot: slot).map { fields[$0] }
  }

  /// The field stored in `slot` as the indexes read it, or `nil` for a slot without indexes.
  func indexedField(atSlot slot: Int) -> IndexedField? {
    slot >= 0 && slot < storage.indexedBySlot.count ? storage.indexedBySlot[slot] : nil
  }

  /// The index in `fields` of the field stored in `slot`, or `nil` for a free or retired slot:
  /// for loops over every record that read a field's parts in place rather than copy it.
  func fieldIndex(atSlot slot: Int) -> Int? {
    guard slot >= 0, slot < bySlot.count, bySlot[slot] >= 0 else { return nil }
    return bySlot[slot]
  }

  /// The declaration, or the first thing wrong with it.
  public func validated() throws(SchemaError) -> CollectionSchema {
    if let problem { throw problem }
    return self
  }

  /// Whether both declare the same fields, key and indexes (slots aside). `self`'s names must be
  /// distinct (a stored or validated schema); `other` may be any declaration, since matching
  /// every one of `self`'s fields among as many of `other`'s leaves it no duplicate.
  func sameDeclaration(as other: CollectionSchema) -> Bool {
    guard name == other.name, primaryKey.name == other.primaryKey.name, fields.count == other.fields.count
    else { return false }
    return fields.indices.allSatisfy { index in
      let field = fields[index]
      return other.field(named: field.name, probablyAt: index).map {
        $0.sameDeclaration(as: field) && $0.indexes == field.indexes
      } ?? false
    }
  }

  public var description: String {
    "\(name) (key \(primaryKey.name); \(fields.map(\.declarationText).joined(separator: ", ")))"
  }

  private static func check(name: String, fields: [Field], key: Field?, keyName: String, slots: Int)
    -> SchemaError?
  {
    func fail(_ field: String?, _ message: String) -> SchemaError {
      SchemaError(collection: name, field: field, message: message)
    }
    guard isValidCollectionName(name) else {
      return fail(
        nil,
        "a collection name is 1 to \(maximumNameLength) letters, digits and '_', starting with a letter")
    }
    guard slots <= maximumSlots else {
      return fail(nil, "\(slots) slots are more than the \(maximumSlots) a collection may use")
    }
    guard let key else {
      return fail(
        keyName,
        "the primary key names no declared field; the fields are: \(fields.map(\.name).joined(separator: ", "))"
      )
    }
    guard key.type == .integer || key.type == .string else {
      return fail(
        key.name,
        "a primary key is an integer or a string (a UUID is stored as its string), not a \(key.type)")
    }
    guard !key.isOptional else {
      return fail(key.name, "the primary key must not be optional: every record has one")
    }
    for field in fields {
      if let problem = nameProblem(field.name) { return fail(field.name, problem) }
      let disallowed = field.indexes.subtracting(field.type.allowedIndexes)
      if !disallowed.isEmpty {
        return fail(
          field.name,
          "a \(field.type) field cannot have a \(disallowed) index (it may have: \(field.type.allowedIndexes))"
        )
      }
    }
    // `owner` and `owner.login` cannot both be fields: in JSON, owner is either a value or an
    // object holding login.
    let names = Set(fields.map(\.name))
    for field in fields {
      var prefix = Substring(field.name)
      while let dot = prefix.lastIndex(of: ".") {
        prefix = prefix[..<dot]
        if names.contains(String(prefix)) {
          return fail(
            field.name, "'\(prefix)' is a field too, so it cannot also be an object holding this one")
        }
      }
    }
    return nil
  }

  static func isValidCollectionName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= maximumNameLength,
      first.isASCIILetter
    else { return false }
    return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
  }

  /// Why `name` cannot name a field, or `nil`: dotted parts of letters, digits and `_`, each
  /// starting with a letter or `_`, and not a word of the query language.
  static func nameProblem(_ name: String) -> String? {
    guard !name.isEmpty, name.count <= maximumNameLength * 2 else {
      return "a field name is 1 to \(maximumNameLength * 2) characters"
    }
    for part in name.split(separator: ".", omittingEmptySubsequences: false) {
      guard let first = part.unicodeScalars.first, first.isASCIILetter || first == "_",
        part.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" })
      else {
        return "a field name is dotted parts of letters, digits and '_', each starting with a letter or '_'"
      }
    }
    if Token.reservedWords.contains(name.uppercased()) {
      return "'\(name)' is a word of the query language and cannot name a field"
    }
    return nil
  }
}

extension Unicode.Scalar {
  var isASCIILetter: Bool { (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A) }
  var isASCIIDigit: Bool { value >= 0x30 && value <= 0x39 }
}
