extension Int {
    /// The count with its noun, singular for one: `1.counted("scan")` is "1 scan",
    /// `3.counted("fix", "fixes")` is "3 fixes".
    package func counted(_ singular: String, _ plural: String? = nil) -> String {
        "\(self) " + (self == 1 ? singular : plural ?? singular + "s")
    }
}
