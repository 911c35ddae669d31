import Foundation
import PlantCatalog
import PlantGuideCore
import PlantGuideLive
import PlantIdentification
import PlantStore

extension LiveEnrichment {
    /// The command line's enricher: the shared one over the catalog and the collection database's learned names, which
    /// it opens here; each part that cannot be read is a yellow warning on the console.
    static func make(
        language: String, console: Console, context: CommandContext, catalog: PlantCatalog? = nil
    ) -> AnswerEnricher {
        let warn = { (message: String) in console.warn(console.style("warning: \(message)", .yellow)) }
        let catalog = catalog ?? PlantCatalog()
        var loaded: PlantCatalog?
        do {
            try catalog.load()
            loaded = catalog
        } catch {
            warn("the plant catalog is unavailable, so answers are not enriched: \(error)")
        }
        var learnedNames: LearnedNames?
        do {
            learnedNames = try context.open().learnedNames
        } catch {
            warn("names learned from Pl@ntNet are not used or kept: \(error)")
        }
        return make(language: language, catalog: loaded, learnedNames: learnedNames, warn: warn)
    }
}
