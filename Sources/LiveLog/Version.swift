/// The version of this LiveLog build.
public enum LiveLogVersion {
  public static let string = "0.1.0"
}
