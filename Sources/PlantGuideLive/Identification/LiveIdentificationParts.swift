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

extension LivePlantNet {
    /// Sends the photos of a health record that waited for Pl@ntNet to the disease service (through `service`, so the
    /// quota, back-off and cache are identify's), for the re-check queue (``RecheckDrain/diagnose``). `offload` runs the
    /// photos' re-encoding (the server gives it its work pool).
    public static func diagnoseWaiting(
        service: PlantNetService,
        offload: @escaping @Sendable (_ work: @escaping @Sendable () throws -> [PlantNetImage]) async throws -> [PlantNetImage]
            = { try $0() }
    ) -> @Sendable (_ photos: [Data], _ organs: [String], _ language: String) async -> DiagnosisRecheckAnswer {
        { photos, organs, language in
            let images: [PlantNetImage]
            do {
                images = try await offload {
                    try photos.enumerated().map { index, photo in
                        try prepare(photo, organ: index < organs.count ? PlantNetOrgan(rawValue: organs[index]) ?? .auto : .auto)
                    }
                }
            } catch {
                return .failed("a photo could not be prepared (\(error))")
            }
            do throws(PlantNetError) {
                let answer = try await service.diagnose(
                    images, options: DiagnosisOptions(language: language, includeRelatedImages: true)
                )
                if answer.rejected { return .rejected }
                var diagnosis = answer.diagnosis
                // Asked now for the record: that the answer was in the cache is not the record's business.
                if diagnosis.source == .cache { diagnosis.source = .plantNetAPI }
                return .answered(diagnosis, remainingRequests: answer.remainingRequests)
            } catch {
                return error.recheckStop.map { .stop($0) } ?? .failed("\(error)")
            }
        }
    }
}
