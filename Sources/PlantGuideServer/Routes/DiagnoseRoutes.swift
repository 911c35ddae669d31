import Foundation
import Hummingbird
import PlantGuideCore
import PlantNetAPI
import PlantStore

/// "Something wrong?": photos of a sick plant to Pl@ntNet's disease service, and the answer's page.
struct DiagnoseRoutes {
    let currentIdentification: CurrentIdentification
    let collection: CollectionCapability?
    /// Where a plant's diagnosed photos wait (as long as an identification's) for "Keep in the plant's history".
    let uploads: RecentUploads
    let configuration: ServerConfiguration

    /// Read per request: saving a key in Settings can replace it.
    private var diagnosis: DiagnosisCapability? { currentIdentification.capability?.diagnosis }

    /// The organs the form offers: those the disease service takes.
    static let organs: [PlantNetOrgan] = [.leaf, .flower, .fruit, .bark, .auto]
    /// The language diseases are named in.
    static let language = "en"

    func register(on router: Router<AppRequestContext>) {
        router.get("/diagnose") { request, context in
            let plant = try await plantDetail(request.queryValue("plant"))
            return Response.html(Pages.diagnoseForm(
                available: diagnosis != nil, plant: plant?.entry, limit: configuration.maxUploadBytes, context: context
            ))
        }
        // Post, redirect, get: the answer is kept (7 days, by photo), so its page has its own address and reloading it
        // never sends the photos again. Without a store to keep it, the page is the POST's answer.
        router.post("/diagnose") { request, context in
            guard let diagnosis else {
                throw ServerError.capabilityMissing("Diagnosis needs a Pl@ntNet API key: add one on the Settings page.")
            }
            let form = try await request.formData(context: context, limit: configuration.maxUploadBytes)
            let (files, _) = try form.photos()
            let organs = try Self.organs(form.fields.filter { $0.name == "organ" }.map(\.value), photos: files.count)
            let plant = try await plantDetail(form["plant"])
            let sent: (answer: DiagnosisAnswer, sha256s: [String])
            do {
                sent = try await diagnosis.diagnose(files.map(\.data), organs, Self.language)
            } catch {
                // Pl@ntNet cannot be reached (or its quota is spent): a plant's photos can wait in its history.
                guard let plant, Self.canWait(error) else { throw Self.serverError(for: error) }
                // The folder names the kept photos by the SHA-256 it computed: the form sends those back.
                let kept = collection?.keepDiagnosis == nil ? nil : uploads.keepFiles(files.map(\.data))
                let keep = kept.map { Pages.DiagnosisKeep(sha256s: $0, organs: organs, language: Self.language) }
                return Response.html(
                    Pages.diagnoseLater(reason: "\(error)", plant: plant, keep: keep, context: context), status: .serviceUnavailable
                )
            }
            // A plant's photos wait for "Keep in the plant's history" (named by SHA-256 in the results page's address).
            if plant != nil, !sent.answer.rejected { uploads.keepFiles(files.map(\.data)) }
            // Only an answer that is kept gets its own address (a store that could not keep it still shows it).
            guard let cached = diagnosis.cached, await cached(sent.sha256s, organs, Self.language) != nil else {
                return Response.html(Pages.diagnoseResults(sent.answer, plant: plant, keep: nil, context: context))
            }
            var address = "/diagnose/results?photos=\(sent.sha256s.joined(separator: ","))"
                + "&organs=\(organs.map(\.rawValue).joined(separator: ","))&lang=\(Self.language)"
            if let plant { address += "&plant=\(urlComponent(plant.entry.id))" }
            return Response.redirect(to: address, type: .normal)
        }
        router.get("/diagnose/results") { request, context in
            let sha256s = (request.queryValue("photos") ?? "").split(separator: ",").map(String.init)
            let organs = (request.queryValue("organs") ?? "").split(separator: ",").map(String.init)
            let language = request.queryValue("lang") ?? Self.language
            guard (1...PhotoUploadRules.maximumPhotos).contains(sha256s.count), sha256s.allSatisfy(Self.isSHA256),
                  organs.count == sha256s.count, language.count <= 16, language.allSatisfy({ $0.isLetter || $0 == "-" })
            else { throw ServerError.badRequest("That is not the address of a diagnosis.") }
            let chosen = try Self.organs(organs, photos: sha256s.count)
            guard let cached = diagnosis?.cached, let answer = await cached(sha256s, chosen, language) else {
                throw ServerError.notFound("That diagnosis (answers are kept for 7 days; send the photos again)")
            }
            let plant = try await plantDetail(request.queryValue("plant"))
            // Offered while the photos wait to be kept (and the collection can keep them), never for a refused answer.
            let keep = plant != nil && !answer.rejected && collection?.keepDiagnosis != nil
                && sha256s.allSatisfy { uploads.hasFile(sha256: $0) }
                ? Pages.DiagnosisKeep(sha256s: sha256s, organs: chosen, language: language) : nil
            return Response.html(Pages.diagnoseResults(answer, plant: plant, keep: keep, context: context))
        }
        // "Keep in the plant's history": the kept answer and the waiting photos become a health record of the plant.
        router.post("/collection/:id/health") { request, context in
            guard let id = context.parameters.get("id"), let keepDiagnosis = collection?.keepDiagnosis else {
                throw ServerError.capabilityMissing("Keeping a diagnosis needs the collection.")
            }
            let form = try await request.formData(context: context, limit: 64 * 1024)
            let sha256s = (form["photos"] ?? "").split(separator: ",").map(String.init)
            let organs = (form["organs"] ?? "").split(separator: ",").map(String.init)
            let language = form["lang"] ?? Self.language
            guard (1...PhotoUploadRules.maximumPhotos).contains(sha256s.count), sha256s.allSatisfy(Self.isSHA256),
                  organs.count == sha256s.count, language.count <= 16, language.allSatisfy({ $0.isLetter || $0 == "-" })
            else { throw ServerError.badRequest("That is not a diagnosis to keep.") }
            let chosen = try Self.organs(organs, photos: sha256s.count)
            let note = form["note"]
            if let note, note.unicodeScalars.count > NewHealthRecord.maximumNoteCharacters {
                throw ServerError.unprocessable(InputLimits.tooLong("note", characters: NewHealthRecord.maximumNoteCharacters))
            }
            // Kept for later (Pl@ntNet could not be reached): no answer to read; the re-check queue asks for it.
            var answer: DiagnosisAnswer?
            if form["later"] == nil {
                guard let cached = diagnosis?.cached, let kept = await cached(sha256s, chosen, language) else {
                    throw ServerError.notFound("That diagnosis (answers are kept for 7 days; send the photos again)")
                }
                guard !kept.rejected else {
                    throw ServerError.unprocessable("Pl@ntNet did not recognise a plant in these photos: there is nothing to keep.")
                }
                answer = kept
            }
            var photos: [(sha256: String, data: Data, organ: String)] = []
            for (sha256, organ) in zip(sha256s, chosen) {
                // Read only when whole: the folder checks the file's SHA-256 against its name.
                guard let data = uploads.file(sha256: sha256) else {
                    throw ServerError.notFound("The diagnosed photos (they wait 2 hours to be kept; diagnose them again)")
                }
                photos.append((sha256, data, organ.rawValue))
            }
            // The answer came from Pl@ntNet; that this page read it back from the cache is not the record's business.
            if answer?.diagnosis.source == .cache { answer?.diagnosis.source = .plantNetAPI }
            try await keepDiagnosis(id, DiagnosisToKeep(diagnosis: answer?.diagnosis, language: language, photos: photos, note: note))
            return Response.redirect(to: "/collection/\(urlComponent(id))#health", type: .normal)
        }
        router.post("/collection/:id/health/:record/remove") { _, context in
            guard let id = context.parameters.get("id"), let record = context.parameters.get("record"),
                  let removeHealthRecord = collection?.removeHealthRecord else {
                throw ServerError.capabilityMissing("Removing a diagnosis needs the collection.")
            }
            try await removeHealthRecord(id, record)
            return Response.redirect(to: "/collection/\(urlComponent(id))#health", type: .normal)
        }
    }

    /// The collection plant named by a form or an address (none when the value is missing or empty).
    private func plantDetail(_ id: String?) async throws -> CollectionEntryDetail? {
        guard let id, !id.isEmpty else { return nil }
        guard let collection, let detail = try await collection.detail(id) else {
            throw ServerError.notFound("That plant in your collection")
        }
        return detail
    }

    /// One organ per photo (none given: all auto; one: for every photo), from the disease service's organs only.
    static func organs(_ values: [String], photos: Int) throws(ServerError) -> [PlantNetOrgan] {
        var organs: [PlantNetOrgan] = []
        for text in values {
            guard let organ = PlantNetOrgan(webValue: text), Self.organs.contains(organ) else {
                throw ServerError.badRequest(
                    "The disease service takes photos of a leaf, flower, fruit or bark (or “\(PlantNetOrgan.auto.label)”), not “\(text)”."
                )
            }
            organs.append(organ)
        }
        guard organs.count <= 1 || organs.count == photos else {
            throw ServerError.badRequest("Give one organ for every photo (\(photos) photos, \(organs.count) organs), or one for all.")
        }
        return organs.isEmpty ? Array(repeating: .auto, count: photos)
            : organs.count == 1 ? Array(repeating: organs[0], count: photos) : organs
    }

    private static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether a failure means Pl@ntNet cannot answer now but will later (unreachable, timed out, failing, or out of
    /// quota for today), so a plant's photos can wait for it.
    static func canWait(_ error: any Error) -> Bool {
        (error as? PlantNetError)?.isWorthRetryingLater ?? false
    }

    /// A disease request's failure in the web app's terms.
    static func serverError(for error: any Error) -> ServerError {
        if let error = error as? ServerError { return error }
        guard let error = error as? PlantNetError else { return LiveIdentification.serverError(for: error) }
        switch error {
        case .invalidRequest(let reason), .badRequest(let reason):
            return .badRequest(reason.prefix(1).uppercased() + reason.dropFirst())
        case .payloadTooLarge:
            return .tooLarge("\(error)")
        case .quotaExhausted, .offline, .timeout:
            return .capabilityMissing("Pl@ntNet cannot diagnose now: \(error)")
        default:
            return .failed("The diagnosis failed: \(error)")
        }
    }
}
