import Foundation
import PlantGuideCore
import PlantStore

/// The re-check queue over the collection database and the identification in force (whose Pl@ntNet client and
/// on-device model can change when Settings saves a key or a model).
///
/// `PLANTGUIDE_RECHECK_RESERVE` (requests kept for identifications asked for now; default 50, 10 % of the free daily
/// quota) and `PLANTGUIDE_RECHECK_INTERVAL` (seconds between background rounds; default 60) tune it.
enum LiveRecheck {
    /// Items sent per background round at most, so a long queue shares the quota and the connection with people.
    static let itemsPerRound = 20
    /// Photos embedded per background round at most.
    static let photosPerRound = 20

    static func make(
        collection: PlantCollection, identification: CurrentIdentification, environment: [String: String],
        log: @escaping @Sendable (String) -> Void
    ) -> RecheckCapability {
        let reserve = environment["PLANTGUIDE_RECHECK_RESERVE"].flatMap(Int.init).map { max(0, $0) } ?? RecheckDrain.defaultReserve
        let seconds = environment["PLANTGUIDE_RECHECK_INTERVAL"].flatMap(Double.init).map { min(max($0, 0.5), 86_400) } ?? 60
        let database = collection.store
        var capability = RecheckCapability(
            queue: { answer, photos, reason in
                // Storing re-encodes the photos: the collection does that on the work pool, off the request threads.
                try await collection.fileIdentification(answer, recheck: (reason: reason, photos: photos)).id
            },
            drain: {
                guard let capability = identification.capability, let ask = capability.recheck, let quota = capability.quota else {
                    return nil
                }
                // Health records that wait for a diagnosis go too, when the disease service is set up.
                let diagnose = capability.diagnosis?.waiting
                let records = diagnose == nil ? 0 : try await database.waitingHealthRecordCount()
                let waiting = try await database.queuedRecheckCount(now: collection.now())
                guard waiting + records > 0 else { return RecheckRun() }
                // After a failed connection the client backs off; ask (without spending quota) whether it is back.
                if let online = capability.online, !online.status().reachable, !(await online.check()).reachable {
                    var run = RecheckRun()
                    run.skipped = waiting
                    run.diagnosesWaiting = records
                    run.stoppedBecause = RecheckStop.offline("no answer to a connection check").description
                    return run
                }
                let drain = RecheckDrain(
                    collection: collection, reserve: reserve,
                    budget: { let now = await quota(); return RecheckBudget(remaining: now.remaining, blocked: now.blocked) },
                    ask: ask, diagnose: diagnose
                )
                return try await drain.run(limit: itemsPerRound)
            },
            summary: { try await database.recheckSummary() },
            suggestions: { plantID in
                guard let id = LiveStore.plantID(plantID) else { return [] }
                return try await database.suggestions(plantId: id, includeResolved: false)
            },
            settle: { plantID, suggestionID, accept in
                guard let id = LiveStore.plantID(plantID), let suggestion = try await database.suggestion(id: suggestionID),
                    suggestion.plantId == id
                else { throw ServerError.notFound("That suggestion") }
                guard suggestion.resolution == nil else {
                    throw ServerError.badRequest("That suggestion was already \(suggestion.resolution?.rawValue ?? "settled").")
                }
                return accept ? try await collection.acceptSuggestion(suggestionID) : try await collection.dismissSuggestion(suggestionID)
            },
            rescore: {
                guard let model = identification.capability?.rescoreModel else { return nil }
                return try await Rescore(collection: collection, model: model.name, classify: model.classify).run()
            },
            interval: .milliseconds(Int64(seconds * 1000))
        )
        capability.households = { try await database.households().map(\.id) }
        capability.reindex = {
            guard let embedder = identification.capability?.embedder else { return 0 }
            let pending = try await database.photosNeedingEmbedding(model: embedder.model).prefix(photosPerRound)
            var indexed = 0
            for photo in pending {
                if Task.isCancelled { break }
                // One photo per turn on the work pool, so identifications people ask for interleave with the indexing.
                do {
                    _ = try await collection.reindex(photo, with: embedder)
                    indexed += 1
                } catch {
                    log("photo \(photo.sha256.prefix(12)) not indexed: \(error)")
                }
            }
            return indexed
        }
        return capability
    }
}
