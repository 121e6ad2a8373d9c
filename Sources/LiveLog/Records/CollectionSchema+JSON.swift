/// The JSON form of a schema, the one `livelog collection create --schema FILE` reads and
/// `collection show` prints:
///
/// ```json
/// {"name": "bookmarks", "primary_key": "id", "fields": [
///   {"name": "id", "type": "string"},
///   {"name": "title", "type": "string", "indexes": ["substring"]},
///   {"name": "stars", "type": "integer", "indexes": ["ordered"]},
///   {"name": "owner.login", "type": "string", "indexes": ["equality", "substring"], "optional": false}]}
/// ```
///
/// Every field but the primary key is optional unless it says `"optional": false`. The stored
/// form (in schema events and the catalog) adds each field's `"slot"` and the schema's
/// `"slots"`; a schema file may carry them too, and they are ignored when it declares a new
/// collection.
extension CollectionSchema {
  /// The schema as JSON; `slots` adds the stored form's slot numbers.
  func jsonBytes(slots: Bool) -> [UInt8] {
    var writer = JSONWriter()
    write(to: &writer, slots: slots)
    return writer.bytes
  }

  /// The schema as JSON text, as `collection show` prints it.
  public var json: String { String(decoding: jsonBytes(slots: false), as: UTF8.self) }

  func write(to writer: inout JSONWriter, slots: Bool) {
    writer.beginObject()
    writer.key("name")
    writer.string(name)
    writer.key("primary_key")
    writer.string(primaryKey.name)
    if slots {
      writer.key("slots")
      writer.integer(slotCount)
    }
    writer.key("fields")
    writer.beginArray()
    for field in fields {
      writer.beginObject()
      writer.key("name")
      writer.string(field.name)
      writer.key("type")
      writer.string(field.type.rawValue)
      if !field.indexes.isEmpty {
        writer.key("indexes")
        writer.beginArray()
        for name in field.indexes.names { writer.string(name) }
        writer.endArray()
      }
      if !field.isOptional && field.name != primaryKey.name {
        writer.key("optional")
        writer.bool(false)
      }
      if slots {
        writer.key("slot")
        writer.integer(field.position)
      }
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
  }

  /// Reads a schema from JSON. `name` names the collection when the JSON does not (a schema file
  /// given to `collection create NAME`); `slots` keeps the slots the JSON gives (the stored form)
  /// instead of numbering the fields in order. Errors name the place in the input.
  static func read(
    _ value: JSONValue, at offset: Int, name given: String?, slots: Bool, locator: SourceLocator
  ) throws(InputError) -> CollectionSchema {
    guard case .object(let object) = value else {
      throw locator.error(at: offset, "expected a schema object, found \(value.typeDescription)")
    }
    func string(_ member: JSONObject.Member, _ field: String) throws(InputError) -> String {
      guard case .string(let text) = member.value else {
        throw locator.error(
          at: member.offset, field: field, "expected a string, found \(member.value.typeDescription)")
      }
      return text
    }
    func integer(_ member: JSONObject.Member, _ field: String) throws(InputError) -> Int {
      guard case .number(let number) = member.value, let value = number.integer,
        let exact = Int(exactly: value),
        exact >= 0, exact <= 4_096
      else {
        throw locator.error(at: member.offset, field: field, "expected a whole number from 0 to 4096")
      }
      return exact
    }
    let name: String
    if let member = object["name"] {
      name = try string(member, "name")
      if let given, given != name {
        throw locator.error(
          at: member.offset, field: "name", "the schema names the collection '\(name)', not '\(given)'")
      }
    } else if let given {
      name = given
    } else {
      throw locator.error(at: offset, field: "name", "missing: the schema must name its collection")
    }
    guard let keyMember = object["primary_key"] else {
      throw locator.error(at: offset, field: "primary_key", "missing: name the field that is the primary key")
    }
    let keyName = try string(keyMember, "primary_key")
    guard let fieldsMember = object["fields"], case .array(let elements) = fieldsMember.value else {
      throw locator.error(
        at: object["fields"]?.offset ?? offset, field: "fields", "expected an array of fields")
    }
    var fields: [Field] = []
    for (index, element) in elements.enumerated() {
      let place = "fields[\(index)]"
      guard case .object(let declaration) = element.value else {
        throw locator.error(at: element.offset, field: place, "expected a field object")
      }
      guard let nameMember = declaration["name"] else {
        throw locator.error(at: element.offset, field: place, "missing its \"name\"")
      }
      let fieldName = try string(nameMember, "\(place).name")
      guard let typeMember = declaration["type"] else {
        throw locator.error(at: element.offset, field: fieldName, "missing its \"type\"")
      }
      let typeName = try string(typeMember, "\(fieldName).type")
      guard let type = FieldType(rawValue: typeName) else {
        throw locator.error(
          at: typeMember.offset, field: fieldName,
          "unknown type '\(typeName.prefix(40))'; the types are "
            + FieldType.allCases.map(\.rawValue).joined(separator: ", "))
      }
      var indexes: IndexKinds = []
      if let indexMember = declaration["indexes"] {
        guard case .array(let kinds) = indexMember.value else {
          throw locator.error(
            at: indexMember.offset, field: fieldName, "\"indexes\" must be an array of names")
        }
        for kind in kinds {
          guard case .string(let kindName) = kind.value, let parsed = IndexKinds(named: kindName) else {
            throw locator.error(
              at: kind.offset, field: fieldName,
              "unknown index; the kinds are " + IndexKinds.named.map(\.1).joined(separator: ", "))
          }
          indexes.insert(parsed)
        }
      }
      var optional = fieldName != keyName
      if let optionalMember = declaration["optional"] {
        guard case .bool(let flag) = optionalMember.value else {
          throw locator.error(
            at: optionalMember.offset, field: fieldName, "\"optional\" must be true or false")
        }
        optional = flag
      }
      var slot = fields.count
      if slots {
        guard let slotMember = declaration["slot"] else {
          throw locator.error(at: element.offset, field: fieldName, "missing its \"slot\"")
        }
        slot = try integer(slotMember, "\(fieldName).slot")
      }
      fields.append(
        Field(position: slot, name: fieldName, type: type, indexes: indexes, isOptional: optional))
    }
    var slotCount: Int?
    if slots, let member = object["slots"] { slotCount = try integer(member, "slots") }
    return CollectionSchema(name: name, primaryKey: keyName, slotted: fields, slotCount: slotCount)
  }

  /// Reads the stored form, written by this store: a failure is damage.
  static func stored(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> CollectionSchema {
    let buffer = bytes.assumingMemoryBound(to: UInt8.self)
    let value: JSONValue
    do {
      value = try JSONParser.parse(buffer)
    } catch {
      throw .corruptState(reason: "a stored schema is not JSON: \(error.message)")
    }
    let locator = SourceLocator(source: "stored schema", text: buffer, firstLine: 1, item: nil)
    do {
      return try read(value, at: 0, name: nil, slots: true, locator: locator).validated()
    } catch let error as InputError {
      throw .corruptState(reason: "a stored schema cannot be read: \(error)")
    } catch {
      throw .corruptState(reason: "a stored schema is not valid: \(error)")
    }
  }
}

extension CollectionSchema {
  /// The schema in a schema file (the JSON form above), for the collection `collection`; errors
  /// name the file, line and column. Check the declaration with `validated()`.
  public init(json file: RecordFile, collection: String) throws(InputError) {
    let result: Result<CollectionSchema, InputError> = file.bytes.withUnsafeBufferPointer { buffer in
      let locator = SourceLocator(source: file.source, text: buffer, firstLine: 1, item: nil)
      do {
        let value = try JSONParser.parse(buffer)
        return .success(
          try CollectionSchema.read(value, at: 0, name: collection, slots: false, locator: locator))
      } catch let error as JSONSyntaxError {
        return .failure(locator.error(at: error.offset, error.message))
      } catch let error as InputError {
        return .failure(error)
      } catch {
        return .failure(InputError(source: file.source, message: "\(error)"))
      }
    }
    self = try result.get()
  }
}
