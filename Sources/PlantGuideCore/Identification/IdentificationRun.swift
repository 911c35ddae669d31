import Foundation

/// One identification as the statistics count it, whether or not it was saved: when, how, where the answer came
/// from and where the time went. No photo and no answer are kept.
public struct IdentificationRun: Sendable, Codable, Hashable {
    /// When the identification was made.
    public var date: Date
    /// The hybrid strategy it ran with: `on-device`, `api`, `on-device-first` or `parallel`.
    public var strategy: String
    /// Where the answer shown came from (the device, Pl@ntNet or its cache).
    public var source: IdentificationSource
    /// Whether Pl@ntNet's answer came from the cache (no request made, no quota spent).
    public var cacheHit: Bool
    /// Whether a request reached Pl@ntNet and it answered (a daily-quota identification spent).
    public var apiCalled: Bool
    /// Pl@ntNet identifications left today, as its answer said, when it answered.
    public var remainingRequests: Int?
    /// Milliseconds per stage, keyed by ``IdentificationStage`` raw values.
    public var timings: [String: Double]

    /// Creates a run; `timings` keeps only known stages (see ``IdentificationStage``).
    public init(
        date: Date, strategy: String, source: IdentificationSource, cacheHit: Bool, apiCalled: Bool,
        remainingRequests: Int? = nil, timings: [String: Double]
    ) {
        self.date = date
        self.strategy = strategy
        self.source = source
        self.cacheHit = cacheHit
        self.apiCalled = apiCalled
        self.remainingRequests = remainingRequests
        self.timings = timings.stageTimings
    }
}
