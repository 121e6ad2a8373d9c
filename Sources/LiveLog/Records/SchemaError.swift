/// A record type or collection declared in a way the engine cannot store, or a declaration that
/// changed in a way the store cannot follow on its own. Nothing was written.
///
/// `description` names the collection and, where there is one, the field:
/// `collection 'bookmarks', field 'stars': an integer field cannot have a substring index; …`.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The collection (or record type) declared.
  public var collection: String
  /// The field at fault, when the problem is one field.
  public var field: String?
  /// What is wrong and what to do about it.
  public var message: String

  public init(collection: String, field: String? = nil, message: String) {
    self.collection = collection
    self.field = field
    self.message = message
  }

  public var description: String {
    var place = "collection '\(collection)'"
    if let field { place += ", field '\(field)'" }
    return "\(place): \(message)"
  }
}
