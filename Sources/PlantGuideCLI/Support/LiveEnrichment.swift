import Foundation
import PlantCatalog
import PlantGuideCore
import PlantIdentification
import PlantStore

/// The answer enrichment the command line uses: the catalog, the species directory, the names learned from
/// Pl@ntNet (in the collection database) and the care guide. A part that cannot be read is left out with a
/// warning; an answer is never refused for it.
enum LiveEnrichment {
    static func make(
        language: String, console: Console, directory: DataDirectory = .resolve(), catalog: PlantCatalog? = nil
    ) -> AnswerEnricher {
        var enricher = AnswerEnricher(language: language)
        let catalog = catalog ?? PlantCatalog()
        do {
            try catalog.load()
            enricher.catalog = catalog
        } catch {
            console.warn(console.style("warning: the plant catalog is unavailable, so answers are not enriched: \(error)", .yellow))
        }
        let species = SpeciesDirectory()
        do {
            try species.load()
            enricher.directory = species
        } catch {
            console.warn(console.style("warning: the species directory is unavailable, so on-device answers lack common names: \(error)", .yellow))
        }
        do {
            enricher.learnedNames = try CommandDatabase.open(in: directory).learnedNames
        } catch {
            console.warn(console.style("warning: names learned from Pl@ntNet are not used or kept: \(error)", .yellow))
        }
        if let guide = try? CareGuide.bundled() {
            enricher.careProfile = { plant in guide.profile(for: plant, name: plant.scientificName) }
        }
        return enricher
    }
}
