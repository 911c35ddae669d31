import Foundation
import PlantGuideCore

/// The collection's storage as everything above PlantStore uses it: plants and their photos, care, the identification
/// history, the re-check queue, species suggestions, recognition and identification statistics.
///
/// Every requirement is `async`, because a database server (PostgreSQL) is reached over the network and must never be
/// waited for on a blocked thread. `CollectionDatabase` (SQLite through GRDB, in PlantStoreSQLite) is one
/// implementation, whose synchronous methods satisfy these requirements as they are; `PostgresStore` is the other.
///
/// The requirements come in parts (``PlantsStore``, ``CareStore``, ``HistoryStore``, ``RecognitionStore``,
/// ``StatisticsStore``, ``TransferStore``), so a new backend can be built and tested part by part.
///
/// Requirements take every argument explicitly (protocol requirements have no defaults); `CollectionDatabase` keeps
/// its defaults for code that holds it directly. Operations that only make sense for an SQLite file (integrity check,
/// checkpoint, online backup) stay on `CollectionDatabase`.
public protocol CollectionStore: PlantsStore, CareStore, HistoryStore, RecognitionStore, StatisticsStore, TransferStore {
    /// Where the collection is kept, for messages (a file path, or a server address without its password).
    var locationDescription: String { get }
}

/// Plants and their photos. Part of ``CollectionStore``.
public protocol PlantsStore: Sendable {
    // MARK: Plants

    /// Adds a plant with its care profile and, optionally, a stored photo; returns it with its id.
    @discardableResult
    func addPlant(_ plant: NewPlant, profile: CareProfile, photo: StoredPhoto?, now: Date) async throws(StoreError) -> Plant
    /// Adds plants with their profiles, photos and care history in one transaction.
    @discardableResult
    func addPlants(_ seeds: [PlantSeed], now: Date) async throws(StoreError) -> [Plant]
    /// Adds plants, skipping those whose name, species and room match a plant already there.
    func addPlantsSkippingDuplicates(_ plants: [(NewPlant, CareProfile)], now: Date) async throws(StoreError)
        -> (added: [Plant], skipped: Int)
    /// The plant with this id, or `nil`.
    func plant(id: Int64) async throws(StoreError) -> Plant?
    /// The plants, in list order, optionally of one room.
    func plants(room: String?) async throws(StoreError) -> [Plant]
    /// How many plants there are.
    func plantCount() async throws(StoreError) -> Int
    /// A plant with its profile, schedules, photos, care log and identifications.
    func details(ofPlant id: Int64) async throws(StoreError) -> PlantDetails
    /// Saves a plant's editable fields; returns the stored plant.
    @discardableResult
    func updatePlant(_ plant: Plant, now: Date) async throws(StoreError) -> Plant
    /// Removes a plant; returns the photos nothing else uses any more (their files can go).
    @discardableResult
    func removePlant(id: Int64) async throws(StoreError) -> [StoredPhoto]

    // MARK: Photos

    /// Links a stored photo to a plant.
    func attachPhoto(_ photo: StoredPhoto, toPlant plantId: Int64, now: Date) async throws(StoreError)
    /// A plant's photos, oldest first.
    func photos(ofPlant plantId: Int64) async throws(StoreError) -> [PlantPhoto]
    /// The SHA-256 of the photo that stands for a plant (chosen, else the newest).
    func coverPhoto(ofPlant plantId: Int64) async throws(StoreError) -> String?
    /// Chooses the photo that stands for a plant.
    func setCoverPhoto(_ sha256: String, ofPlant plantId: Int64, now: Date) async throws(StoreError)
    /// Unlinks a photo from a plant; returns it when nothing else uses it any more.
    @discardableResult
    func detachPhoto(_ sha256: String, fromPlant plantId: Int64, now: Date) async throws(StoreError) -> StoredPhoto?
    /// The stored photo made from an original with this SHA-256 (to store the same photo once).
    func photo(originalSHA256: String) async throws(StoreError) -> StoredPhoto?
    /// The stored photo with this SHA-256.
    func photo(sha256: String) async throws(StoreError) -> StoredPhoto?
    /// Which of these file hashes a photo of any household still names, as its file or its thumbnail: the files in the
    /// photo trash that must be kept (``PhotoLibrary/emptyTrash(olderThan:now:store:)``). Not limited to one household,
    /// as photo files are shared by content.
    func photoFilesInUse(_ sha256s: [String]) async throws(StoreError) -> Set<String>
    /// Every stored photo.
    func allPhotos() async throws(StoreError) -> [StoredPhoto]
}

/// Care: the log, schedules and profiles, and what the scheduler reads. Part of ``CollectionStore``.
public protocol CareStore: Sendable {
    // MARK: Care

    /// Records a care task done on a day, or with `soil` a check of the soil before watering (`task` is then `.water`).
    @discardableResult
    func logCare(plantId: Int64, task: CareTask, day: CalendarDay, note: String?, soil: SoilReading?, now: Date)
        async throws(StoreError) -> CareEvent
    /// Removes the newest entry of a plant's care log (by when it was logged) and returns it; `nil` when there is none.
    @discardableResult
    func removeLastCareEntry(plantId: Int64) async throws(StoreError) -> CareEvent?
    /// The care log, newest first, of one plant or of all.
    func events(plantId: Int64?) async throws(StoreError) -> [CareEvent]
    /// Changes one task's schedule settings of a plant; returns them as stored.
    @discardableResult
    func updateScheduleSettings(
        plantId: Int64, task: CareTask, _ change: @Sendable (inout CareScheduleSettings) -> Void
    ) async throws(StoreError) -> CareScheduleSettings
    /// Replaces a plant's care profile.
    func setProfile(_ profile: CareProfile, forPlant plantId: Int64) async throws(StoreError)
    /// What the care scheduler needs of each plant (of one plant, or of one room).
    func careStates(plantId: Int64?, room: String?) async throws(StoreError) -> [PlantCareState]
}

/// The identification history, the re-check queue, re-scoring and species suggestions. Part of ``CollectionStore``.
public protocol HistoryStore: Sendable {
    // MARK: Identification history

    /// Files an identification, optionally under a plant (existing or created with it) and queued for a re-check.
    @discardableResult
    func fileIdentification(
        _ identification: Identification, photo: StoredPhoto?, plantId: Int64?,
        newPlant: (plant: NewPlant, profile: CareProfile)?, chosenSpecies: String?, recheck: RecheckRequest?, now: Date
    ) async throws(StoreError) -> FiledIdentification
    /// The filed identifications, newest first, of one plant or of all.
    func identifications(plantId: Int64?) async throws(StoreError) -> [FiledIdentification]

    // MARK: Health records

    /// Keeps a diagnosis in a plant's history with its photos (each recorded if new); returns the record.
    @discardableResult
    func saveHealthRecord(_ record: NewHealthRecord, plantId: Int64, now: Date) async throws(StoreError) -> HealthRecord
    /// A plant's health records, newest first.
    func healthRecords(plantId: Int64) async throws(StoreError) -> [HealthRecord]
    /// Removes one of a plant's health records; returns its photos nothing else uses any more (their files can go), or
    /// `nil` when the plant has no such record.
    func removeHealthRecord(id: Int64, ofPlant plantId: Int64) async throws(StoreError) -> [StoredPhoto]?
    /// The household's records that wait for Pl@ntNet, oldest first.
    func waitingHealthRecords() async throws(StoreError) -> [HealthRecord]
    /// How many records ``waitingHealthRecords()`` would return, counted without reading them and their photos.
    func waitingHealthRecordCount() async throws(StoreError) -> Int
    /// Claims a waiting record for sending (the re-check queue's lease rule); counts a try.
    func claimHealthRecord(_ id: Int64, now: Date, lease: TimeInterval, claimant: String) async throws(StoreError) -> Bool
    /// Gives a claim back without counting the try.
    func releaseHealthRecord(_ id: Int64) async throws(StoreError)
    /// Records a failed try; returns whether the record gave up, or `nil` when it no longer waits.
    @discardableResult
    func failHealthRecord(_ id: Int64, reason: String, giveUp: Bool, now: Date) async throws(StoreError) -> Bool?
    /// Fills Pl@ntNet's answer into a waiting record; `nil` when it no longer waits.
    func completeHealthRecord(_ id: Int64, diagnosis: Diagnosis) async throws(StoreError) -> HealthRecord?

    // MARK: Re-check queue

    /// Queued re-checks that may be sent now, in sending order.
    func queuedRechecks(now: Date, limit: Int?) async throws(StoreError) -> [RecheckItem]
    /// How many re-checks may be sent now.
    func queuedRecheckCount(now: Date) async throws(StoreError) -> Int
    /// Re-checks in any state, newest first.
    func rechecks(limit: Int?) async throws(StoreError) -> [RecheckItem]
    /// The re-check of one identification.
    func recheck(ofIdentification identificationId: Int64) async throws(StoreError) -> RecheckItem?
    /// The re-checks of several identifications, by identification id.
    func rechecks(ofIdentifications ids: [Int64]) async throws(StoreError) -> [Int64: RecheckItem]
    /// Counts by state.
    func recheckSummary() async throws(StoreError) -> RecheckSummary
    /// Claims a queued re-check for a while so no other process sends it; `false` when another holds it.
    func claimRecheck(_ id: Int64, now: Date, lease: TimeInterval, claimant: String) async throws(StoreError) -> Bool
    /// Gives a claimed re-check back to the queue.
    func releaseRecheck(_ id: Int64) async throws(StoreError)
    /// Counts a failed attempt; returns photos released when the item gives up.
    @discardableResult
    func failRecheck(_ id: Int64, reason: String, now: Date) async throws(StoreError) -> [StoredPhoto]
    /// Files Pl@ntNet's answer to a claimed re-check.
    func completeRecheck(_ id: Int64, answer: Identification, now: Date) async throws(StoreError) -> RecheckCompletion?
    /// Lets go of re-checks of unsaved identifications that waited too long.
    func expireRechecks(now: Date) async throws(StoreError) -> (expired: Int, released: [StoredPhoto])
    /// Moves the re-check of an unsaved identification to the identification filed from it.
    func adoptRecheck(from unsavedId: Int64, to filedId: Int64) async throws(StoreError)

    // MARK: Re-scoring and suggestions

    /// Plants' photos whose latest on-device identification was made by another model than `model`.
    func rescoreCandidates(model: String) async throws(StoreError) -> [RescoreCandidate]
    /// Files a re-score of an identification and, when the species changes, a suggestion.
    func fileRescore(_ answer: Identification, of original: FiledIdentification, photoSHA256: String, now: Date)
        async throws(StoreError) -> (result: FiledIdentification, suggestion: SpeciesSuggestion?)
    /// Species suggestions, of one plant or of all, open ones only unless `includeResolved`.
    func suggestions(plantId: Int64?, includeResolved: Bool) async throws(StoreError) -> [SpeciesSuggestion]
    /// The suggestion with this id.
    func suggestion(id: Int64) async throws(StoreError) -> SpeciesSuggestion?
    /// Accepts (with the species and profile to take) or dismisses a suggestion.
    @discardableResult
    func resolveSuggestion(_ id: Int64, accept: Bool, species: String?, profile: CareProfile?, now: Date)
        async throws(StoreError) -> SpeciesSuggestion
}

/// Recognition of the collection's own plants: confirmations and photo embeddings. Part of ``CollectionStore``.
public protocol RecognitionStore: Sendable {
    // MARK: Recognition

    /// The species the owner confirmed for a plant.
    func confirmation(ofPlant plantId: Int64) async throws(StoreError) -> SpeciesConfirmation?
    /// Confirms a plant's species.
    func confirmSpecies(_ confirmation: SpeciesConfirmation, ofPlant plantId: Int64, now: Date) async throws(StoreError)
    /// Withdraws a plant's confirmation; returns the one withdrawn.
    @discardableResult
    func unconfirmSpecies(ofPlant plantId: Int64) async throws(StoreError) -> SpeciesConfirmation?
    /// Stores a photo's embedding under a model.
    func setEmbedding(_ vector: [Float], model: EmbeddingModel, forPhoto sha256: String, now: Date) async throws(StoreError)
    /// A photo's stored embedding.
    func embedding(ofPhoto sha256: String) async throws(StoreError) -> (vector: [Float], model: EmbeddingModel)?
    /// How many plant photos have a current embedding for `model`.
    func embeddingCoverage(model: EmbeddingModel) async throws(StoreError) -> EmbeddingCoverage
    /// Plant photos without a current embedding for `model`.
    func photosNeedingEmbedding(model: EmbeddingModel) async throws(StoreError) -> [StoredPhoto]
    /// A value that changes whenever the exemplars of `model` change.
    func exemplarsVersion(model: EmbeddingModel) async throws(StoreError) -> String
    /// The confirmed plants' photo embeddings for `model`.
    func exemplars(model: EmbeddingModel) async throws(StoreError) -> [CollectionExemplar]
}

/// The identification log behind the statistics, and the names learned from Pl@ntNet. Part of ``CollectionStore``.
public protocol StatisticsStore: Sendable {
    // MARK: Identification statistics

    /// Records one identification run, keeping the log within `retention`.
    func recordIdentificationRun(_ run: IdentificationRun, now: Date, retention: IdentificationRunRetention)
        async throws(StoreError)
    /// The latest runs, newest first.
    func identificationRuns(last count: Int) async throws(StoreError) -> [IdentificationRun]
    /// Pl@ntNet requests per day over the last `days` days.
    func plantNetUsePerDay(days: Int, now: Date) async throws(StoreError) -> [IdentificationStatistics.QuotaDay]
    /// The statistics page's figures.
    func identificationStatistics(last: Int, days: Int, now: Date) async throws(StoreError) -> IdentificationStatistics

    // MARK: Learned names

    /// Stores what Pl@ntNet said about some species (names, family, ids), replacing what an earlier answer said.
    func recordLearnedSpecies(_ species: [LearnedSpecies]) async throws(StoreError)
    /// Everything learned about each of these species, newest first, by the name asked with.
    func learnedSpecies(named names: [String]) async throws(StoreError) -> [String: [LearnedSpecies]]
}

/// Export and import of the whole collection. Part of ``CollectionStore``.
public protocol TransferStore: Sendable {
    // MARK: Transfer

    /// Everything an export archive holds, except the photo bytes, in a stable order; `generator` names the writer.
    func exportSnapshot(now: Date, generator: String) async throws(StoreError) -> CollectionExport
    /// Adds an archive's rows that are not there yet (by UUID and SHA-256); photo files are the caller's.
    func importRows(_ content: CollectionExport) async throws(StoreError) -> ImportSummary
}

extension CollectionStore {
    /// The learned-names store over this collection, for the identification layer.
    public var learnedNames: LearnedNames {
        LearnedNames(
            record: { species in try await self.recordLearnedSpecies(species) },
            lookup: { names in try await self.learnedSpecies(named: names) }
        )
    }
}
