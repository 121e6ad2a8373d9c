import Changesets
import Testing

@Test func placeholder() {
  #expect(Changeset() == Changeset())
}
