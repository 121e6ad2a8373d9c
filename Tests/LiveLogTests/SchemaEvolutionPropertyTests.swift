import TestSupport
import Testing

@testable import LiveLog

/// `SchemaEvolution.between` against the rules its documentation states, written out here field
/// by field, over random stored schemas and random later declarations of them.
@Suite struct SchemaEvolutionPropertyTests {
  /// What the rules say a declaration does to a stored schema.
  enum Expected: Equatable {
    case unchanged
    case compatible
    case needsMigration
  }

  static func expected(stored: CollectionSchema, declared: CollectionSchema) -> Expected {
    let old = Dictionary(uniqueKeysWithValues: stored.fields.map { ($0.name, $0) })
    let new = Dictionary(uniqueKeysWithValues: declared.fields.map { ($0.name, $0) })
    var changed = false
    if stored.primaryKey.name != declared.primaryKey.name
      || stored.primaryKey.type != declared.primaryKey.type
    {
      return .needsMigration
    }
    for (name, was) in old {
      guard let now = new[name], now.type == was.type else { return .needsMigration }
      if was.isOptional && !now.isOptional { return .needsMigration }
      if was.isOptional != now.isOptional || was.indexes != now.indexes { changed = true }
    }
    for (name, now) in new where old[name] == nil {
      guard now.isOptional else { return .needsMigration }
      changed = true
    }
    return changed ? .compatible : .unchanged
  }

  static let types: [FieldType] = [.integer, .string, .double, .bool, .date]

  /// Some of the indexes a field of `type` may have.
  static func randomIndexes(_ type: FieldType, _ random: inout SplitMix64) -> IndexKinds {
    IndexKinds(rawValue: type.allowedIndexes.rawValue & UInt8.random(in: 0...7, using: &random))
  }

  static func randomStored(_ random: inout SplitMix64) -> CollectionSchema {
    var fields = [Field(position: 0, name: "id", type: .integer, indexes: .ordered, isOptional: false)]
    // Slots with gaps, as retired fields leave them.
    var slot = 1
    for index in 0..<Int.random(in: 1...6, using: &random) {
      slot += Int.random(in: 0...1, using: &random)
      let type = types.randomElement(using: &random) ?? .string
      fields.append(
        Field(
          position: slot, name: "f\(index)", type: type, indexes: randomIndexes(type, &random),
          isOptional: Bool.random(using: &random)))
      slot += 1
    }
    return CollectionSchema(name: "things", primaryKey: "id", slotted: fields, slotCount: slot + 1)
  }

  /// A later declaration, its fields in another order: unedited one time in four, else with one
  /// or two edits (some of which change nothing, and some of which make it invalid).
  static func randomDeclaration(of stored: CollectionSchema, _ random: inout SplitMix64) -> CollectionSchema {
    var fields = stored.fields.shuffled(using: &random)
    var key = "id"
    let edits = Int.random(in: 0...3, using: &random) == 0 ? 0 : Int.random(in: 1...2, using: &random)
    for _ in 0..<edits {
      let index = Int.random(in: 0..<fields.count, using: &random)
      let field = fields[index]
      switch Int.random(in: 0..<9, using: &random) {
      case 0: fields[index] = field.indexed(randomIndexes(field.type, &random))
      case 1:
        fields[index] = Field(
          position: 0, name: field.name, type: field.type, indexes: field.indexes,
          isOptional: !field.isOptional)
      case 2:
        let type = types.randomElement(using: &random) ?? .string
        fields[index] = Field(
          position: 0, name: field.name, type: type, indexes: randomIndexes(type, &random),
          isOptional: field.isOptional)
      case 3: if field.name != "id" { fields.remove(at: index) }
      case 4:
        fields.append(
          Field(
            position: 0, name: "new\(fields.count)", type: .string, isOptional: Bool.random(using: &random)))
      case 5:
        fields[index] = Field(
          position: 0, name: field.name + "_renamed", type: field.type, indexes: field.indexes,
          isOptional: field.isOptional)
      case 6:
        // Another key, the fields left alone.
        if let other = fields.first(where: {
          $0.name != key && !$0.isOptional && ($0.type == .integer || $0.type == .string)
        }) {
          key = other.name
        }
      case 7: fields.append(field)
      default: break
      }
    }
    if !fields.contains(where: { $0.name == key }) { key = fields[0].name }
    return CollectionSchema(name: stored.name, primaryKey: key, fields: fields)
  }

  /// A schema equals another when their names, fields with their slots, keys and slots used
  /// are equal, whichever values hold them: one built again from its parts (given in another
  /// order) equals it, hashes alike and answers alike; random later declarations equal it exactly
  /// when those parts do.
  @Test func equalityFollowsTheDeclaredParts() throws {
    var random = SplitMix64(seed: 29)
    var different = 0
    for _ in 0..<1_000 {
      let stored = try Self.randomStored(&random).validated()
      let again = CollectionSchema(
        name: stored.name, primaryKey: stored.primaryKey.name,
        slotted: stored.fields.shuffled(using: &random),
        slotCount: stored.slotCount)
      #expect(again == stored && again.hashValue == stored.hashValue, "\(stored)")
      #expect(again.description == stored.description)
      #expect((try? again.validated()) != nil)
      for slot in -1...(stored.slotCount + 1) {
        #expect(again.field(atSlot: slot) == stored.field(atSlot: slot))
      }
      for field in stored.fields { #expect(again.field(named: field.name) == field) }
      let other = Self.randomDeclaration(of: stored, &random)
      let sameParts =
        other.name == stored.name && other.fields == stored.fields && other.primaryKey == stored.primaryKey
        && other.slotCount == stored.slotCount
      #expect((other == stored) == sameParts, "\(stored) → \(other)")
      if !sameParts { different += 1 }
    }
    #expect(different > 0)
  }

  @Test func agreesWithTheRulesOverRandomDeclarations() throws {
    var random = SplitMix64(seed: 17)
    var seen: [Expected: Int] = [:]
    var invalid = 0
    for _ in 0..<3_000 {
      let stored = try Self.randomStored(&random).validated()
      let candidate = Self.randomDeclaration(of: stored, &random)
      guard let declared = try? candidate.validated() else {
        // A commit passes its declaration unvalidated: the shortcut never takes an invalid one
        // (a field twice, a key of another type or optional) for the stored schema.
        invalid += 1
        #expect(!stored.sameDeclaration(as: candidate), "\(stored) → \(candidate)")
        continue
      }
      let expected = Self.expected(stored: stored, declared: declared)
      seen[expected, default: 0] += 1
      // The shortcut answers every unchanged declaration itself, not only some of them.
      #expect(stored.sameDeclaration(as: declared) == (expected == .unchanged), "\(stored) → \(declared)")
      let evolution = SchemaEvolution.between(stored: stored, declared: declared)
      switch evolution {
      case .unchanged: #expect(expected == .unchanged, "\(stored) → \(declared)")
      case .needsMigration: #expect(expected == .needsMigration, "\(stored) → \(declared)")
      case .compatible(let schema, _, _):
        #expect(expected == .compatible, "\(stored) → \(declared)")
        // The evolved schema keeps every stored slot and declares what was declared.
        #expect(schema != stored)
        for field in stored.fields { #expect(schema.field(named: field.name)?.position == field.position) }
        #expect(Set(schema.fields.map(\.name)) == Set(declared.fields.map(\.name)))
      }
    }
    // Each outcome is exercised, and invalid declarations too.
    #expect(seen[.unchanged, default: 0] > 300)
    #expect(seen[.compatible, default: 0] > 300)
    #expect(seen[.needsMigration, default: 0] > 300)
    #expect(invalid > 100)
  }
}
