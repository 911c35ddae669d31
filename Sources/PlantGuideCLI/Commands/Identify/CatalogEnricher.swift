import PlantCatalog
import PlantGuideCore

/// Adds what the bundled catalog knows (common names, family, category) to predictions.
struct CatalogEnricher {
    let catalog: PlantCatalog

    func enrich(_ identification: inout Identification) {
        for index in identification.predictions.indices {
            let name = identification.predictions[index].scientificName
            guard let plant = try? catalog.plant(named: name) else { continue }
            identification.predictions[index].commonNames = plant.commonNames
            identification.predictions[index].family = plant.family
            identification.predictions[index].category = plant.category
            identification.predictions[index].inCatalog = true
        }
    }
}
