import Foundation
import PlantGuideCore

/// The Pl@ntNet quota as the re-check queue needs it: how many requests are left today, if known, and whether calls
/// are blocked.
public struct RecheckBudget: Sendable, Hashable {
    /// Requests left today; `nil` until the first answer after a reset.
    public var remaining: Int?
    /// Whether calls are blocked until the reset (quota used up, or a 429).
    public var blocked: Bool

    /// Describes the quota.
    public init(remaining: Int?, blocked: Bool) {
        self.remaining = remaining
        self.blocked = blocked
    }
}

/// What one item of a re-check run came to, as `plantguide recheck --json` prints it.
public struct RecheckRunItem: Sendable, Hashable, Codable {
    /// What happened to the item.
    public enum Outcome: String, Sendable, Codable, Hashable {
        /// Pl@ntNet answered; the answer is in the history.
        case answered
        /// Sending failed; the item stays queued (or leaves it as failed after too many attempts).
        case failed
        /// Another process is sending it right now.
        case busy
        /// A dry run: it would have been sent.
        case wouldSend
    }

    public var recheckId: Int64
    public var identificationId: Int64
    public var plantId: Int64?
    public var reason: RecheckReason
    public var outcome: Outcome
    /// Pl@ntNet's best species and its confidence, when it answered with one.
    public var species: String?
    public var confidence: Double?
    /// The suggestion made for the plant when the species differs from the plant's.
    public var suggestionId: Int64?
    /// Why sending failed.
    public var error: String?
}

/// What one health record that waited for Pl@ntNet came to in a re-check run.
public struct WaitingDiagnosisRunItem: Sendable, Hashable, Codable {
    /// What happened to the record.
    public enum Outcome: String, Sendable, Codable, Hashable {
        /// Pl@ntNet answered; the answer is in the plant's history.
        case answered
        /// Sending failed; the record waits for the next run.
        case failed
        /// Sending failed for good (refused, or too many tries): the record stays in the history without a diagnosis.
        case gaveUp
        /// Another process is sending it right now.
        case busy
        /// A dry run: it would have been sent.
        case wouldSend
    }

    public var healthRecordId: Int64
    public var plantId: Int64
    public var outcome: Outcome
    /// The best candidate's title ("Grey mould (BOTRCI)") and score, when the service found one.
    public var disease: String?
    public var score: Double?
    /// Why sending failed.
    public var error: String?
}

/// The result of draining the re-check queue once: `{sent, changed, skipped, remainingQuota, …}`.
public struct RecheckRun: Sendable, Hashable, Codable {
    /// Items sent to Pl@ntNet and answered (in a dry run: that would be sent).
    public var sent = 0
    /// Answers whose best species differs from the plant's: each made a suggestion.
    public var changed = 0
    /// Items still queued after the run (stopped early, past the limit, or busy elsewhere).
    public var skipped = 0
    /// Items that failed this run.
    public var failed = 0
    /// Items of unsaved identifications let go because they waited 30 days.
    public var expired = 0
    /// Pl@ntNet requests left today after the run, when known.
    public var remainingQuota: Int?
    /// Why the run stopped before the end of the queue, if it did.
    public var stoppedBecause: String?
    /// Whether nothing was sent (`--dry-run`).
    public var dryRun = false
    /// Every item looked at, in order.
    public var items: [RecheckRunItem] = []
    /// Health records that waited for Pl@ntNet and were answered now (in a dry run: that would be sent).
    public var diagnosed = 0
    /// Health records still waiting after the run.
    public var diagnosesWaiting = 0
    /// Every waiting health record looked at, in order (they go before the identifications: their owners have no
    /// answer at all yet).
    public var diagnoses: [WaitingDiagnosisRunItem] = []

    /// An empty run (nothing sent).
    public init(dryRun: Bool = false) {
        self.dryRun = dryRun
    }
}

/// Drains the re-check queue: sends the health records that wait for a diagnosis (oldest first), then queued
/// identifications (oldest first and saved plants first) to Pl@ntNet, while the quota allows and above a reserve kept
/// for identifications asked for now, and records each answer as it comes.
///
/// Crash safety: an item is claimed before it is sent and its answer is recorded in one transaction with its leaving
/// the queue, so a process killed at any moment loses no item, and an item whose answer was committed is never sent
/// again. (A kill between the request and the commit sends that one item again on the next run.)
public struct RecheckDrain: Sendable {
    /// The collection holding the queue and the photos.
    public var collection: PlantCollection
    /// Requests kept for identifications asked for now: the queue stops when this many are left.
    public var reserve: Int
    /// The quota now.
    public var budget: @Sendable () async -> RecheckBudget
    /// Sends one item's photos (bytes, organs) to Pl@ntNet.
    public var ask: @Sendable (_ photos: [Data], _ organs: [String]) async -> RecheckAnswer
    /// Sends a waiting health record's photos (bytes, organs) to the disease service, in its language; without it the
    /// waiting records are left as they are.
    public var diagnose: (@Sendable (_ photos: [Data], _ organs: [String], _ language: String) async -> DiagnosisRecheckAnswer)?

    /// The default reserve: 10 % of Pl@ntNet's free daily quota of 500 identifications.
    public static let defaultReserve = 50

    /// Puts a drain together.
    public init(
        collection: PlantCollection, reserve: Int = RecheckDrain.defaultReserve,
        budget: @escaping @Sendable () async -> RecheckBudget,
        ask: @escaping @Sendable (_ photos: [Data], _ organs: [String]) async -> RecheckAnswer,
        diagnose: (@Sendable (_ photos: [Data], _ organs: [String], _ language: String) async -> DiagnosisRecheckAnswer)? = nil
    ) {
        self.collection = collection
        self.reserve = max(0, reserve)
        self.budget = budget
        self.ask = ask
        self.diagnose = diagnose
    }

    /// Sends up to `limit` queued items (all when `nil`); a dry run only says which would go.
    /// - Parameter progress: called before each item with (items done, items to do).
    public func run(
        limit: Int? = nil, dryRun: Bool = false, progress: @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws(StoreError) -> RecheckRun {
        var run = RecheckRun(dryRun: dryRun)
        let store = collection.store
        if !dryRun {
            let expiry = try await store.expireRechecks(now: collection.now())
            collection.photos.removeFiles(of: expiry.released, now: collection.now())
            run.expired = expiry.expired
        }
        let waiting = diagnose == nil ? [] : try await store.waitingHealthRecords()
        let chosenRecords = limit.map { Array(waiting.prefix(max(0, $0))) } ?? waiting
        let queue = try await store.queuedRechecks(now: collection.now(), limit: nil)
        let chosen = limit.map { Array(queue.prefix(max(0, $0 - chosenRecords.count))) } ?? queue
        let total = chosenRecords.count + chosen.count
        var projected = await budget().remaining
        for (index, record) in chosenRecords.enumerated() {
            progress(index, total)
            if let stop = await stopReason(dryRun: dryRun, projected: projected) {
                run.stoppedBecause = stop
                break
            }
            if dryRun {
                run.diagnosed += 1
                projected = projected.map { $0 - 1 }
                run.diagnoses.append(entry(record, .wouldSend))
                continue
            }
            try await send(record, into: &run)
            if run.stoppedBecause != nil { break }
        }
        for (index, item) in chosen.enumerated() {
            if run.stoppedBecause != nil { break }
            progress(chosenRecords.count + index, total)
            if let stop = await stopReason(dryRun: dryRun, projected: projected) {
                run.stoppedBecause = stop
                break
            }
            if dryRun {
                run.sent += 1
                projected = projected.map { $0 - 1 }
                run.items.append(entry(item, .wouldSend))
                continue
            }
            guard try await store.claimRecheck(item.id, now: collection.now(), lease: 300, claimant: ProcessIdentity.current) else {
                run.items.append(entry(item, .busy))
                continue
            }
            var photos: [Data] = []
            do throws(StoreError) {
                for queued in item.photos { photos.append(try await read(queued.sha256)) }
            } catch {
                let released = try await store.failRecheck(item.id, reason: "\(error)", now: collection.now())
                collection.photos.removeFiles(of: released, now: collection.now())
                run.failed += 1
                run.items.append(entry(item, .failed, error: "\(error)"))
                continue
            }
            switch await ask(photos, item.photos.map(\.organ)) {
            case .answered(let identification, let remaining):
                guard let done = try await store.completeRecheck(item.id, answer: identification, now: collection.now()) else {
                    run.items.append(entry(item, .busy))
                    continue
                }
                // A re-check spends quota like any identification: the statistics count it (a log that cannot be
                // written costs only the figure).
                try? await store.recordIdentificationRun(IdentificationRun(
                    date: collection.now(), strategy: "recheck", source: identification.source,
                    cacheHit: identification.source == .cache, apiCalled: identification.source == .plantNetAPI,
                    remainingRequests: remaining, timings: identification.timings
                ), now: collection.now(), retention: .standard)
                collection.photos.removeFiles(of: done.releasedPhotos, now: collection.now())
                run.sent += 1
                if done.suggestion != nil { run.changed += 1 }
                var answered = entry(item, .answered)
                answered.species = identification.best?.scientificName
                answered.confidence = identification.best?.confidence
                answered.suggestionId = done.suggestion?.id
                run.items.append(answered)
            case .failed(let reason):
                let released = try await store.failRecheck(item.id, reason: reason, now: collection.now())
                collection.photos.removeFiles(of: released, now: collection.now())
                run.failed += 1
                run.items.append(entry(item, .failed, error: reason))
            case .stop(let stop):
                try await store.releaseRecheck(item.id)
                run.stoppedBecause = stop.description
            }
            if run.stoppedBecause != nil { break }
        }
        progress(total, total)
        run.skipped = try await store.queuedRecheckCount(now: collection.now()) - (dryRun ? run.sent : 0)
        run.diagnosesWaiting = try await store.waitingHealthRecordCount() - (dryRun ? run.diagnosed : 0)
        run.remainingQuota = dryRun ? projected : await budget().remaining
        return run
    }

    /// Why the run must stop before the next item, if it must: cancelled, the quota blocked or down to the reserve.
    private func stopReason(dryRun: Bool, projected: Int?) async -> String? {
        if Task.isCancelled { return "stopped" }
        let quota = await budget()
        if quota.blocked { return RecheckStop.quotaExhausted.description }
        if let remaining = dryRun ? projected : quota.remaining, remaining <= reserve {
            return RecheckStop.reserve(remaining: remaining, reserve: reserve).description
        }
        return nil
    }

    /// Claims a waiting health record, sends its photos to the disease service and records what came of it.
    private func send(_ record: HealthRecord, into run: inout RecheckRun) async throws(StoreError) {
        guard let diagnose, let language = record.waiting?.language else { return }
        let store = collection.store
        guard try await store.claimHealthRecord(record.id, now: collection.now(), lease: 300, claimant: ProcessIdentity.current) else {
            run.diagnoses.append(entry(record, .busy))
            return
        }
        var photos: [Data] = []
        do throws(StoreError) {
            for photo in record.photos { photos.append(try await read(photo.sha256)) }
            if photos.isEmpty { throw .photo("the record has no photo left to send") }
        } catch {
            let gaveUp = try await store.failHealthRecord(record.id, reason: "\(error)", giveUp: true, now: collection.now())
            run.failed += 1
            run.diagnoses.append(entry(record, gaveUp == true ? .gaveUp : .failed, error: "\(error)"))
            return
        }
        switch await diagnose(photos, record.photos.map(\.organ), language) {
        case .answered(let diagnosis, _):
            guard try await store.completeHealthRecord(record.id, diagnosis: diagnosis) != nil else {
                run.diagnoses.append(entry(record, .busy))
                return
            }
            run.diagnosed += 1
            var answered = entry(record, .answered)
            answered.disease = diagnosis.candidates.first?.title
            answered.score = diagnosis.candidates.first?.score
            run.diagnoses.append(answered)
        case .rejected:
            let reason = "Pl@ntNet did not recognise a plant in the photos"
            let gaveUp = try await store.failHealthRecord(record.id, reason: reason, giveUp: true, now: collection.now())
            run.failed += 1
            run.diagnoses.append(entry(record, gaveUp == true ? .gaveUp : .failed, error: reason))
        case .failed(let reason):
            let gaveUp = try await store.failHealthRecord(record.id, reason: reason, giveUp: false, now: collection.now())
            run.failed += 1
            run.diagnoses.append(entry(record, gaveUp == true ? .gaveUp : .failed, error: reason))
        case .stop(let stop):
            try await store.releaseHealthRecord(record.id)
            run.stoppedBecause = stop.description
        }
    }

    private func entry(
        _ record: HealthRecord, _ outcome: WaitingDiagnosisRunItem.Outcome, error: String? = nil
    ) -> WaitingDiagnosisRunItem {
        WaitingDiagnosisRunItem(healthRecordId: record.id, plantId: record.plantId, outcome: outcome, error: error)
    }

    private func read(_ sha256: String) async throws(StoreError) -> Data {
        guard let photo = try await collection.store.photo(sha256: sha256) else { throw .photo("photo \(sha256) is not in the collection") }
        let url = collection.photos.url(of: photo)
        do {
            return try Data(contentsOf: url)
        } catch {
            throw .file(path: url.path, reason: "cannot read the photo (\(error.localizedDescription))")
        }
    }

    private func entry(_ item: RecheckItem, _ outcome: RecheckRunItem.Outcome, error: String? = nil) -> RecheckRunItem {
        RecheckRunItem(
            recheckId: item.id, identificationId: item.identificationId, plantId: item.plantId, reason: item.reason,
            outcome: outcome, error: error
        )
    }
}
