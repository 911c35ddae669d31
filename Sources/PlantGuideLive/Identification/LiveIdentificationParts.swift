import Foundation
import PlantCatalog
import PlantGuideCore
import PlantIdentification
import PlantImaging
import PlantNetAPI
import PlantStore

/// The answer enrichment of the command line and the web app alike: the catalog, the species directory, the names
/// learned from Pl@ntNet and the care guide. A part that cannot be read is left out with a warning; an answer is never
/// refused for it.
public enum LiveEnrichment {
    /// The language common names are asked for and shown in when none is chosen.
    public static let defaultLanguage = "en"

    /// The enricher over the parts given.
    /// - Parameters:
    ///   - catalog: the loaded catalog, or `nil` when it could not be read (answers then name no catalog entries).
    ///   - learnedNames: the names learned from Pl@ntNet (the collection database's), if it opened.
    ///   - careGuide: the collection's care guide; the bundled one when `nil`, so answers carry care summaries even
    ///     where no collection opened.
    ///   - warn: told, in a sentence, about each part left out.
    public static func make(
        language: String = defaultLanguage, catalog: PlantCatalog?, learnedNames: LearnedNames?, careGuide: CareGuide? = nil,
        warn: (String) -> Void
    ) -> AnswerEnricher {
        var enricher = AnswerEnricher(catalog: catalog, learnedNames: learnedNames, language: language)
        let species = SpeciesDirectory()
        do {
            try species.load()
            enricher.directory = species
        } catch {
            warn("the species directory is unavailable, so on-device answers lack common names: \(error)")
        }
        if let guide = careGuide ?? (try? CareGuide.bundled()) {
            enricher.careProfile = { plant in guide.profile(for: plant, name: plant.scientificName) }
        }
        return enricher
    }
}

/// How Pl@ntNet is asked, on the command line and in the web app alike.
public enum LivePlantNet {
    /// The options of an identification: with the reference photos of each candidate, always, because the command
    /// line and the web app share one answer cache (whose key leaves the option out) and the web shows them.
    public static func options(project: String = "all", language: String = LiveEnrichment.defaultLanguage) -> PlantNetOptions {
        PlantNetOptions(project: project, language: language, includeRelatedImages: true)
    }

    /// A photo as Pl@ntNet receives it: JPEG quality 90, long side at most 1280 pixels, metadata stripped; hashed
    /// (SHA-256 and a perceptual hash) from the original, for the answer cache.
    @Sendable public static func prepare(_ photo: Data, organ: PlantNetOrgan) throws -> PlantNetImage {
        let prepared = try UploadPreparer().prepare(photo)
        return PlantNetImage(
            jpeg: prepared.jpeg, organ: organ, sha256: prepared.originalSHA256, perceptualHash: prepared.perceptualHash
        )
    }
}
