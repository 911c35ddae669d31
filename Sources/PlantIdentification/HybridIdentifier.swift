import Foundation
import PlantCatalog
import PlantGuideCore
import PlantNetAPI

/// Identifies a plant with the on-device classifier, Pl@ntNet, or both, according to an
/// ``IdentificationStrategy``, then enriches every candidate from the catalog.
///
/// Pl@ntNet being offline or out of quota is not an error when the device can answer: the result says why
/// it came from the device. With ``IdentificationStrategy/api`` it is, naming the cause.
///
/// It lives in its own module, `PlantIdentification`, rather than in `PlantNetAPI`, because it needs the catalog
/// for enrichment while the API client should depend on the core only; the web app and the command line both
/// build on it.
public struct HybridIdentifier: Sendable {
    /// The on-device classifier; `nil` when no model is installed.
    public var onDevice: OnDeviceIdentifier?
    /// Why there is no on-device classifier, shown when a strategy needs one.
    public var onDeviceMissingReason: String
    /// Pl@ntNet; `nil` when not configured.
    public var online: OnlineIdentifier?
    /// Why there is no online identifier (e.g. no API key), shown when a strategy needs one.
    public var onlineMissingReason: String
    /// The catalog used for enrichment and suggestions; `nil` skips enrichment.
    public var catalog: PlantCatalog? { enricher.catalog }
    /// Turns candidates into answers (names, family, catalog entry, related plants, uncertainty).
    public var enricher: AnswerEnricher
    /// Below this best confidence an answer is uncertain, and `on-device-first` asks Pl@ntNet.
    public var threshold: Double
    /// How many on-device candidates to ask for.
    public var top: Int

    /// Creates a hybrid identifier from its parts.
    /// - Parameters:
    ///   - catalog: used for enrichment when no `enricher` is given.
    ///   - enricher: the full enrichment (species directory, learned names, care); its minimum confidence is set
    ///     to `threshold`.
    public init(
        onDevice: OnDeviceIdentifier?, online: OnlineIdentifier?, catalog: PlantCatalog?, threshold: Double = 0.7,
        top: Int = 5, onDeviceMissingReason: String = "no on-device model is installed.",
        onlineMissingReason: String = "no Pl@ntNet API key is configured.", enricher: AnswerEnricher? = nil
    ) {
        self.onDevice = onDevice
        self.online = online
        var enricher = enricher ?? AnswerEnricher(catalog: catalog)
        enricher.uncertainty.minimumConfidence = threshold
        self.enricher = enricher
        self.threshold = threshold
        self.top = top
        self.onDeviceMissingReason = onDeviceMissingReason
        self.onlineMissingReason = onlineMissingReason
    }

    /// Identifies one plant from one or more photos (raw file bytes) of it.
    /// - Parameter organs: one per photo for Pl@ntNet (missing ones are `auto`).
    public func identify(
        photos: [Data], organs: [PlantNetOrgan] = [], strategy: IdentificationStrategy,
        options: PlantNetOptions = PlantNetOptions()
    ) async throws(HybridError) -> HybridResult {
        guard !photos.isEmpty else { throw .noPhotos }
        let started = ContinuousClock.now
        var outcome = try await run(strategy, photos: photos, organs: organs, options: options)
        outcome.totalMilliseconds = (ContinuousClock.now - started).inMilliseconds
        if let online = outcome.online, online.source == .plantNetAPI { await learn(from: online, language: options.language) }
        var enriched = await enrich(outcome)
        // The device's verdict after enrichment (threshold, close runners-up) decides "unsure".
        if enriched.recheckReason == nil, enriched.online == nil, enriched.preferred.source == .onDevice,
            enriched.preferred.uncertain, !enriched.preferred.predictions.isEmpty {
            enriched.recheckReason = .uncertain
        }
        return enriched
    }

    // MARK: - Strategies

    private func run(
        _ strategy: IdentificationStrategy, photos: [Data], organs: [PlantNetOrgan], options: PlantNetOptions
    ) async throws(HybridError) -> HybridResult {
        switch strategy {
        case .onDevice:
            guard let onDevice else { throw .onDeviceUnavailable(onDeviceMissingReason) }
            do {
                let identification = try await onDevice.identify(photos, top)
                return result(strategy, onDevice: identification)
            } catch {
                throw .failed(.onDevice, error)
            }
        case .api:
            guard let online else { throw .onlineUnavailable(onlineMissingReason) }
            do {
                let answer = try await online.identify(photos, organs, options)
                return result(strategy, online: answer)
            } catch {
                throw .failed(.plantNetAPI, error)
            }
        case .onDeviceFirst:
            return try await onDeviceFirst(photos: photos, organs: organs, options: options)
        case .parallel:
            return try await parallel(photos: photos, organs: organs, options: options)
        }
    }

    private func onDeviceFirst(
        photos: [Data], organs: [PlantNetOrgan], options: PlantNetOptions
    ) async throws(HybridError) -> HybridResult {
        var local: Result<Identification, any Error> = .failure(HybridError.onDeviceUnavailable(onDeviceMissingReason))
        if let onDevice {
            do { local = .success(try await onDevice.identify(photos, top)) } catch { local = .failure(error) }
        }
        // A species named by the owner's confirmed photos passed its own threshold: as good as a confident model.
        if case .success(let identification) = local,
           (identification.best?.confidence ?? 0) >= threshold || identification.bestIsFromCollection {
            return result(.onDeviceFirst, onDevice: identification)
        }
        let remote = await askOnline(photos: photos, organs: organs, options: options)
        return try combine(.onDeviceFirst, local: local, remote: remote)
    }

    private func parallel(
        photos: [Data], organs: [PlantNetOrgan], options: PlantNetOptions
    ) async throws(HybridError) -> HybridResult {
        let onDevice = onDevice
        let top = top
        let missing = onDeviceMissingReason
        let (local, remote) = await withTaskGroup(of: Branch.self) { group in
            group.addTask {
                guard let onDevice else { return .local(.failure(HybridError.onDeviceUnavailable(missing))) }
                do { return .local(.success(try await onDevice.identify(photos, top))) } catch { return .local(.failure(error)) }
            }
            group.addTask { .remote(await self.askOnline(photos: photos, organs: organs, options: options)) }
            var local: Result<Identification, any Error>?
            var remote: Result<PlantNetAnswer, any Error>?
            for await branch in group {
                switch branch {
                case .local(let value): local = value
                case .remote(let value): remote = value
                }
            }
            return (local, remote)
        }
        return try combine(
            .parallel, local: local ?? .failure(HybridError.onDeviceUnavailable(missing)),
            remote: remote ?? .failure(HybridError.onlineUnavailable(onlineMissingReason))
        )
    }

    private enum Branch: Sendable {
        case local(Result<Identification, any Error>)
        case remote(Result<PlantNetAnswer, any Error>)
    }

    private func askOnline(
        photos: [Data], organs: [PlantNetOrgan], options: PlantNetOptions
    ) async -> Result<PlantNetAnswer, any Error> {
        guard let online else { return .failure(HybridError.onlineUnavailable(onlineMissingReason)) }
        do { return .success(try await online.identify(photos, organs, options)) } catch { return .failure(error) }
    }

    /// Prefers Pl@ntNet's answer, falls back to the device's, and fails only when both failed.
    private func combine(
        _ strategy: IdentificationStrategy, local: Result<Identification, any Error>,
        remote: Result<PlantNetAnswer, any Error>
    ) throws(HybridError) -> HybridResult {
        switch (local, remote) {
        case (.success(let identification), .success(let answer)):
            return result(strategy, onDevice: identification, online: answer)
        case (.failure(let error), .success(let answer)):
            var outcome = result(strategy, online: answer)
            if !(error is HybridError) { outcome.notes.append("On-device identification failed: \(error)") }
            return outcome
        case (.success(let identification), .failure(let error)):
            var outcome = result(strategy, onDevice: identification)
            outcome.notes.append("\(error) Answered on the device.")
            outcome.onlineUnreachable = Self.isUnreachable(error)
            outcome.recheckReason = Self.recheckReason(online: error, onDevice: identification)
            return outcome
        case (.failure(let localError), .failure(let remoteError)):
            throw .bothFailed(onDevice: localError, online: remoteError)
        }
    }

    /// Whether a failure of Pl@ntNet means it cannot be reached (rather than refusing or not being set up).
    static func isUnreachable(_ error: any Error) -> Bool {
        switch error {
        case PlantNetError.offline, PlantNetError.timeout: true
        default: false
        }
    }

    /// Why an answer the device gave because Pl@ntNet failed deserves a re-check, if it does.
    static func recheckReason(online error: any Error, onDevice identification: Identification) -> RecheckReason? {
        if isUnreachable(error) { return .offline }
        if case PlantNetError.quotaExhausted = error { return .quota }
        return nil
    }

    private func result(
        _ strategy: IdentificationStrategy, onDevice: Identification? = nil, online: PlantNetAnswer? = nil
    ) -> HybridResult {
        // Pl@ntNet's answer is preferred, even "no plant here": it knows far more species than the device.
        let preferred = online?.identification ?? onDevice ?? Identification(source: .onDevice, predictions: [], uncertain: true)
        return HybridResult(
            strategy: strategy, preferred: preferred, onDevice: onDevice, online: online?.identification,
            notAPlant: online?.notAPlant ?? false, suggestions: [], remainingRequests: online?.remainingRequests,
            notes: [], totalMilliseconds: 0
        )
    }

    // MARK: - Enrichment

    private func enrich(_ outcome: HybridResult) async -> HybridResult {
        var enriched = outcome
        // One look-up of learned names for every candidate of both answers.
        let learned = await enricher.learned(for: [outcome.onDevice, outcome.online, outcome.preferred].compactMap { $0 })
        enriched.onDevice = outcome.onDevice.map { enricher.enrich($0, learned: learned) }
        enriched.online = outcome.online.map { enricher.enrich($0, learned: learned) }
        // The preferred answer is one of the two (or empty): enrich it once, not again (catalog and store look-ups).
        enriched.preferred = switch outcome.preferred {
        case outcome.online: enriched.online ?? enricher.enrich(outcome.preferred, learned: learned)
        case outcome.onDevice: enriched.onDevice ?? enricher.enrich(outcome.preferred, learned: learned)
        default: enricher.enrich(outcome.preferred, learned: learned)
        }
        enriched.suggestions = enricher.didYouMean(for: enriched.preferred)
        return enriched
    }

    /// Keeps the names, family and ids Pl@ntNet gave, for later answers; a failure to store them never fails
    /// the answer.
    func learn(from identification: Identification, language: String) async {
        guard let store = enricher.learnedNames else { return }
        let learned = identification.predictions.compactMap { prediction -> LearnedSpecies? in
            guard !prediction.commonNames.isEmpty || prediction.family != nil || prediction.gbifId != nil else { return nil }
            return LearnedSpecies(
                binomial: ScientificName(parsing: prediction.scientificName).binomial, language: language,
                commonNames: prediction.commonNames, family: prediction.family, gbifId: prediction.gbifId,
                powoId: prediction.powoId, learnedAt: identification.date
            )
        }
        if !learned.isEmpty { try? await store.record(learned) }
    }
}
