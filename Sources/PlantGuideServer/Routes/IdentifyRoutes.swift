import Foundation
import Hummingbird
import PlantCatalog
import PlantGuideCore

/// The Identify page, its results, and `POST /api/identify`.
struct IdentifyRoutes {
    let identification: IdentificationCapability?
    let catalog: PlantCatalog?
    let queue: IdentifyQueue
    let uploads: RecentUploads
    let configuration: ServerConfiguration
    let collectionAvailable: Bool

    func register(on router: Router<AppRequestContext>) {
        router.get("/identify") { _, context in
            Response.html(Pages.identifyForm(capability: identification, limit: configuration.maxUploadBytes, context: context))
        }
        router.post("/identify") { request, context in
            let result = try await identify(request, context: context)
            return Response.html(Pages.identifyResults(result, canSave: collectionAvailable, context: context))
        }
        router.post("/api/identify") { request, context in
            JSONResponse.make(IdentifyResultBody(try await identify(request, context: context)))
        }
        router.get("/identify/uploads/:id") { _, context in
            guard let id = context.parameters.get("id"), let upload = uploads.upload(id: id, sessionID: context.sessionID) else {
                throw ServerError.notFound("The photo")
            }
            return Response(
                status: .ok, headers: [.contentType: upload.kind.mediaType, .cacheControl: "private, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(bytes: upload.photo))
            )
        }
    }

    /// Reads the upload, checks it, waits for a turn in the queue, identifies and enriches.
    private func identify(_ request: Request, context: AppRequestContext) async throws -> IdentifyResult {
        guard let identification else {
            throw ServerError.capabilityMissing(
                "Identification is not available yet: install an on-device model or add a Pl@ntNet API key in Settings."
            )
        }
        let form = try await request.formData(context: context, limit: configuration.maxUploadBytes)
        let files = form.files.filter { $0.field == "photo" || $0.field == "images" }
        guard !files.isEmpty else { throw ServerError.badRequest("Choose a photo of the plant first.") }
        guard files.count <= 5 else { throw ServerError.badRequest("Send at most 5 photos of one plant.") }
        var kinds: [ImageKind] = []
        for file in files {
            guard let kind = ImageKind(sniffing: file.data) else {
                throw ServerError.unsupportedImage("“\(file.filename)” is not a photo")
            }
            kinds.append(kind)
        }
        let organ = try form["organ"].map { text in
            guard let organ = PlantOrgan(rawValue: text) else { throw ServerError.badRequest("Unknown organ “\(text)”.") }
            return organ
        } ?? .auto
        let strategy = try form["strategy"].map { text in
            guard let strategy = IdentifyStrategy(rawValue: text) else { throw ServerError.badRequest("Unknown strategy “\(text)”.") }
            return strategy
        } ?? .auto
        let photos = files.map(\.data)
        let outcome: IdentifyOutcome
        do {
            outcome = try await queue.run {
                try await identification.identify(IdentifyRequest(photos: photos, organ: organ, strategy: strategy, top: 10))
            }
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError.failed("Identification failed: \(error)")
        }
        let enriched = enrich(outcome)
        let id = UUID().uuidString.lowercased()
        uploads.add(.init(id: id, photo: photos[0], kind: kinds[0], outcome: enriched, sessionID: context.sessionID))
        return IdentifyResult(uploadID: id, outcome: enriched, didYouMean: didYouMean(enriched.identification))
    }

    /// Marks candidates found in the catalog ("found in local database") with category and family.
    private func enrich(_ outcome: IdentifyOutcome) -> IdentifyOutcome {
        guard let catalog else { return outcome }
        var outcome = outcome
        outcome.identification.predictions = outcome.identification.predictions.map { prediction in
            var prediction = prediction
            if let plant = try? catalog.plant(named: prediction.scientificName) {
                prediction.inCatalog = true
                prediction.category = plant.category
                prediction.family = prediction.family ?? plant.family
                if prediction.commonNames.isEmpty { prediction.commonNames = plant.commonNames }
            }
            return prediction
        }
        return outcome
    }

    private func didYouMean(_ identification: Identification) -> [CatalogPlant] {
        guard let catalog, let best = identification.best, identification.uncertain || best.confidence < 0.7 else { return [] }
        let shown = Set(identification.predictions.map(\.scientificName))
        return ((try? catalog.suggestMatches(for: best.scientificName, confidence: best.confidence)) ?? [])
            .filter { !shown.contains($0.scientificName) }
    }
}

/// One identification as the pages and the API show it.
struct IdentifyResult: Sendable {
    var uploadID: String
    var outcome: IdentifyOutcome
    var didYouMean: [CatalogPlant]
}

/// `POST /api/identify`'s answer.
struct IdentifyResultBody: Codable, Sendable {
    var uploadId: String
    var source: String
    var model: String?
    var uncertain: Bool
    var offline: Bool
    var quotaRemaining: Int?
    var predictions: [SpeciesPrediction]
    var didYouMean: [CatalogPlant]

    init(_ result: IdentifyResult) {
        uploadId = result.uploadID
        source = result.outcome.identification.source.rawValue
        model = result.outcome.identification.model
        uncertain = result.outcome.identification.uncertain
        offline = result.outcome.offline
        quotaRemaining = result.outcome.quotaRemaining
        predictions = result.outcome.identification.predictions
        didYouMean = result.didYouMean
    }
}
