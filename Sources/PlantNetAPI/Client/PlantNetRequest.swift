import Foundation
import PlantGuideCore

/// One photo ready to send: already re-encoded as JPEG by the upload preparation, with its organ.
public struct PlantNetImage: Sendable, Hashable {
    /// The JPEG bytes sent as an `images` part.
    public var jpeg: Data
    /// The organ the photo shows.
    public var organ: PlantNetOrgan
    /// Hex SHA-256 of the original photo; the cache key.
    public var sha256: String
    /// 64-bit perceptual hash of the photo, when known; lets the cache match a re-saved copy.
    public var perceptualHash: UInt64?

    /// Creates an image to send.
    public init(jpeg: Data, organ: PlantNetOrgan = .auto, sha256: String, perceptualHash: UInt64? = nil) {
        self.jpeg = jpeg
        self.organ = organ
        self.sha256 = sha256
        self.perceptualHash = perceptualHash
    }
}

/// Options of one identification request (the query of `POST /v2/identify/{project}`).
public struct PlantNetOptions: Sendable, Hashable, Codable {
    /// The flora to search, e.g. `all`, `weurope`, `k-world-flora`.
    public var project: String
    /// Language of common names, e.g. `en`.
    public var language: String
    /// How many candidates to ask for.
    public var resultCount: Int
    /// Whether to include reference images of each candidate (large answers).
    public var includeRelatedImages: Bool
    /// Whether to ask for candidates even when the photo does not look like a plant.
    public var noReject: Bool

    /// Creates options; the defaults are the spec's (`all`, English, 10 candidates, no images).
    public init(
        project: String = "all", language: String = "en", resultCount: Int = 10,
        includeRelatedImages: Bool = false, noReject: Bool = false
    ) {
        self.project = project
        self.language = language
        self.resultCount = resultCount
        self.includeRelatedImages = includeRelatedImages
        self.noReject = noReject
    }
}

/// The rules the service enforces, checked before anything is sent.
public enum PlantNetRequestRules {
    /// At most this many photos per request.
    public static let maximumImages = PhotoUploadRules.maximumPhotos
    /// At most this many bytes of photos per request (50 MB).
    public static let maximumTotalBytes = 50 * 1_048_576

    /// Throws `invalidRequest` when photos of these organs (one per photo) cannot be sent together: a photo of the whole
    /// plant (habit) or of something else (other) needs one of a primary organ beside it (leaf, flower, fruit, bark, or
    /// auto), and is not combined with auto. The one place these rules are kept: the web app and the command line
    /// check organs here before anything is sent.
    public static func validate(organs: [PlantNetOrgan]) throws(PlantNetError) {
        switch problem(organs: organs) {
        case nil:
            return
        case .noPrimaryOrgan:
            throw .invalidRequest(
                "a photo of the whole plant (habit) or of something else (other) needs a photo of a leaf, flower, fruit or "
                    + "bark beside it, or one whose organ is left to Pl@ntNet (auto)."
            )
        case .secondaryWithAuto:
            throw .invalidRequest(
                "a photo of the whole plant (habit) or of something else (other) cannot be sent with one whose organ is "
                    + "left to Pl@ntNet (auto): name the organ of each photo."
            )
        }
    }

    /// Why photos of these organs cannot be sent together, for callers that word it in their own vocabulary.
    public enum OrganProblem: Sendable, Equatable {
        /// Only habit and other: no photo of a primary organ.
        case noPrimaryOrgan
        /// habit or other beside auto.
        case secondaryWithAuto
    }

    /// What ``validate(organs:)`` refuses in these organs, or `nil` when Pl@ntNet takes them.
    public static func problem(organs: [PlantNetOrgan]) -> OrganProblem? {
        guard organs.contains(where: \.isPrimary) else { return .noPrimaryOrgan }
        if organs.contains(.auto), organs.contains(where: { $0 == .habit || $0 == .other }) { return .secondaryWithAuto }
        return nil
    }

    /// Throws `invalidRequest` or `payloadTooLarge` when the images cannot be sent as they are.
    public static func validate(_ images: [PlantNetImage], options: PlantNetOptions) throws(PlantNetError) {
        guard !images.isEmpty else { throw .invalidRequest("at least one photo is needed.") }
        guard images.count <= maximumImages else {
            throw .invalidRequest("at most \(maximumImages) photos of one plant per request (got \(images.count)).")
        }
        try validate(organs: images.map(\.organ))
        let total = images.reduce(0) { $0 + $1.jpeg.count }
        guard total <= maximumTotalBytes else { throw .payloadTooLarge(bytes: total) }
        guard !options.project.isEmpty, options.project.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        else { throw .invalidRequest("project '\(options.project)' is not a valid project name.") }
        guard (1...100).contains(options.resultCount) else {
            throw .invalidRequest("the number of results must be between 1 and 100.")
        }
    }
}
