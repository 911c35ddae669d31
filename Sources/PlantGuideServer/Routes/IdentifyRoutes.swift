import Foundation
import Hummingbird
import PlantCatalog
import PlantGuideCore
import PlantIdentification
import PlantNetAPI

/// The Identify page, its results, and `POST /api/identify`.
struct IdentifyRoutes {
    let currentIdentification: CurrentIdentification
    let collection: CollectionCapability?
    let recheck: RecheckCapability?
    let catalog: PlantCatalog?
    let queue: IdentifyQueue
    let uploads: RecentUploads
    let configuration: ServerConfiguration
    /// Where every identification is logged for the statistics; `nil` logs none.
    var statistics: StatisticsCapability?
    /// Why the on-device model could not be installed, shown while identification is not available.
    var modelProblem: (@Sendable () -> String?)?
    /// Installing on-device models, offered inline while identification is not available.
    var modelInstalls: ModelInstallCapability?

    /// Read per request: saving a key in Settings can replace it.
    private var identification: IdentificationCapability? { currentIdentification.capability }

    func register(on router: Router<AppRequestContext>) {
        router.get("/identify") { _, context in
            Response.html(Pages.identifyForm(
                capability: identification, limit: configuration.maxUploadBytes, modelProblem: modelProblem?(),
                install: modelInstalls.map { ($0.choices(), $0.status()) }, context: context
            ))
        }
        // Post, redirect, get: the results have their own address, so reloading them or going back never sends
        // the photos again.
        router.post("/identify") { request, context in
            let result = try await identify(request, context: context)
            return Response.redirect(to: "/identify/results/\(result.uploadID)", type: .normal)
        }
        router.get("/identify/results/:id") { _, context in
            let upload = try await recent(context)
            let result = IdentifyResult(upload)
            return Response.html(Pages.identifyResults(result, saving: try await saveChoices(), context: context))
        }
        router.post("/api/identify") { request, context in
            JSONResponse.make(IdentifyAnswer(try await identify(request, context: context)))
        }
        router.get("/identify/uploads/:id") { _, context in try await photoResponse(recent(context), index: 0) }
        // "Check again": ask Pl@ntNet now whether it can be reached, then back to the page that asked.
        router.post("/identify/check-online") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            if let status = await identification?.online?.check(), status.reachable { recheck?.wake.wake() }
            return Response.redirect(to: AuthRoutes.safeNext(form["back"]), type: .normal)
        }
        // A reference photo of a Pl@ntNet answer, kept on this server (named by its SHA-256, so it never changes).
        router.get("/identify/reference-photos/:id") { _, context in
            guard let id = context.parameters.get("id"), let data = identification?.referencePhoto(id), let kind = ImageFormat.detect(data)
            else { throw ServerError.notFound("The reference photo") }
            return Response(
                status: .ok, headers: [.contentType: kind.mediaType, .cacheControl: "private, max-age=31536000, immutable"],
                body: .init(byteBuffer: ByteBuffer(bytes: data))
            )
        }
        // Photo N of an identification, counted from 1.
        router.get("/identify/uploads/:id/:number") { _, context in
            let upload = try await recent(context)
            guard let number = context.parameters.get("number").flatMap(LiveStore.plantID), upload.photos.indices.contains(Int(number) - 1)
            else { throw ServerError.notFound("The photo") }
            return photoResponse(upload, index: Int(number) - 1)
        }
    }

    private func recent(_ context: AppRequestContext) async throws -> RecentUploads.Upload {
        guard let id = context.parameters.get("id"), let upload = await uploads.upload(id: id, sessionID: context.sessionID) else {
            throw ServerError.notFound("That identification (recent results are kept for a while, not across restarts)")
        }
        return upload
    }

    private func photoResponse(_ upload: RecentUploads.Upload, index: Int) -> Response {
        let photo = upload.photos[index]
        return Response(
            status: .ok, headers: [.contentType: photo.kind.mediaType, .cacheControl: "private, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: photo.data))
        )
    }

    /// The plants "This is my plant" can add the photos to, when the collection is available.
    private func saveChoices() async throws -> [CollectionEntry]? {
        guard let collection else { return nil }
        return try await collection.list(nil)
    }

    /// Reads the upload, checks it, waits for a turn in the queue, identifies and enriches.
    private func identify(_ request: Request, context: AppRequestContext) async throws -> IdentifyResult {
        guard let identification else {
            throw ServerError.capabilityMissing(
                "Identification is not available yet: install an on-device model or add a Pl@ntNet API key in Settings."
            )
        }
        let started = ContinuousClock.now
        let form = try await request.formData(context: context, limit: configuration.maxUploadBytes)
        let (files, kinds) = try form.photos()
        let organs = try Self.organs(form.fields.filter { $0.name == "organ" || $0.name == "organs" }.map(\.value), photos: files.count)
        let strategy = try form["strategy"].map { text in
            guard let strategy = IdentifyStrategy(name: text) else {
                throw ServerError.badRequest("Unknown strategy “\(text)”: use \(IdentifyStrategy.names.joined(separator: ", ")).")
            }
            return strategy
        } ?? identification.defaultStrategy
        let photos = files.map(\.data)
        var outcome: IdentifyOutcome
        var waited = Duration.zero
        do {
            outcome = try await queue.run {
                waited = ContinuousClock.now - started
                return try await identification.identify(IdentifyRequest(photos: photos, organs: organs, strategy: strategy, top: 10))
            }
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError.failed("Identification failed: \(error)")
        }
        // The whole request's time, with the wait for a turn, replaces the identifier's own total; "This is my plant"
        // keeps these timings with the identification.
        outcome.identification.timings[stage: .queue] = waited.inMilliseconds
        outcome.identification.timings[stage: .total] = (ContinuousClock.now - started).inMilliseconds
        await log(outcome, context: context)
        // An answer the device gave in Pl@ntNet's place waits for a re-check; a queue that cannot be written only loses
        // the later check, never the answer.
        var queuedID: Int64?
        if let reason = outcome.recheckReason, let recheck {
            do {
                let sent = photos.indices.map { (data: photos[$0], organ: organs[$0].rawValue) }
                queuedID = try await recheck.queue(outcome.identification, sent, reason)
            } catch {
                context.logger.warning("identification not queued for a re-check", metadata: ["error": "\(error)"])
            }
        }
        // Enrichment (names, family, catalog entry, related plants, uncertainty) happened in the identification layer.
        let upload = RecentUploads.Upload(
            id: UUID().uuidString.lowercased(),
            photos: photos.indices.map { .init(data: photos[$0], kind: kinds[$0], organ: organs[$0]) },
            outcome: outcome, sessionID: context.sessionID, recheckIdentificationID: queuedID
        )
        try await uploads.add(upload)
        return IdentifyResult(upload)
    }

    /// Logs the identification for the statistics, with the same timings as the answer; a failure to log only warns.
    private func log(_ outcome: IdentifyOutcome, context: AppRequestContext) async {
        guard let statistics, var run = outcome.run else { return }
        run.timings = outcome.identification.timings.stageTimings
        do {
            try await statistics.record(run)
        } catch {
            context.logger.warning("identification not logged for the statistics", metadata: ["error": "\(error)"])
        }
    }

    /// One organ per photo: none (all "auto"), one for every photo, or exactly one per photo, which together keep
    /// Pl@ntNet's rules (``PlantNetAPI/PlantNetRequestRules/validate(organs:)``), so a request Pl@ntNet would refuse
    /// is refused here, before the identification is queued.
    static func organs(_ values: [String], photos: Int) throws(ServerError) -> [PlantNetOrgan] {
        var organs: [PlantNetOrgan] = []
        for text in values {
            guard let organ = PlantNetOrgan(webValue: text) else {
                throw ServerError.badRequest("Unknown organ “\(text)”: use auto, leaf, flower, fruit, bark or habit.")
            }
            organs.append(organ)
        }
        guard organs.count <= 1 || organs.count == photos else {
            throw ServerError.badRequest("Give one organ for every photo (\(photos) photos, \(organs.count) organs), or one for all.")
        }
        let all = organs.isEmpty ? Array(repeating: PlantNetOrgan.auto, count: photos)
            : organs.count == 1 ? Array(repeating: organs[0], count: photos) : organs
        // Pl@ntNet's rules, in the form's words.
        switch PlantNetRequestRules.problem(organs: all) {
        case nil:
            return all
        case .noPrimaryOrgan:
            throw ServerError.badRequest(
                "A photo of the whole plant needs a photo of a leaf, flower, fruit or bark beside it."
            )
        case .secondaryWithAuto:
            throw ServerError.badRequest(
                "A photo of the whole plant cannot go with one left to “\(PlantNetOrgan.auto.label)”: choose Leaf, Flower, Fruit or Bark for the other photos."
            )
        }
    }
}

/// One identification as the pages and the API show it.
struct IdentifyResult: Sendable {
    var uploadID: String
    var outcome: IdentifyOutcome
    var didYouMean: [CatalogPlant]
    /// What each sent photo showed, in order.
    var organs: [PlantNetOrgan]
    /// Where the time went, in milliseconds: the identifier's own stages, the queue wait and the whole request.
    var timings: [String: Double]
    /// Why the answer waits for a Pl@ntNet re-check, when it was queued.
    var queuedForRecheck: RecheckReason?
    /// The kept identification that waits for the re-check, when it was queued.
    var recheckIdentificationID: Int64?

    init(_ upload: RecentUploads.Upload) {
        queuedForRecheck = upload.recheckIdentificationID == nil ? nil : upload.outcome.recheckReason
        recheckIdentificationID = upload.recheckIdentificationID
        uploadID = upload.id
        outcome = upload.outcome
        didYouMean = upload.outcome.suggestions
        organs = upload.photos.map(\.organ)
        timings = upload.outcome.identification.timings
    }

    /// Whether the answer came from the identification cache (no Pl@ntNet call and no quota spent).
    var cached: Bool { outcome.identification.source == .cache }
}

extension IdentifyAnswer {
    /// `POST /api/identify`'s answer: the same object `plantguide identify --json` prints, with the upload's id.
    init(_ result: IdentifyResult) {
        let outcome = result.outcome
        self.init(
            preferred: outcome.identification, strategy: outcome.strategy, onDevice: outcome.onDevice,
            online: outcome.online, notAPlant: outcome.notAPlant ?? false, offline: outcome.offline,
            remainingRequests: outcome.quotaRemaining, quotaLevel: outcome.quotaLevel, suggestions: result.didYouMean,
            notes: outcome.notes, totalMilliseconds: outcome.identification.timings[stage: .total]
        )
        timings = result.timings
        organs = result.organs
        uploadId = result.uploadID
        recheck = result.queuedForRecheck.map { Recheck(reason: $0, identificationId: result.recheckIdentificationID) }
    }
}
