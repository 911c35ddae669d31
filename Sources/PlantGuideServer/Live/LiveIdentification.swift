import AsyncHTTPClient
import Foundation
import PlantCatalog
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantIdentification
import PlantImaging
import PlantNetAPI
import PlantStore
import PlantStoreSQLite
import Synchronization

/// Identification over the hybrid identifier: the installed on-device model and/or Pl@ntNet.
enum LiveIdentification {
    /// What identification is built from that a new API key does not change: the on-device model (large, so
    /// loaded once) and the enricher.
    struct LocalParts: Sendable {
        var onDevice: OnDeviceIdentifier?
        var onDeviceSummary: String?
        /// The loaded model's name as identifications record it, and one photo classified with it (for re-scoring).
        var rescoreModel: (name: String, classify: @Sendable (Data) async throws -> Identification)?
        /// The loaded model's photo embedder, for indexing the collection's photos in the background.
        var embedder: PhotoEmbedder?
        var onDeviceMissing: String
        var enricher: AnswerEnricher
        /// The identification settings they were loaded with (threshold, default strategy).
        var preferences: ServerPreferences
    }

    /// Builds identification over the loaded on-device model, if any, and the enricher.
    /// - Parameter model: the process's one copy of the default model (also the collection's photo embedder); loaded by
    ///   its owner, not here.
    /// - Parameter onDeviceTimeout: how long one on-device identification may take; then it fails (and the hybrid
    ///   asks Pl@ntNet, when it can) instead of holding the request.
    /// - Parameter preferences: the identification settings to use; `nil` reads them from the data directory's file.
    static func localParts(
        directory: DataDirectory, model: SharedModel, catalog: PlantCatalog?, collection: PlantCollection?,
        onDeviceTimeout: Duration = OnDeviceIdentifier.defaultTimeout, preferences: ServerPreferences? = nil,
        log: @escaping @Sendable (String) -> Void
    ) -> LocalParts {
        var parts = LocalParts(
            onDevice: nil, onDeviceSummary: nil, onDeviceMissing: "no on-device model is installed.",
            enricher: enricher(catalog: catalog, collection: collection, log: log),
            preferences: preferences ?? ServerPreferences.load(directory, log: log)
        )
        let threshold = parts.preferences.threshold
        // The same threshold decides when an answer is shown as "not sure".
        parts.enricher.uncertainty.minimumConfidence = threshold
        switch model.state {
        case .none:
            break
        case .failed(_, let reason):
            parts.onDeviceMissing = "the installed model cannot be loaded: \(reason)"
        case .loaded(let loaded):
            let classifier = loaded.classifier
            // Photos are matched against the collection's stored embeddings ("Is this Spike?").
            let exemplars = collection.map { ExemplarSnapshot(store: $0.store, model: classifier.embeddingModel, log: log) }
            let recognizer = exemplars.map { exemplars in
                CollectionRecognizer.live(
                    settings: recognitionSettings(log: log), version: { _ in exemplars.version },
                    exemplars: { _ in exemplars.exemplars }
                )
            }
            // Decoding and inference run on the work pool, never on the threads that serve requests.
            // The limit counts from when a pool thread takes the photos, not while they wait for one.
            parts.onDevice = .limited(to: onDeviceTimeout, identifyWithEmbeddings: { photos, top, started in
                // The stored exemplars are brought up to date here, so the work pool only reads memory.
                await exemplars?.refresh()
                return try await WorkPool.shared.run {
                    started()
                    return try classifier.identifyWithEmbeddings(photos: photos, top: top, threshold: threshold, collection: recognizer)
                }
            })
            parts.embedder = loaded.embedder
            parts.rescoreModel = (classifier.manifest.displayName, { photo in
                try await WorkPool.shared.run { try classifier.identify(photos: [photo], top: 5, threshold: threshold) }
            })
            parts.onDeviceSummary = "on-device model \(loaded.url.deletingPathExtension().lastPathComponent) (\(classifier.manifest.classes) species)"
        }
        return parts
    }

    /// The recognition thresholds from the environment (`PLANTGUIDE_MATCH_THRESHOLD`, …); the defaults, logged, when a
    /// value is wrong.
    static func recognitionSettings(
        environment: [String: String] = ProcessInfo.processInfo.environment, log: @Sendable (String) -> Void
    ) -> RecognitionSettings {
        do {
            return try RecognitionSettings(environment: environment)
        } catch {
            log("\(error) Using the default recognition thresholds.")
            return RecognitionSettings()
        }
    }

    /// The on-device limit `PLANTGUIDE_ON_DEVICE_TIMEOUT` sets in `environment`, else the default (10 s).
    static func onDeviceTimeout(environment: [String: String]) -> Duration {
        OnDeviceIdentifier.timeout(environment: environment) ?? OnDeviceIdentifier.defaultTimeout
    }

    /// The disease service over `service`, with kept answers read from `cache` when there is one.
    static func diagnosisCapability(service: PlantNetService, cache: (any DiagnosisCache)?) -> DiagnosisCapability {
        let diagnose: @Sendable ([Data], [PlantNetOrgan], String) async throws -> (answer: DiagnosisAnswer, sha256s: [String]) = {
            photos, organs, language in
            // Re-encoding the photos is heavy: it runs on the work pool, the wait for Pl@ntNet does not.
            let images: [PlantNetImage] = try await WorkPool.shared.run {
                try photos.enumerated().map { index, photo in
                    try LivePlantNet.prepare(photo, organ: index < organs.count ? organs[index] : .auto)
                }
            }
            let answer = try await service.diagnose(images, options: DiagnosisOptions(language: language))
            return (answer, images.map(\.sha256))
        }
        var cached: (@Sendable ([String], [PlantNetOrgan], String) async -> DiagnosisAnswer?)?
        if let cache {
            cached = { sha256s, organs, language in
                await cache.diagnosis(for: CacheKey.diagnosis(sha256s: sha256s, organs: organs, options: DiagnosisOptions(language: language)))
            }
        }
        var capability = DiagnosisCapability(diagnose: diagnose, cached: cached)
        // Re-encoding the photos is heavy: the work pool does it, as for a diagnosis asked for now.
        capability.waiting = LivePlantNet.diagnoseWaiting(service: service) { work in try await WorkPool.shared.run(work) }
        return capability
    }

    /// The capability over `local` and Pl@ntNet with the key configured now (`PLANTNET_API_KEY`, else the key
    /// stored in the data directory), or `nil` when neither a model nor an API key is available. Called again
    /// when a key is saved in Settings. Pl@ntNet and its reference photos are fetched with `http`.
    static func make(
        local: LocalParts, directory: DataDirectory, environment: [String: String], http: HTTPClient, plantNet: PlantNetState,
        log: @escaping @Sendable (String) -> Void
    ) -> IdentificationCapability? {
        let onDevice = local.onDevice
        let preferences = local.preferences
        var summaries: [String] = local.onDeviceSummary.map { [$0] } ?? []
        var online: OnlineIdentifier?
        var connection: OnlineConnection?
        var quotaNow: (@Sendable () async -> (remaining: Int?, blocked: Bool))?
        var diagnosis: DiagnosisCapability?
        let referenceStore = referenceImages(directory, http: http)
        var onlineMissing = "no Pl@ntNet API key is configured."
        do throws(PlantNetError) {
            let configuration = try PlantNetConfiguration.resolve(environment: environment, directory: directory)
            if configuration.apiKey != nil {
                try? directory.create()
                let client = PlantNetClient(configuration: configuration, http: http, log: { _ in })
                let service = PlantNetService(
                    client: client, quota: plantNet.quota, cache: plantNet.cache, reachability: Reachability(),
                    referenceImages: referenceStore, diagnoses: plantNet.diagnoses,
                    diseaseList: DiseaseListCache(directory: directory.url), warn: log
                )
                diagnosis = diagnosisCapability(service: service, cache: plantNet.diagnoses)
                // Re-encoding the photos for upload is heavy too: it runs on the work pool; the wait does not.
                online = OnlineIdentifier { photos, organs, options in
                    let started = ContinuousClock.now
                    let images = try await WorkPool.shared.run {
                        try photos.enumerated().map { index, photo in
                            try LivePlantNet.prepare(photo, organ: index < organs.count ? organs[index] : .auto)
                        }
                    }
                    let prepared = ContinuousClock.now - started
                    var answer = try await service.identify(images, options: options)
                    answer.identification.timings[stage: .prepareUpload] = prepared.inMilliseconds
                    return answer
                }
                let reachability = service.reachability
                let status = { @Sendable in
                    OnlineStatus(
                        reachable: reachability.isReachable, lastFailure: reachability.lastFailure,
                        retryAfter: reachability.retryAfter
                    )
                }
                connection = OnlineConnection(status: status) {
                    await service.checkConnection()
                    return status()
                }
                let tracker = service.quota
                quotaNow = { let status = await tracker.status(); return (status.remaining, status.isBlocked) }
                summaries.append("Pl@ntNet")
            }
        } catch {
            onlineMissing = error.description
        }
        guard onDevice != nil || online != nil else { return nil }
        let hybrid = HybridIdentifier(
            onDevice: onDevice, online: online, catalog: nil, threshold: preferences.threshold, top: 10,
            onDeviceMissingReason: local.onDeviceMissing, onlineMissingReason: onlineMissing, enricher: local.enricher
        )
        var strategies: [IdentifyStrategy] = [.auto]
        if onDevice != nil { strategies.append(.onDevice) }
        if online != nil { strategies.append(.plantNet) }
        let hasDevice = onDevice != nil
        let hasOnline = online != nil
        let quotaAfter = quotaNow
        var capability = IdentificationCapability(
            summary: summaries.joined(separator: " + "), strategies: strategies, defaultStrategy: preferences.defaultStrategy,
            referencePhoto: { id in referenceStore.file(id: id).flatMap { try? Data(contentsOf: $0) } }, online: connection
        ) { request in
            let strategy = request.strategy.identificationStrategy(hasDevice: hasDevice)
            let organs = request.organs
            do {
                let result = try await hybrid.identify(
                    photos: request.photos, organs: organs, strategy: strategy,
                    options: LivePlantNet.options()
                )
                // "Offline" only when Pl@ntNet was asked and could not be reached: not when it was not asked because the
                // device was confident, and not without a key (then it is simply not used).
                let offline = result.onlineUnreachable
                let quota = await quotaAfter?()
                return IdentifyOutcome(
                    identification: result.preferredWithTimings, offline: offline,
                    quotaRemaining: result.remainingRequests ?? quota?.remaining, notes: result.notes,
                    suggestions: result.suggestions, recheckReason: hasOnline ? result.recheckReason : nil,
                    run: result.run(at: Date()), strategy: result.strategy, onDevice: result.onDevice, online: result.online,
                    notAPlant: result.notAPlant, quotaLevel: quota.map { QuotaLevel(remaining: $0.remaining, blocked: $0.blocked) }
                )
            } catch {
                throw serverError(for: error)
            }
        }
        if hasOnline {
            let options = LivePlantNet.options()
            capability.recheck = { photos, organs in await hybrid.recheck(photos: photos, organs: organs, options: options) }
            capability.quota = quotaNow
        }
        capability.diagnosis = diagnosis
        capability.rescoreModel = local.rescoreModel
        capability.embedder = local.embedder
        return capability
    }

    /// The one enrichment of answers (names, family, catalog entry, care, related plants, uncertainty): the
    /// catalog, the species directory, names learned from Pl@ntNet and the care guide, each when available.
    static func enricher(
        catalog: PlantCatalog?, collection: PlantCollection?, log: @escaping @Sendable (String) -> Void
    ) -> AnswerEnricher {
        LiveEnrichment.make(
            catalog: catalog, learnedNames: collection?.store.learnedNames, careGuide: collection?.careGuide, warn: log
        )
    }

    /// The answer for a failed identification. A photo the decoder refuses is the client's fault: 413
    /// when it has too many bytes or pixels, 415 when it is not a photo format PlantGuide reads, 422 when
    /// it is damaged or too small, each with the decoder's message. A source that is not set up is said
    /// to be not configured (501); only a failure of the source itself is a 502.
    static func serverError(for error: any Error) -> ServerError {
        if let problem = photoProblem(in: error) {
            switch problem {
            case .fileTooLarge, .tooLarge: return .tooLarge(problem.description)
            case .unrecognizedFormat, .unsupported: return .unsupportedImage(problem.description)
            case .empty, .truncated, .corrupt, .tooSmall: return .unprocessable(problem.description)
            case .outOfMemory, .encodingFailed: break
            }
        }
        switch error {
        case HybridError.onlineUnavailable(let reason):
            return .capabilityMissing("Pl@ntNet is not configured: \(reason) Add an API key in Settings, or identify on the device.")
        case HybridError.onDeviceUnavailable(let reason):
            return .capabilityMissing("On-device identification is not set up: \(reason)")
        case HybridError.noPhotos:
            return .badRequest("Choose a photo of the plant first.")
        default:
            return .failed("\(error)")
        }
    }

    /// The decoder's verdict on the photo, wherever it sits in the identifier's error.
    private static func photoProblem(in error: any Error) -> ImagingError? {
        switch error {
        case let problem as ImagingError: problem
        case HybridError.failed(_, let inner): photoProblem(in: inner)
        case HybridError.bothFailed(let onDevice, let online): photoProblem(in: onDevice) ?? photoProblem(in: online)
        default: nil
        }
    }

    /// The reference photos of Pl@ntNet answers, kept beside the cache.
    static func referenceImages(_ directory: DataDirectory, http: HTTPClient) -> ReferenceImageStore {
        ReferenceImageStore(directory: directory.appending("reference-photos"), http: http)
    }
}

/// Each household's exemplars for the loaded model, read from the store before each identification (asynchronously:
/// the store may be a database server) and again only when their version changed, so the recognizer on the work pool
/// reads memory. A household's photos are matched against its own plants only. A store that cannot be read keeps the
/// last exemplars (and logs why).
final class ExemplarSnapshot: Sendable {
    private let store: any CollectionStore
    private let model: EmbeddingModel
    private let log: @Sendable (String) -> Void
    private let current = Mutex<[Int64: (version: String, exemplars: [CollectionExemplar])]>([:])

    init(store: any CollectionStore, model: EmbeddingModel, log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.model = model
        self.log = log
    }

    /// The household the current task acts for; outside any there are no exemplars to match (-1 holds none).
    private var household: Int64 { HouseholdScope.current?.household ?? -1 }

    /// The version of the exemplars held for the current task's household (it names the household, so a recognizer
    /// that keeps one packed index never serves one household's index to another).
    var version: String {
        let household = household
        return "\(household):" + (current.withLock { $0[household]?.version } ?? "")
    }
    /// The exemplars held for the current task's household.
    var exemplars: [CollectionExemplar] {
        let household = household
        return current.withLock { $0[household]?.exemplars } ?? []
    }

    /// Reads the version of the current task's household's exemplars, and the exemplars when it changed.
    func refresh() async {
        let household = household
        guard household >= 0 else { return }
        do {
            let seen = current.withLock { $0[household]?.version } ?? ""
            let latest = try await store.exemplarsVersion(model: model)
            guard latest != seen else { return }
            let read: [CollectionExemplar]
            if let database = store as? CollectionDatabase {
                // SQLite reads synchronously, and this is every stored vector: on the work pool, not a request thread.
                let model = model
                read = try await WorkPool.shared.run { try database.exemplars(model: model) }
            } else {
                read = try await store.exemplars(model: model)
            }
            // A refresh that started later may have stored newer exemplars meanwhile: those stay.
            current.withLock { held in
                if (held[household]?.version ?? "") == seen { held[household] = (latest, read) }
            }
        } catch {
            log("the collection's photos could not be read for recognition: \(error)")
        }
    }
}
