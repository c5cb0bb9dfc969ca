extension Duration {
    /// The duration in seconds, fractions included: `.milliseconds(1_500).inSeconds` is 1.5.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
