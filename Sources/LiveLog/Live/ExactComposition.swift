import Changesets

/// Where every composition of live changesets happens (in the hub, over the commits of one pass,
/// and in a consumer's channel, over the updates it has not taken yet), so that a composed
/// changeset means what `diff` between its two ends means.
///
/// Composing index sets alone reports a row as modified when either part modified it, so a row
/// changed and changed back (stars 2 → 9 → 2) would be reported. Here the rows the composition
/// calls modified are read at both ends and kept only when their content differs — in the
/// watched fields, when the subscription watches some.
enum ExactComposition {
  /// One end of a composition: the rows of the results then, and the collection then.
  struct End {
    var rows: RowList
    var view: VersionView?
  }

  /// `earlier` followed by `later`, from `start` to `end`, listing as modified only rows whose
  /// content (the `watching` fields; every field when `nil`) differs between the two ends.
  static func compose(
    _ earlier: Changeset, _ later: Changeset, from start: End, to end: End, watching: [Field]?
  ) -> Changeset {
    exact(earlier.composed(with: later), from: start, to: end, watching: watching)
  }

  /// `changeset` (from `start` to `end`) without the modifications of rows whose content is the
  /// same at both ends.
  static func exact(_ changeset: Changeset, from start: End, to end: End, watching: [Field]?) -> Changeset {
    guard !changeset.modifications.isEmpty, let before = start.view, let after = end.view else {
      return changeset
    }
    do {
      let old = try before.read { records in
        try changeset.modifications.map { try records.values(start.rows[$0]) }
      }
      let new = try after.read { records in
        try changeset.modificationsNew.map { try records.values(end.rows[$0]) }
      }
      return changeset.keepingModifications { index in
        guard let fields = watching else { return old[index] != new[index] }
        return fields.contains { field in
          value(old[index], field.position) != value(new[index], field.position)
        }
      }
    } catch {
      // A row that cannot be read at one end: report it rather than hide a change.
      return changeset
    }
  }

  private static func value(_ values: [FieldValue], _ slot: Int) -> FieldValue? {
    slot < values.count ? values[slot] : nil
  }
}

extension Results {
  /// The rows and the collection these results are as of, for `ExactComposition`.
  var compositionEnd: ExactComposition.End {
    let evaluation = evaluated
    return ExactComposition.End(rows: evaluation.rows, view: evaluation.view)
  }
}
