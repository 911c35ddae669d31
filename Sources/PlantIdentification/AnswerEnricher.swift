import Foundation
import PlantCatalog
import PlantGuideCore

/// Turns raw candidates into answers a person can read and check, in one place for the command line and the
/// web app: common names (species-level, or the genus-level name marked as such), genus, family, the catalog
/// entry with its care summary, the catalog's plants of the same genus, and an honest uncertainty verdict with
/// its reason and the next step.
///
/// Names are chosen in this order: the catalog's own names, the source's names (Pl@ntNet sends some), the
/// species directory's species-level names (ITIS), names learned from earlier Pl@ntNet answers, and last the
/// directory's genus-level name.
public struct AnswerEnricher: Sendable {
    /// The catalog (entries, related plants, "did you mean"); `nil` skips catalog enrichment.
    public var catalog: PlantCatalog?
    /// The on-device model's species directory; `nil` skips it.
    public var directory: SpeciesDirectory?
    /// Names learned from Pl@ntNet; `nil` when no store is available.
    public var learnedNames: LearnedNames?
    /// The care profile of a catalog plant, for the one-line care summary; `nil` leaves it out.
    public var careProfile: (@Sendable (CatalogPlant) -> CareProfile?)?
    /// When an answer is uncertain.
    public var uncertainty: UncertaintyRule
    /// Language code of the names wanted, e.g. `en`.
    public var language: String
    /// At most this many related catalog plants per candidate.
    public var relatedLimit: Int

    /// Creates an enricher from its parts; every part is optional.
    public init(
        catalog: PlantCatalog? = nil, directory: SpeciesDirectory? = nil, learnedNames: LearnedNames? = nil,
        careProfile: (@Sendable (CatalogPlant) -> CareProfile?)? = nil, uncertainty: UncertaintyRule = UncertaintyRule(),
        language: String = "en", relatedLimit: Int = 6
    ) {
        self.catalog = catalog
        self.directory = directory
        self.learnedNames = learnedNames
        self.careProfile = careProfile
        self.uncertainty = uncertainty
        self.language = language
        self.relatedLimit = relatedLimit
    }

    /// The names learned from Pl@ntNet about every candidate of these answers, in one lookup (none without a store, or
    /// when it cannot be read: names are a nicety).
    public func learned(for identifications: [Identification]) async -> [String: [LearnedSpecies]] {
        guard let learnedNames else { return [:] }
        let names = Set(identifications.flatMap { $0.predictions.map(\.scientificName) })
        guard !names.isEmpty else { return [:] }
        return (try? await learnedNames.lookup(Array(names))) ?? [:]
    }

    /// Every candidate enriched, names learned from Pl@ntNet included, and the uncertainty verdict with its reason.
    public func enriched(_ identification: Identification) async -> Identification {
        enrich(identification, learned: await learned(for: [identification]))
    }

    /// Every candidate enriched, and the uncertainty verdict with its reason.
    /// - Parameter learned: names learned from Pl@ntNet, from ``learned(for:)``.
    public func enrich(_ identification: Identification, learned: [String: [LearnedSpecies]] = [:]) -> Identification {
        var result = identification
        result.predictions = identification.predictions.map { enrich($0, learned: learned) }
        let verdict = uncertainty.verdict(for: result)
        result.uncertain = verdict != nil
        result.uncertainReason = verdict
        return result
    }

    /// Catalog plants to offer when the answer is uncertain ("did you mean…"), never repeating a candidate already
    /// shown.
    public func didYouMean(for identification: Identification) -> [CatalogPlant] {
        guard identification.uncertain, let catalog, let best = identification.best else { return [] }
        // Compared by species key, so authorship, case, hybrid signs and cultivars of a shown species do not count as new.
        let shown = Set(identification.predictions.map { LearnedSpecies.key(for: $0.scientificName) })
        let suggestions = (try? catalog.suggestMatches(for: best.scientificName, confidence: best.confidence)) ?? []
        var seen: Set<String> = []
        return suggestions.filter { plant in
            !shown.contains(LearnedSpecies.key(for: plant.scientificName)) && seen.insert(plant.scientificName.lowercased()).inserted
        }
    }

    /// One candidate enriched.
    /// - Parameter learned: names learned from Pl@ntNet, from ``learned(for:)``.
    public func enrich(_ prediction: SpeciesPrediction, learned: [String: [LearnedSpecies]] = [:]) -> SpeciesPrediction {
        var enriched = prediction
        let name = ScientificName(parsing: prediction.scientificName)
        enriched.genus = enriched.genus ?? (name.genus.isEmpty ? nil : name.genus)

        let entry = directoryEntry(for: prediction)
        let learned = (learned[prediction.scientificName] ?? []).filter { $0.language == language }
        let catalogPlant = catalogEntry(for: prediction, directoryEntry: entry)

        var species: [String] = []
        func add(_ names: [String]) {
            for name in names where !species.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                species.append(name)
            }
        }
        if let catalogPlant, language == "en" { add(catalogPlant.commonNames) }
        if enriched.commonNameLevel != .genus { add(prediction.commonNames) }
        // In English the directory's (ITIS) names come before learned ones; in another language the learned names,
        // which are in that language, come before the directory's, which may fall back to English.
        let namesLearned = learned.flatMap(\.commonNames)
        if language != "en" { add(namesLearned) }
        if let entry { add(entry.speciesNames(language: language)) }
        if language == "en" { add(namesLearned) }
        if !species.isEmpty {
            enriched.commonNames = species
            enriched.commonNameLevel = .species
        } else if let genusName = genusCommonName(entry: entry, genus: enriched.genus) {
            enriched.commonNames = [genusName]
            enriched.commonNameLevel = .genus
        } else {
            enriched.commonNames = []
            enriched.commonNameLevel = nil
        }

        enriched.family = enriched.family ?? entry?.family ?? catalogPlant?.family ?? learned.first?.family
            ?? enriched.genus.flatMap { try? directory?.genus($0)?.family }
        enriched.gbifId = enriched.gbifId ?? learned.first(where: { $0.gbifId != nil })?.gbifId
        enriched.powoId = enriched.powoId ?? learned.first(where: { $0.powoId != nil })?.powoId

        if let catalogPlant {
            enriched.inCatalog = true
            enriched.category = catalogPlant.category
            enriched.careSummary = careProfile?(catalogPlant)?.summary
            enriched.relatedCatalogPlants = []
        } else {
            enriched.inCatalog = false
            enriched.relatedCatalogPlants = relatedPlants(genus: enriched.genus)
        }
        return enriched
    }

    private func directoryEntry(for prediction: SpeciesPrediction) -> SpeciesEntry? {
        guard let directory else { return nil }
        if let index = prediction.classIndex, let entry = try? directory.entry(classIndex: index),
           LearnedSpecies.key(for: entry.binomial) == LearnedSpecies.key(for: prediction.scientificName) {
            return entry
        }
        return (try? directory.entries(named: prediction.scientificName))?.first
    }

    /// The catalog's entry for the candidate, under its own name or its accepted one.
    private func catalogEntry(for prediction: SpeciesPrediction, directoryEntry: SpeciesEntry?) -> CatalogPlant? {
        guard let catalog else { return nil }
        if let plant = try? catalog.plant(named: prediction.scientificName) { return plant }
        if let accepted = directoryEntry?.acceptedBinomial, accepted != directoryEntry?.binomial {
            return try? catalog.plant(named: accepted)
        }
        return nil
    }

    private func genusCommonName(entry: SpeciesEntry?, genus: String?) -> String? {
        if let name = entry?.genusCommonName { return name }
        guard let genus else { return nil }
        return (try? directory?.genus(genus))?.commonName
    }

    private func relatedPlants(genus: String?) -> [CatalogPlant] {
        guard let genus, let catalog, relatedLimit > 0 else { return [] }
        return Array(((try? catalog.plants(genus: genus)) ?? []).prefix(relatedLimit))
    }
}

/// When an answer is uncertain, and why. The defaults, and the reasoning behind them:
///
/// - ``minimumConfidence`` 0.7: below it the on-device model's best class is wrong often enough on real photos
///   that a person should check (it was PlantGuide's threshold before this rule, and `on-device-first` asks
///   Pl@ntNet below it).
/// - ``closeRatio`` 0.5: the runner-up scoring at least half of the best means the source hesitates between two
///   species. With softmax scores summing to 1 this matters when the threshold is lowered, and for Pl@ntNet,
///   whose scores are not calibrated that way.
/// - Several photos: uncertain when fewer than half of them, identified alone, had the combined best species first.
public struct UncertaintyRule: Sendable, Hashable {
    /// Below this best confidence (0…1) the answer is uncertain.
    public var minimumConfidence: Double
    /// The runner-up scoring at least this share of the best makes the answer uncertain.
    public var closeRatio: Double

    /// Creates the rule (defaults: 0.7 and 0.5).
    public init(minimumConfidence: Double = 0.7, closeRatio: Double = 0.5) {
        self.minimumConfidence = minimumConfidence
        self.closeRatio = closeRatio
    }

    /// `nil` when the answer can be trusted; otherwise why not, naming the limit and the next step.
    public func verdict(for identification: Identification) -> String? {
        guard let best = identification.predictions.first else {
            return "No plant was recognised in the photo. Next: take a closer photo of a leaf or a flower, filling most of the picture."
        }
        let percent = { (value: Double) in "\(Int((value * 100).rounded())) %" }
        var problem: String?
        if best.confidence < minimumConfidence {
            problem = "The best match, \(displayName(best)), scores only \(percent(best.confidence))"
                + " (below \(percent(minimumConfidence)))."
        } else if identification.predictions.count > 1, identification.predictions[1].confidence >= best.confidence * closeRatio {
            let second = identification.predictions[1]
            problem = "Two candidates are close: \(displayName(best)) (\(percent(best.confidence))) and "
                + "\(displayName(second)) (\(percent(second.confidence)))."
        } else if let count = identification.photoCount, count > 1, let agreeing = identification.agreeingPhotos,
                  agreeing * 2 < count {
            problem = "The photos disagree: only \(agreeing) of \(count) had \(displayName(best)) first on its own."
        }
        guard let problem else { return nil }
        var steps: [String] = []
        if identification.source == .onDevice {
            steps.append("The offline model knows 1,081 mostly wild species (PlantNet-300K) and not most houseplants, "
                + "so your plant may not be among them.")
            steps.append("Next: add photos of other parts (a flower, the underside of a leaf), identify online with Pl@ntNet")
        } else {
            steps.append("Next: add photos of other parts of the same plant (a flower, a fruit, the bark)")
        }
        let hasRelated = identification.predictions.contains { !$0.relatedCatalogPlants.isEmpty }
        steps[steps.count - 1] += hasRelated ? ", or browse the related catalog plants." : ", or compare the candidates with your plant."
        return ([problem] + steps).joined(separator: " ")
    }

    private func displayName(_ prediction: SpeciesPrediction) -> String {
        guard let common = prediction.commonNames.first else { return prediction.scientificName }
        guard prediction.commonNameLevel == .genus else { return "\(prediction.scientificName) (\(common))" }
        let article = common.first.map { "aeiouAEIOU".contains($0) } == true ? "an" : "a"
        return "\(prediction.scientificName) (\(article) \(common))"
    }
}
