/// A type whose values a store keeps: a `Codable` struct with an `id` and a schema.
///
/// ```swift
/// struct Bookmark: Record {
///   var id: UUID
///   var title: String
///   var url: String
///   var stars: Int?
///   var tags: [String]
///   var owner: Owner?
///   struct Owner: Codable, Sendable { var login: String }
///
///   static let schema = Schema<Bookmark>("bookmarks", fields: [
///     .field("title", \.title, indexes: .substring),
///     .field("url", \.url),
///     .field("stars", \.stars, indexes: .ordered),
///     .field("tags", \.tags, indexes: .equality),
///     .field("owner.login", \.owner?.login, indexes: [.equality, .substring]),
///   ])
/// }
/// ```
///
/// The record's `id` is its primary key (`Int64`, `Int`, `String` or `UUID`). Each field names a
/// stored property by its key path and gives it the name queries and JSON use; the field's type
/// and optionality come from the property's Swift type. The store reads records back through the
/// type's `Codable` conformance, so every property the type decodes must be declared: opening the
/// collection checks that, and throws a `SchemaError` naming the field for any mistake.
public protocol Record: Codable, Sendable, Identifiable where ID: PrimaryKeyValue {
  /// The collection, its fields and their indexes.
  static var schema: Schema<Self> { get }

  /// Fills in what an input record (a line of NDJSON, a row of CSV) leaves out, before it is
  /// checked against the schema. The default does nothing; `Repository` derives `full_name` from
  /// the `url` column of some CSV data sets and `owner.login` from `full_name`.
  /// Throw `InputProblem` to refuse the record.
  static func complete(_ input: inout InputRecord) throws(InputProblem)
}

extension Record {
  public static func complete(_ input: inout InputRecord) throws(InputProblem) {}
}
