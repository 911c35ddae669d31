/// A `Duration` as the fractional numbers timings are reported and configured in.
extension Duration {
    /// The duration in milliseconds, with fractions.
    public var inMilliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }

    /// The duration in seconds, with fractions.
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
