import Foundation
import PlantGuideCore

/// The collection as the command line and web app use it: the database, the photo files and the
/// care guide together, so that a plant, its photo and its profile are always added consistently.
public struct PlantCollection: Sendable {
    public let database: CollectionDatabase
    public let photos: PhotoLibrary
    public let careGuide: CareGuide
    /// Finds the catalog entry for a scientific or common name (`nil` when there is none).
    public let lookup: @Sendable (String) -> CatalogPlant?
    /// The current time.
    public let now: @Sendable () -> Date
    /// Computes the embedding of each photo added through the collection, when a classifier is available; without
    /// one, photos are indexed later by `plantguide collection reindex`.
    public var embedder: PhotoEmbedder?

    /// Puts the parts together.
    public init(
        database: CollectionDatabase, photos: PhotoLibrary, careGuide: CareGuide,
        lookup: @escaping @Sendable (String) -> CatalogPlant?, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.photos = photos
        self.careGuide = careGuide
        self.lookup = lookup
        self.now = now
    }

    /// Opens the collection in a data directory.
    public static func open(
        in directory: DataDirectory, encoder: PhotoEncoder, lookup: @escaping @Sendable (String) -> CatalogPlant?,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(StoreError) -> PlantCollection {
        PlantCollection(
            database: try CollectionDatabase.open(in: directory), photos: PhotoLibrary(directory: directory, encoder: encoder),
            careGuide: try CareGuide.bundled(), lookup: lookup, now: now
        )
    }

    /// Adds a plant by catalog species or by free-text name, with its care profile from the guide and
    /// optionally a photo.
    ///
    /// `species` must be in the catalog. A free-text `name` that the catalog knows is linked to its
    /// species; any other name is kept as written, with the general care defaults.
    public func addPlant(
        name: String?, species: String? = nil, nickname: String? = nil, room: String? = nil,
        acquiredOn: CalendarDay? = nil, notes: String? = nil, photo: Data? = nil
    ) throws(StoreError) -> Plant {
        let match: CatalogPlant?
        if let species = species.nonEmpty {
            guard let found = lookup(species) else {
                throw .invalid("'\(species)' is not in the catalog. Try `plantguide search \(shellQuoted(species))`, or add it by name.")
            }
            match = found
        } else if let name = name.nonEmpty {
            match = lookup(name)
        } else {
            throw .invalid("Give the plant a name or a --species.")
        }
        let plantName = name.nonEmpty ?? match?.scientificName ?? ""
        let stored = try photo.map { data throws(StoreError) in try storePhoto(data) }
        let profile = careGuide.profile(for: match, name: plantName)
        let plant = try database.addPlant(
            NewPlant(name: plantName, species: match?.scientificName, nickname: nickname, room: room,
                     acquiredOn: acquiredOn, notes: notes,
                     confirmation: match.map { SpeciesConfirmation(species: $0.scientificName, source: .name) }),
            profile: profile, photo: stored, now: now()
        )
        if let stored, let photo { index(stored, data: photo) }
        return plant
    }

    /// Stores a photo and attaches it to a plant.
    @discardableResult
    public func addPhoto(_ data: Data, toPlant plantId: Int64) throws(StoreError) -> StoredPhoto {
        guard try database.plant(id: plantId) != nil else { throw .plantNotFound(plantId) }
        let stored = try storePhoto(data)
        try database.attachPhoto(stored, toPlant: plantId, now: now())
        index(stored, data: data)
        return stored
    }

    /// Takes a photo off a plant, deleting its files when nothing else uses it.
    public func removePhoto(_ sha256: String, fromPlant plantId: Int64) throws(StoreError) {
        if let orphan = try database.detachPhoto(sha256, fromPlant: plantId, now: now()) {
            photos.removeFiles(of: [orphan])
        }
    }

    /// Removes a plant and the photo files nothing else uses.
    public func removePlant(id: Int64) throws(StoreError) {
        let orphans = try database.removePlant(id: id)
        photos.removeFiles(of: orphans)
    }

    /// Files an identification into the history (the library side of `identify --save`).
    /// - Parameters:
    ///   - identification: the identifier's answer.
    ///   - photo: the identified photo's bytes, stored (re-encoded) with the record when given.
    ///   - plantId: file under this existing plant.
    ///   - createPlant: create a plant of the best-matching species (or chosen species) and file under it.
    ///   - chosenSpecies: the species the owner picked; by default the best prediction.
    ///   - recheck: queue it for a Pl@ntNet re-check with these photos (bytes and organ), kept until the re-check is done
    ///     (or, for an identification not filed under a plant, 30 days).
    ///   - embedding: the photo's embedding when the identification already made it (no second forward pass);
    ///     otherwise ``embedder`` computes it.
    public func fileIdentification(
        _ identification: Identification, photo: Data? = nil, plantId: Int64? = nil, createPlant: Bool = false,
        chosenSpecies: String? = nil, nickname: String? = nil, room: String? = nil,
        recheck: (reason: RecheckReason, photos: [(data: Data, organ: String)])? = nil,
        embedding: (vector: [Float], model: EmbeddingModel)? = nil
    ) throws(StoreError) -> FiledIdentification {
        let stored = try photo.map { data throws(StoreError) in try storePhoto(data) }
        let request = try recheck.map { recheck throws(StoreError) in
            var photos: [(photo: StoredPhoto, organ: String)] = []
            for entry in recheck.photos { photos.append((try storePhoto(entry.data), entry.organ)) }
            return RecheckRequest(reason: recheck.reason, photos: photos)
        }
        var newPlant: (plant: NewPlant, profile: CareProfile)?
        if createPlant {
            guard let species = chosenSpecies.nonEmpty ?? identification.best?.scientificName else {
                throw .invalid("The identification has no species to create a plant from.")
            }
            let match = lookup(species)
            let name = match?.scientificName ?? species
            // Creating a plant from the answer accepts it: the species (as the answer names it when the catalog does
            // not know it) is confirmed, and the plant's photos become exemplars of it.
            newPlant = (
                NewPlant(name: name, species: match?.scientificName, nickname: nickname, room: room,
                         confirmation: SpeciesConfirmation(species: match?.scientificName ?? species, source: .identification)),
                careGuide.profile(for: match, name: name)
            )
        }
        let filed = try database.fileIdentification(
            identification, photo: stored, plantId: plantId, newPlant: newPlant, chosenSpecies: chosenSpecies,
            recheck: request, now: now()
        )
        if let stored, let photo, filed.plantId != nil { index(stored, data: photo, embedding: embedding) }
        return filed
    }

    /// Accepts a species suggestion: the plant takes the suggested species (the catalog's spelling when it knows it)
    /// and the care guide's profile for it.
    @discardableResult
    public func acceptSuggestion(_ id: Int64) throws(StoreError) -> SpeciesSuggestion {
        guard let suggestion = try database.suggestion(id: id) else {
            throw .invalid("No species suggestion with id \(id). `plantguide recheck list` shows the open ones.")
        }
        let match = lookup(suggestion.suggestedSpecies)
        let species = match?.scientificName ?? suggestion.suggestedSpecies
        return try database.resolveSuggestion(
            id, accept: true, species: species, profile: careGuide.profile(for: match, name: species), now: now()
        )
    }

    /// Dismisses a species suggestion: the plant keeps its species.
    @discardableResult
    public func dismissSuggestion(_ id: Int64) throws(StoreError) -> SpeciesSuggestion {
        try database.resolveSuggestion(id, accept: false, now: now())
    }

    /// Refines a plant's care profile with Trefle's growth facts. Failures are returned, not
    /// thrown: the plant keeps the care guide's profile and nothing else is affected.
    /// - Returns: `nil` on success or when there is nothing to refine; the error otherwise.
    @discardableResult
    public func enrichCareProfile(ofPlant id: Int64, client: TrefleClient) async -> (any Error)? {
        do {
            let details = try database.details(ofPlant: id)
            guard let species = details.plant.species, let profile = details.profile,
                  !profile.basis.hasSuffix("+ Trefle")
            else { return nil }
            guard let growth = try await client.growth(forScientificName: species) else { return nil }
            let enriched = profile.enriched(with: growth)
            if enriched != profile { try database.setProfile(enriched, forPlant: id) }
            return nil
        } catch {
            return error
        }
    }

    /// Stores the embedding of a photo just attached to a plant: the one given, else the embedder's. Never fails
    /// the addition: a photo left without one is indexed by `plantguide collection reindex`.
    private func index(_ photo: StoredPhoto, data: Data, embedding: (vector: [Float], model: EmbeddingModel)? = nil) {
        if let embedding, embedder == nil || embedder?.model == embedding.model {
            try? database.setEmbedding(embedding.vector, model: embedding.model, forPhoto: photo.sha256, now: now())
            return
        }
        // A photo stored before (same content) may already have this model's embedding: no second forward pass.
        guard let embedder, (try? database.embedding(ofPhoto: photo.sha256))?.model != embedder.model,
              let vector = try? embedder.embed(data)
        else { return }
        try? database.setEmbedding(vector, model: embedder.model, forPhoto: photo.sha256, now: now())
    }

    /// Computes and stores the embedding of one stored photo from its file (what `collection reindex` does per photo).
    public func reindex(_ photo: StoredPhoto, with embedder: PhotoEmbedder) throws -> [Float] {
        let data: Data
        do {
            data = try Data(contentsOf: photos.url(of: photo))
        } catch {
            throw StoreError.file(path: photos.url(of: photo).path, reason: "cannot be read (\(error.localizedDescription))")
        }
        let vector = try embedder.embed(data)
        try database.setEmbedding(vector, model: embedder.model, forPhoto: photo.sha256, now: now())
        return vector
    }

    private func storePhoto(_ data: Data) throws(StoreError) -> StoredPhoto {
        let database = database
        return try photos.store(data, now: now()) { sha throws(StoreError) in try database.photo(originalSHA256: sha) }
    }
}
