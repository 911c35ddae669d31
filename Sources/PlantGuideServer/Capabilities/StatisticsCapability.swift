import Foundation
import PlantGuideCore

/// The log of identifications behind the statistics in Settings: every identification the server makes is recorded
/// (saved or not), and summed up on request.
public struct StatisticsCapability: Sendable {
    /// Logs one identification.
    public var record: @Sendable (IdentificationRun) async throws -> Void
    /// The figures over the last `last` identifications, with Pl@ntNet use per day over the last 30 days.
    public var summary: @Sendable (_ last: Int) async throws -> IdentificationStatistics

    /// Creates the capability from its implementation.
    public init(
        record: @escaping @Sendable (IdentificationRun) async throws -> Void,
        summary: @escaping @Sendable (_ last: Int) async throws -> IdentificationStatistics
    ) {
        self.record = record
        self.summary = summary
    }
}
