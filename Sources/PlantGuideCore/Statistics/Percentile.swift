/// Percentiles by the nearest-rank method: the p-th percentile of n values is the smallest value with at least
/// p % of the values at or below it, i.e. the value at 1-based rank ⌈p/100 × n⌉ of the sorted values. It is
/// always one of the values (never interpolated), so a p95 of 20 timings is a timing that really happened.
public enum Percentile {
    /// The `percent`-th percentile (0 < percent ≤ 100) of `values`, or `nil` when there are none or `percent`
    /// is out of range. Non-finite values are left out.
    public static func nearestRank(_ percent: Double, of values: [Double]) -> Double? {
        let sorted = values.filter(\.isFinite).sorted()
        guard !sorted.isEmpty, percent > 0, percent <= 100 else { return nil }
        // `percent / 100 * n` in floating point can land a hair above a whole rank (0.07 × 100 = 7.000000000000001);
        // rounding to 1e-9 first keeps exact ranks exact.
        let exact = (percent * Double(sorted.count) / 100 * 1e9).rounded() / 1e9
        let rank = Int(exact.rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
