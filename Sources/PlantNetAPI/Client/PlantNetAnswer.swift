import Foundation
import PlantGuideCore

/// What one identification request returned.
public struct PlantNetAnswer: Sendable, Codable, Hashable {
    /// The candidates as an identification (source `plantNetAPI`, or `cache` when served from the cache).
    /// Empty predictions when the service found no plant (its 404 "Species not found").
    public var identification: Identification
    /// Whether the service answered "Species not found": the photo does not look like a plant.
    public var notAPlant: Bool
    /// Requests left today, from the answer's body or its `RateLimit` header.
    public var remainingRequests: Int?
    /// Seconds until the quota resets, from the `RateLimit` header.
    public var secondsUntilReset: Int?

    /// Creates an answer.
    public init(identification: Identification, notAPlant: Bool, remainingRequests: Int?, secondsUntilReset: Int?) {
        self.identification = identification
        self.notAPlant = notAPlant
        self.remainingRequests = remainingRequests
        self.secondsUntilReset = secondsUntilReset
    }
}

/// A flora that can be searched (`GET /v2/projects`).
public struct PlantNetProject: Sendable, Codable, Hashable {
    /// Identifier used in the request path, e.g. `weurope`.
    public var id: String
    /// Human title, e.g. `Western Europe`.
    public var title: String?
    /// Number of species, when given.
    public var speciesCount: Int?

    /// Creates a project entry.
    public init(id: String, title: String?, speciesCount: Int?) {
        self.id = id
        self.title = title
        self.speciesCount = speciesCount
    }
}
