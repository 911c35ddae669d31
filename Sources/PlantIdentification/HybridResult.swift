import Foundation
import PlantGuideCore

/// The hybrid identifier's answer: both sources' identifications when present, the preferred one, and why.
public struct HybridResult: Sendable, Codable, Hashable {
    /// The strategy that produced it.
    public var strategy: IdentificationStrategy
    /// The answer to show, enriched from the catalog.
    public var preferred: Identification
    /// The on-device identification, if it ran and succeeded.
    public var onDevice: Identification?
    /// Pl@ntNet's identification (or its cached copy), if asked and successful.
    public var online: Identification?
    /// Whether Pl@ntNet said "Species not found" (the photo does not look like a plant).
    public var notAPlant: Bool
    /// Catalog entries to suggest when the preferred answer is uncertain ("did you mean…").
    public var suggestions: [CatalogPlant]
    /// Pl@ntNet requests left today, when known.
    public var remainingRequests: Int?
    /// Why a source that was tried gave no answer (e.g. "Pl@ntNet cannot be reached…"), for display.
    public var notes: [String]
    /// Time from start to answer, in milliseconds.
    public var totalMilliseconds: Double
    /// Whether Pl@ntNet was asked and could not be reached (no connection, timed out, or backing off after a
    /// failure). Never set when it was not asked, e.g. because the device's answer was confident.
    public var onlineUnreachable = false
    /// Why this answer is worth a Pl@ntNet re-check later: the device answered because Pl@ntNet could not be reached
    /// or was out of quota, or the device was unsure and Pl@ntNet gave no answer. `nil` when Pl@ntNet answered or the
    /// device was confident.
    public var recheckReason: RecheckReason?

    /// Where the preferred answer came from.
    public var source: IdentificationSource { preferred.source }
}

/// Why the hybrid identifier gave no answer at all.
public enum HybridError: Error, Sendable {
    /// The strategy needs the on-device classifier and none is installed.
    case onDeviceUnavailable(String)
    /// The strategy needs Pl@ntNet and it is not configured (no key, bad URL).
    case onlineUnavailable(String)
    /// The only source asked failed.
    case failed(IdentificationSource, any Error)
    /// Both sources were asked and both failed.
    case bothFailed(onDevice: any Error, online: any Error)
    /// No photo was given.
    case noPhotos
}

extension HybridError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .onDeviceUnavailable(let reason): "On-device identification is not available: \(reason)"
        case .onlineUnavailable(let reason): "Pl@ntNet identification is not available: \(reason)"
        case .failed(.onDevice, let error): "On-device identification failed: \(error)"
        case .failed(_, let error): "\(error)"
        case .bothFailed(let onDevice, let online):
            "Both identifiers failed. On the device: \(onDevice) Pl@ntNet: \(online)"
        case .noPhotos: "No photo to identify."
        }
    }

    public var errorDescription: String? { description }
}
