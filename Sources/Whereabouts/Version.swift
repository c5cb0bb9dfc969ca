/// Facts about this build of Whereabouts.
public enum WhereaboutsInfo {
    /// The version, in semantic-versioning form.
    public static let version = "0.1.0"
}
