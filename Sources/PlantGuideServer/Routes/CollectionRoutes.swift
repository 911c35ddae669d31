import Foundation
import Hummingbird
import PlantCatalog
import PlantGuideCore
import PlantStore

/// Collection pages, "Save to collection", a plant's photos, edits and removal, and the collection API.
struct CollectionRoutes {
    let collection: CollectionCapability?
    let recheck: RecheckCapability?
    let uploads: RecentUploads
    let configuration: ServerConfiguration
    /// The catalog, to say "Calathea orbifolia is now Goeppertia orbifolia" when a plant was added by a former name.
    var catalog: PlantCatalog?
    /// Who looks after each plant (the household's members), where the server sends reminders.
    var reminders: ReminderCapability?

    func register(on router: Router<AppRequestContext>) {
        router.get("/collection") { request, context in
            guard let collection else { return Response.html(Pages.collectionUnavailable(context: context)) }
            let room = Self.room(request.queryValue("room"))
            let all = try await collection.list(nil)
            let shown = room == nil ? all : all.filter { $0.room == room }
            let grid = request.queryValue("view") != "list"
            return Response.html(Pages.collection(shown, rooms: Set(all.compactMap(\.room)).sorted(), room: room, grid: grid, context: context))
        }
        router.get("/collection/:id") { request, context in
            let detail = try await detail(context)
            let suggestions = try await recheck?.suggestions(detail.entry.id) ?? []
            var assignment: Pages.AssignmentState?
            if let read = reminders?.assignments, let plant = LiveStore.plantID(detail.entry.id) {
                let assignments = try await read()
                // Only where there are members to choose from (a household with accounts).
                if !assignments.members.isEmpty {
                    assignment = Pages.AssignmentState(plant: plant, assignments: assignments)
                }
            }
            return Response.html(Pages.collectionPlant(
                detail, suggestions: suggestions, uploadLimit: configuration.maxUploadBytes, assignment: assignment,
                notice: request.queryValue("added").flatMap { renamed($0, to: detail.entry.scientificName) }, context: context
            ))
        }
        // Who looks after the plant: `to` is a member's id, `turns` or `everyone`.
        router.post("/collection/:id/assign") { request, context in
            guard let assign = reminders?.assign else { throw ServerError.capabilityMissing("Assigning care needs the collection.") }
            let id = try Self.id(context)
            guard let plant = LiveStore.plantID(id) else { throw ServerError.notFound("That plant in your collection") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            let assignee: CareAssignee?
            switch form["to"] {
            case "everyone"?: assignee = nil
            case "turns"?: assignee = .turns
            case let text?:
                guard let member = LiveStore.plantID(text) else { throw ServerError.badRequest("Choose a member, turns or everyone.") }
                assignee = .member(member)
            case nil: throw ServerError.badRequest("Choose a member, turns or everyone.")
            }
            try await assign(plant, assignee)
            return Self.backToPlant(id)
        }
        // "Pl@ntNet thinks this is X": take its species (and care), or keep the plant's.
        router.post("/collection/:id/suggestions/:suggestion/:action") { _, context in
            guard let recheck else { throw ServerError.capabilityMissing("Suggestions need the collection.") }
            let id = try Self.id(context)
            guard let suggestion = context.parameters.get("suggestion").flatMap(LiveStore.plantID) else {
                throw ServerError.notFound("That suggestion")
            }
            let accept: Bool
            switch context.parameters.get("action") {
            case "accept": accept = true
            case "dismiss": accept = false
            default: throw ServerError.notFound("That action")
            }
            _ = try await recheck.settle(id, suggestion, accept)
            return Self.backToPlant(id)
        }
        router.get("/collection/photos/:id") { _, context in
            try await Self.image(context.parameters.get("id"), require().photo)
        }
        // The 256-pixel thumbnail the grids show; the full photo only when a person opens it.
        router.get("/collection/photos/:id/thumbnail") { _, context in
            try await Self.image(context.parameters.get("id"), require().thumbnail)
        }
        router.post("/collection/:id/photos") { request, context in
            let (collection, id) = (try require(), try Self.id(context))
            // The same checks and limits as identifying (PhotoUploadRules), each photo judged by its content.
            let form = try await request.formData(context: context, limit: configuration.maxUploadBytes)
            let (files, _) = try form.photos()
            for file in files { try await collection.addPhoto(id, file.data) }
            return Self.backToPlant(id)
        }
        router.post("/collection/:id/photos/:photo/cover") { _, context in
            let id = try Self.id(context)
            try await require().setCover(id, try Self.id(context, "photo"))
            return Self.backToPlant(id)
        }
        router.post("/collection/:id/photos/:photo/remove") { _, context in
            let id = try Self.id(context)
            try await require().removePhoto(id, try Self.id(context, "photo"))
            return Self.backToPlant(id)
        }
        router.post("/collection/:id/edit") { request, context in
            let id = try Self.id(context)
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            // A field the form did not send stays as it is.
            try await edit(
                id, PlantEditBody(nickname: form["nickname"].map(Optional.some), room: form["room"].map(Optional.some), notes: form["notes"].map(Optional.some))
            )
            return Self.backToPlant(id)
        }
        // Removing asks first, on a page of its own, so it needs no script.
        router.get("/collection/:id/remove") { _, context in
            Response.html(Pages.collectionRemove(try await detail(context).entry, context: context))
        }
        router.post("/collection/:id/remove") { _, context in
            try await require().remove(try Self.id(context))
            return Response.redirect(to: "/collection", type: .normal)
        }
        router.post("/collection") { request, context in
            let entry = try await save(request, context: context)
            // Added by a former or trade name: the plant's page says what the name is now.
            let typed = context.form?["scientificName"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let query = renamed(typed, to: entry.scientificName) == nil ? "" : "?added=\(urlComponent(typed))"
            return Response.redirect(to: "/collection/\(urlComponent(entry.id))\(query)", type: .normal)
        }
        router.get("/api/collection") { request, _ in
            let room = Self.room(request.queryValue("room"))
            return JSONResponse.make(try await require().list(room))
        }
        router.get("/api/collection/:id") { _, context in JSONResponse.make(try await detail(context)) }
        router.patch("/api/collection/:id") { request, context in
            let id = try Self.id(context)
            try await edit(id, try await request.decodeJSON(as: PlantEditBody.self, context: context))
            return JSONResponse.make(try await detail(context))
        }
        router.post("/api/collection") { request, context in
            JSONResponse.make(try await save(request, context: context), status: .created)
        }
    }

    /// White space and line breaks, exactly those of `CharacterSet.whitespacesAndNewlines` (a test checks): a
    /// name of only these is blank, here and in the store. Listed so the OpenAPI document states the same rule.
    static let blankScalars: Set<Unicode.Scalar> = Set(
        ["\t", "\n", "\u{0B}", "\u{0C}", "\r", " ", "\u{85}", "\u{A0}", "\u{1680}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}"]
            + (0x2000...0x200B).compactMap(Unicode.Scalar.init)
    )

    /// "Calathea orbifolia is now Goeppertia orbifolia (Round-leaf Calathea)." when `name` is a former or trade name
    /// of the catalog entry `species`; `nil` otherwise.
    private func renamed(_ name: String, to species: String) -> String? {
        guard let renamed = catalog?.renamingNotice(for: name), renamed.accepted.scientificName == species else { return nil }
        return renamed.notice
    }

    private static func room(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }

    /// A photo's bytes with their media type, judged by content; 404 when there is none.
    private static func image(_ id: String?, _ lookup: @Sendable (String) async throws -> Data?) async throws -> Response {
        guard let id, let data = try await lookup(id) else { throw ServerError.notFound("The photo") }
        let kind = ImageFormat.detect(data) ?? .jpeg
        return Response(
            status: .ok, headers: [.contentType: kind.mediaType, .cacheControl: "private, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    private static func id(_ context: AppRequestContext, _ name: String = "id") throws -> String {
        guard let id = context.parameters.get(name), !id.isEmpty else { throw ServerError.notFound("That plant in your collection") }
        return id
    }

    /// Post, redirect, get: back to the plant's page, so reloading it sends nothing again.
    private static func backToPlant(_ id: String) -> Response {
        Response.redirect(to: "/collection/\(urlComponent(id))", type: .normal)
    }

    /// Changes a plant's nickname, room and notes: a field left out stays as it is; empty or only white space clears
    /// it. Limits apply to the text as sent.
    private func edit(_ id: String, _ body: PlantEditBody) async throws {
        let collection = try require()
        guard let current = try await collection.detail(id)?.entry else { throw ServerError.notFound("That plant in your collection") }
        for (what, text, limit) in [
            ("nickname", body.nickname, InputLimits.nicknameCharacters), ("room", body.room, InputLimits.roomCharacters),
            ("note", body.notes, InputLimits.noteCharacters),
        ] where InputLimits.exceeds((text ?? nil) ?? "", characters: limit) {
            throw ServerError.unprocessable(InputLimits.tooLong(what, characters: limit))
        }
        func value(_ field: String??, else kept: String?) -> String? {
            guard let field else { return kept }
            let trimmed = (field ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
        try await collection.update(
            id,
            CollectionEdit(
                nickname: value(body.nickname, else: current.nickname), room: value(body.room, else: current.room),
                notes: value(body.notes, else: current.notes)
            )
        )
    }

    private func require() throws -> CollectionCapability {
        guard let collection else {
            throw ServerError.capabilityMissing("The plant collection is not available in this build yet.")
        }
        return collection
    }

    private func detail(_ context: AppRequestContext) async throws -> CollectionEntryDetail {
        guard let id = context.parameters.get("id"), let detail = try await require().detail(id) else {
            throw ServerError.notFound("That plant in your collection")
        }
        return detail
    }

    private func save(_ request: Request, context: AppRequestContext) async throws -> CollectionEntry {
        let collection = try require()
        let fields: SaveBody
        if request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true {
            fields = try await request.decodeJSON(as: SaveBody.self, context: context)
        } else {
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            fields = SaveBody(
                uploadId: form["uploadId"], plantId: form["plantId"].flatMap { $0.isEmpty || $0 == "new" ? nil : $0 },
                scientificName: form["scientificName"] ?? "", nickname: form["nickname"], room: form["room"]
            )
        }
        // A name that is only white space is none (the `pattern` of the OpenAPI document); limits apply to the
        // text as sent, as its `maxLength` does.
        guard fields.scientificName.unicodeScalars.contains(where: { !Self.blankScalars.contains($0) }) else {
            throw ServerError.badRequest("Give the plant's scientific name.")
        }
        let name = fields.scientificName.trimmingCharacters(in: .whitespaces)
        for (what, text, limit) in [
            ("scientific name", fields.scientificName, InputLimits.plantNameCharacters),
            ("nickname", fields.nickname ?? "", InputLimits.nicknameCharacters),
            ("room", fields.room ?? "", InputLimits.roomCharacters),
        ] where InputLimits.exceeds(text, characters: limit) {
            throw ServerError.unprocessable(InputLimits.tooLong(what, characters: limit))
        }
        var photos: [Data] = []
        var identification: Identification?
        var queued: Int64?
        if let uploadID = fields.uploadId, !uploadID.isEmpty {
            guard let upload = await uploads.upload(id: uploadID, sessionID: context.sessionID) else {
                throw ServerError.notFound("The identified photo (it expired; identify it again)")
            }
            photos = upload.photos.map(\.data)
            identification = upload.outcome.identification
            queued = upload.recheckIdentificationID
        }
        var entry = NewCollectionEntry(
            scientificName: name, nickname: Self.room(fields.nickname), room: Self.room(fields.room), photos: photos,
            identification: identification, plantID: fields.plantId
        )
        entry.queuedIdentificationID = queued
        return try await collection.add(entry)
    }
}

/// `POST /api/collection`'s body.
struct SaveBody: Codable, Sendable {
    var uploadId: String?
    var plantId: String?
    var scientificName: String
    var nickname: String?
    var room: String?
}

/// `PATCH /api/collection/{id}`'s body, and the plant page's edit form: a field left out (`.none`) stays as it is;
/// `null`, empty or only white space clears it.
struct PlantEditBody: Decodable, Sendable {
    var nickname: String??
    var room: String??
    var notes: String??

    init(nickname: String??, room: String??, notes: String??) {
        self.nickname = nickname
        self.room = room
        self.notes = notes
    }

    private enum CodingKeys: String, CodingKey { case nickname, room, notes }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func field(_ key: CodingKeys) throws -> String?? {
            container.contains(key) ? .some(try container.decodeIfPresent(String.self, forKey: key)) : .none
        }
        nickname = try field(.nickname)
        room = try field(.room)
        notes = try field(.notes)
    }
}
