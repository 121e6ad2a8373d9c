extension Predicate {
  /// `parts` joined by AND, with nested ANDs flattened and a single part returned as itself.
  ///
  /// The parser, the typed form's `&&` and `Query.where`/`filter` all combine through here, so
  /// that `a AND (b AND c)`, `(a && b) && c` and `.where { a }.where { b && c }` build one value.
  static func conjunction(_ parts: [Predicate]) -> Predicate {
    var flat: [Predicate] = []
    for part in parts {
      if case .and(let inner) = part { flat.append(contentsOf: inner) } else { flat.append(part) }
    }
    return flat.count == 1 ? flat[0] : .and(flat)
  }

  /// `parts` joined by OR, flattened like `conjunction(_:)`.
  static func disjunction(_ parts: [Predicate]) -> Predicate {
    var flat: [Predicate] = []
    for part in parts {
      if case .or(let inner) = part { flat.append(contentsOf: inner) } else { flat.append(part) }
    }
    return flat.count == 1 ? flat[0] : .or(flat)
  }

  /// This predicate narrowed by `other`. `TRUEPREDICATE` (a new query's predicate) gives way
  /// entirely, so that `Query().filter("a")` equals `Query(parsing: "a")`, and adds nothing, so
  /// that `filter("SORT(name)")` only sorts.
  func narrowed(by other: Predicate) -> Predicate {
    if self == .constant(true) { return other }
    if other == .constant(true) { return self }
    return Predicate.conjunction([self, other])
  }
}
