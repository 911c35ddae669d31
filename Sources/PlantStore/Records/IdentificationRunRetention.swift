import Foundation
import PlantGuideCore

/// How long the log of identifications keeps them: the statistics look at the last few hundred and at 30 days of
/// Pl@ntNet use, so the log is bounded by both age and count and never grows without end.
public struct IdentificationRunRetention: Sendable, Hashable {
    /// Runs older than this are dropped.
    public var maximumAge: TimeInterval
    /// At most this many runs are kept, the newest.
    public var maximumCount: Int

    /// Creates a retention bound.
    public init(maximumAge: TimeInterval, maximumCount: Int) {
        self.maximumAge = maximumAge
        self.maximumCount = maximumCount
    }

    /// 90 days and 20,000 runs (a few MB): more than 30 days of Pl@ntNet's 500 free identifications a day.
    public static let standard = IdentificationRunRetention(maximumAge: 90 * 86_400, maximumCount: 20_000)
}
