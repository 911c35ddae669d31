import Foundation
import Hummingbird
import PlantCatalog
import PlantGuideCore

/// The Identify page, its results, and `POST /api/identify`.
struct IdentifyRoutes {
    let currentIdentification: CurrentIdentification
    let catalog: PlantCatalog?
    let queue: IdentifyQueue
    let uploads: RecentUploads
    let configuration: ServerConfiguration
    let collectionAvailable: Bool

    /// Read per request: saving a key in Settings can replace it.
    private var identification: IdentificationCapability? { currentIdentification.capability }

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
        // Enrichment (names, family, catalog entry, related plants, uncertainty) happened in the identification layer.
        let id = UUID().uuidString.lowercased()
        uploads.add(.init(id: id, photo: photos[0], kind: kinds[0], outcome: outcome, sessionID: context.sessionID))
        return IdentifyResult(uploadID: id, outcome: outcome, didYouMean: outcome.suggestions)
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
    var uncertainReason: String?
    var photoCount: Int?
    var agreeingPhotos: Int?
    var offline: Bool
    var quotaRemaining: Int?
    var predictions: [SpeciesPrediction]
    var didYouMean: [CatalogPlant]

    init(_ result: IdentifyResult) {
        uploadId = result.uploadID
        source = result.outcome.identification.source.rawValue
        model = result.outcome.identification.model
        uncertain = result.outcome.identification.uncertain
        uncertainReason = result.outcome.identification.uncertainReason
        photoCount = result.outcome.identification.photoCount
        agreeingPhotos = result.outcome.identification.agreeingPhotos
        offline = result.outcome.offline
        quotaRemaining = result.outcome.quotaRemaining
        predictions = result.outcome.identification.predictions
        didYouMean = result.didYouMean
    }
}
