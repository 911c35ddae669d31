import Foundation
import PlantGuideCore

/// The collection as the command line and web app use it: the database, the photo files and the
/// care guide together, so that a plant, its photo and its profile are always added consistently.
public struct PlantCollection: Sendable {
    /// Where plants, photos' records, care and history are kept.
    public let store: any PlantGuideStore
    public let photos: PhotoLibrary
    public let careGuide: CareGuide
    /// Finds the catalog entry for a scientific or common name (`nil` when there is none).
    public let lookup: @Sendable (String) -> CatalogPlant?
    /// The current time.
    public let now: @Sendable () -> Date
    /// Computes the embedding of each photo added through the collection, when a classifier is available; without
    /// one, photos are indexed later by `plantguide collection reindex`. Setting it fixes the embedder; the server sets
    /// ``embedderSource`` instead, so photos are embedded by whichever model is in use when they arrive.
    public var embedder: PhotoEmbedder? {
        get { embedderSource() }
        set { embedderSource = { newValue } }
    }
    /// Where ``embedder`` comes from, asked once per photo added.
    public var embedderSource: @Sendable () -> PhotoEmbedder? = { nil }
    /// Where CPU-heavy work runs (decoding and re-encoding photos, computing embeddings): `nil` runs it in the calling
    /// task, as the command line does; the server gives its work pool, so its request threads stay free.
    public var heavyWork: (any HeavyWorkRunner)?

    /// Puts the parts together.
    public init(
        store: any PlantGuideStore, photos: PhotoLibrary, careGuide: CareGuide,
        lookup: @escaping @Sendable (String) -> CatalogPlant?, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.photos = photos
        self.careGuide = careGuide
        self.lookup = lookup
        self.now = now
    }

    /// Opens the collection in a data directory: its photos there, its records in `store` (the SQLite database in the
    /// directory is `PlantStoreSQLite`'s `open(in:encoder:lookup:now:)`).
    public static func open(
        in directory: DataDirectory, store: any PlantGuideStore, encoder: PhotoEncoder,
        lookup: @escaping @Sendable (String) -> CatalogPlant?, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(StoreError) -> PlantCollection {
        let photos = PhotoLibrary(directory: directory, encoder: encoder)
        // Writers that crashed mid-photo left `.partial` files: the day-old ones go.
        photos.removeLeftoverPartialFiles(now: now())
        return PlantCollection(store: store, photos: photos, careGuide: try CareGuide.bundled(), lookup: lookup, now: now)
    }

    /// Adds a plant by catalog species or by free-text name, with its care profile from the guide and
    /// optionally a photo.
    ///
    /// `species` must be in the catalog. A free-text `name` that the catalog knows is linked to its
    /// species; any other name is kept as written, with the general care defaults.
    public func addPlant(
        name: String?, species: String? = nil, nickname: String? = nil, room: String? = nil,
        acquiredOn: CalendarDay? = nil, notes: String? = nil, photo: Data? = nil
    ) async throws(StoreError) -> Plant {
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
        var stored: StoredPhoto?
        if let photo { stored = try await storePhoto(photo) }
        let profile = careGuide.profile(for: match, name: plantName)
        let plant = try await store.addPlant(
            NewPlant(name: plantName, species: match?.scientificName, nickname: nickname, room: room,
                     acquiredOn: acquiredOn, notes: notes,
                     confirmation: match.map { SpeciesConfirmation(species: $0.scientificName, source: .name) }),
            profile: profile, photo: stored, now: now()
        )
        if let stored, let photo { await index(stored, data: photo) }
        return plant
    }

    /// Stores a photo and attaches it to a plant.
    @discardableResult
    public func addPhoto(_ data: Data, toPlant plantId: Int64) async throws(StoreError) -> StoredPhoto {
        guard try await store.plant(id: plantId) != nil else { throw .plantNotFound(plantId) }
        let stored = try await storePhoto(data)
        try await store.attachPhoto(stored, toPlant: plantId, now: now())
        await index(stored, data: data)
        return stored
    }

    /// Keeps a diagnosis in a plant's history: its photos are stored (the same original once) and the record names them,
    /// each with the organ it showed. The photos are not added to the plant's gallery.
    @discardableResult
    public func keepDiagnosis(
        _ diagnosis: Diagnosis, photos sent: [(data: Data, organ: String)], note: String?, plantId: Int64
    ) async throws(StoreError) -> HealthRecord {
        let stored = try await storeHealthPhotos(sent, note: note, plantId: plantId)
        return try await store.saveHealthRecord(
            NewHealthRecord(diagnosis: diagnosis, photos: stored, note: note), plantId: plantId, now: now()
        )
    }

    /// Keeps photos of a sick plant in its history without an answer, because Pl@ntNet cannot be reached now: the
    /// record waits, and the re-check queue (``RecheckDrain``) sends the photos when it can and fills the answer in.
    @discardableResult
    public func keepDiagnosisForLater(
        photos sent: [(data: Data, organ: String)], language: String, note: String?, plantId: Int64
    ) async throws(StoreError) -> HealthRecord {
        guard HealthRecordWait.isLanguage(language) else { throw .invalid("“\(language.prefix(20))” is not a language code") }
        let stored = try await storeHealthPhotos(sent, note: note, plantId: plantId)
        return try await store.saveHealthRecord(
            NewHealthRecord(waitingIn: language, photos: stored, note: note), plantId: plantId, now: now()
        )
    }

    /// A health record's photos stored, after the plant and the record's fields are checked (so a wrong plant or a bad
    /// record costs no work and leaves no file).
    private func storeHealthPhotos(
        _ sent: [(data: Data, organ: String)], note: String?, plantId: Int64
    ) async throws(StoreError) -> [(photo: StoredPhoto, organ: String)] {
        guard try await store.plant(id: plantId) != nil else { throw .plantNotFound(plantId) }
        try NewHealthRecord.check(organs: sent.map(\.organ), note: note)
        var stored: [(photo: StoredPhoto, organ: String)] = []
        for photo in sent { stored.append((try await storePhoto(photo.data), photo.organ)) }
        return stored
    }

    /// Removes one of a plant's health records, moving the files of its photos nothing else uses to the trash; `false`
    /// when the plant has no such record.
    @discardableResult
    public func removeHealthRecord(_ id: Int64, ofPlant plantId: Int64) async throws(StoreError) -> Bool {
        guard let orphans = try await store.removeHealthRecord(id: id, ofPlant: plantId) else { return false }
        photos.removeFiles(of: orphans, now: now())
        if !orphans.isEmpty { await emptyPhotoTrash() }
        return true
    }

    /// Takes a photo off a plant, moving its files to the trash when nothing else uses it (and emptying the trash of
    /// what has waited long enough).
    public func removePhoto(_ sha256: String, fromPlant plantId: Int64) async throws(StoreError) {
        if let orphan = try await store.detachPhoto(sha256, fromPlant: plantId, now: now()) {
            photos.removeFiles(of: [orphan], now: now())
            await emptyPhotoTrash()
        }
    }

    /// Deletes the trashed photo files that waited ``PhotoLibrary/trashAge`` and that no photo names, and puts back those
    /// stored again meanwhile.
    @discardableResult
    public func emptyPhotoTrash() async -> (deleted: Int, restored: Int) {
        await photos.emptyTrash(now: now(), store: store)
    }

    /// Removes a plant, and moves the photo files nothing else uses to the trash.
    public func removePlant(id: Int64) async throws(StoreError) {
        let orphans = try await store.removePlant(id: id)
        photos.removeFiles(of: orphans, now: now())
        if !orphans.isEmpty { await emptyPhotoTrash() }
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
    ) async throws(StoreError) -> FiledIdentification {
        var stored: StoredPhoto?
        if let photo { stored = try await storePhoto(photo) }
        var request: RecheckRequest?
        if let recheck {
            var photos: [(photo: StoredPhoto, organ: String)] = []
            for entry in recheck.photos { photos.append((try await storePhoto(entry.data), entry.organ)) }
            request = RecheckRequest(reason: recheck.reason, photos: photos)
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
        let filed = try await store.fileIdentification(
            identification, photo: stored, plantId: plantId, newPlant: newPlant, chosenSpecies: chosenSpecies,
            recheck: request, now: now()
        )
        if let stored, let photo, filed.plantId != nil { await index(stored, data: photo, embedding: embedding) }
        return filed
    }

    /// Accepts a species suggestion: the plant takes the suggested species (the catalog's spelling when it knows it)
    /// and the care guide's profile for it.
    @discardableResult
    public func acceptSuggestion(_ id: Int64) async throws(StoreError) -> SpeciesSuggestion {
        guard let suggestion = try await store.suggestion(id: id) else {
            throw .invalid("No species suggestion with id \(id). `plantguide recheck list` shows the open ones.")
        }
        let match = lookup(suggestion.suggestedSpecies)
        let species = match?.scientificName ?? suggestion.suggestedSpecies
        return try await store.resolveSuggestion(
            id, accept: true, species: species, profile: careGuide.profile(for: match, name: species), now: now()
        )
    }

    /// Dismisses a species suggestion: the plant keeps its species.
    @discardableResult
    public func dismissSuggestion(_ id: Int64) async throws(StoreError) -> SpeciesSuggestion {
        try await store.resolveSuggestion(id, accept: false, species: nil, profile: nil, now: now())
    }

    /// Stores the embedding of a photo just attached to a plant: the one given, else the embedder's. Never fails
    /// the addition: a photo left without one is indexed by `plantguide collection reindex`.
    private func index(_ photo: StoredPhoto, data: Data, embedding: (vector: [Float], model: EmbeddingModel)? = nil) async {
        let embedder = embedder
        if let embedding, embedder == nil || embedder?.model == embedding.model {
            try? await store.setEmbedding(embedding.vector, model: embedding.model, forPhoto: photo.sha256, now: now())
            return
        }
        // A photo stored before (same content) may already have this model's embedding: no second forward pass.
        guard let embedder, (try? await store.embedding(ofPhoto: photo.sha256))?.model != embedder.model else { return }
        // A forward pass: heavy, so where heavy work goes (the server's work pool).
        let work: @Sendable () throws -> [Float] = { try embedder.embed(data) }
        guard let vector = try? await (heavyWork?.run(work) ?? work()) else { return }
        try? await store.setEmbedding(vector, model: embedder.model, forPhoto: photo.sha256, now: now())
    }

    /// Computes and stores the embedding of one stored photo from its file (what `collection reindex` does per photo).
    public func reindex(_ photo: StoredPhoto, with embedder: PhotoEmbedder) async throws -> [Float] {
        let url = photos.url(of: photo)
        let work: @Sendable () throws -> [Float] = {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw StoreError.file(path: url.path, reason: "cannot be read (\(error.localizedDescription))")
            }
            return try embedder.embed(data)
        }
        let vector = try await heavyWork?.run(work) ?? work()
        try await store.setEmbedding(vector, model: embedder.model, forPhoto: photo.sha256, now: now())
        return vector
    }

    private func storePhoto(_ data: Data) async throws(StoreError) -> StoredPhoto {
        let photos = photos
        let now = now()
        // Hashing a photo of up to 50 MB is heavy too; the same original stored before is not encoded again.
        let originalSHA = try await heavy { () throws(StoreError) in try photos.originalSHA256(of: data) }
        let known = try await store.photo(originalSHA256: originalSHA)
        return try await heavy { () throws(StoreError) in
            try photos.store(data, originalSHA256: originalSHA, known: known, now: now)
        }
    }

    /// Runs photo work where heavy work goes (``heavyWork``), or here without one.
    private func heavy<T: Sendable>(_ work: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        guard let heavyWork else { return try work() }
        do {
            return try await heavyWork.run { try work() }
        } catch let error as StoreError {
            throw error
        } catch {
            // The runner's own failure (shutting down, cancelled), not the photo's.
            throw .file(path: photos.root.path, reason: "the photo was not stored: \(error)")
        }
    }
}

/// Runs CPU-heavy synchronous work somewhere that does not hold the caller's thread (the server's work pool).
public protocol HeavyWorkRunner: Sendable {
    /// Runs `work` and returns its result, or throws its error (or the runner's own, e.g. when shutting down).
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}
