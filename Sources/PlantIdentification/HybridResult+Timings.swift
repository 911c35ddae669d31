import Foundation
import PlantGuideCore

extension HybridResult {
    /// Every stage this identification measured, by ``PlantGuideCore/IdentificationStage`` raw values: the
    /// device's decode, preprocess and inference when it answered, the upload preparation and Pl@ntNet's round trip
    /// when Pl@ntNet (or its cache, which makes no round trip) answered, and the total. The preferred answer's own
    /// `timings` cover its source only.
    public var stageTimings: [String: Double] {
        var timings = (onDevice?.timings ?? [:]).stageTimings
        timings.merge((online?.timings ?? [:]).stageTimings) { _, online in online }
        timings[stage: .total] = totalMilliseconds
        return timings
    }

    /// The preferred answer with every stage's timings (``stageTimings``), as the identification history keeps it.
    public var preferredWithTimings: Identification {
        var identification = preferred
        identification.timings = stageTimings
        return identification
    }

    /// The owner's plants the photos most likely show: from the on-device answer, whichever answer is preferred.
    public var collectionMatches: [CollectionMatch]? { onDevice?.collectionMatches ?? preferred.collectionMatches }

    /// This identification as the statistics log it, made at `date`.
    public func run(at date: Date) -> IdentificationRun {
        let answered = online?.source
        return IdentificationRun(
            date: date, strategy: strategy.rawValue, source: source, cacheHit: answered == .cache,
            apiCalled: answered == .plantNetAPI, remainingRequests: answered == .plantNetAPI ? remainingRequests : nil,
            timings: stageTimings
        )
    }
}
