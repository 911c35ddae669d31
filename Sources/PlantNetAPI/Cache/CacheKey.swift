import Foundation

/// What makes two identification requests the same question: the same photos (by SHA-256 of the original
/// file), the same organs in the same order, the same project and language.
public struct CacheKey: Sendable, Hashable, Codable {
    /// SHA-256 (hex) of each original photo, in request order.
    public var imageHashes: [String]
    /// Perceptual hash of each photo, when known; lets a re-saved copy of a photo hit the cache.
    public var perceptualHashes: [UInt64?]
    /// Organ of each photo.
    public var organs: [PlantNetOrgan]
    /// The flora searched.
    public var project: String
    /// Language of common names.
    public var language: String

    /// The key of a request.
    public init(images: [PlantNetImage], options: PlantNetOptions) {
        imageHashes = images.map(\.sha256)
        perceptualHashes = images.map(\.perceptualHash)
        organs = images.map(\.organ)
        project = options.project
        language = options.language
    }

    /// The exact-match identity, perceptual hashes left out.
    var exact: String {
        "\(project)|\(language)|" + zip(organs, imageHashes).map { "\($0.rawValue):\($1)" }.joined(separator: ",")
    }

    /// Whether `other` asks the same question about photos that look the same (each perceptual hash within
    /// `maximumDistance` bits).
    func looksLike(_ other: CacheKey, maximumDistance: Int) -> Bool {
        project == other.project && language == other.language && organs == other.organs
            && resembles(perceptualHashes: other.perceptualHashes, maximumDistance: maximumDistance)
    }

    /// Whether photos with these perceptual hashes look like this key's, photo by photo (each pair within
    /// `maximumDistance` bits; a photo without a hash matches nothing).
    public func resembles(
        perceptualHashes other: [UInt64?], maximumDistance: Int = IdentificationCache.perceptualMatchDistance
    ) -> Bool {
        guard perceptualHashes.count == other.count else { return false }
        for (mine, theirs) in zip(perceptualHashes, other) {
            guard let mine, let theirs, (mine ^ theirs).nonzeroBitCount <= maximumDistance else { return false }
        }
        return true
    }
}
