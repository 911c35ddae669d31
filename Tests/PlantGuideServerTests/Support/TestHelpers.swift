import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PlantCatalog
import PlantGuideCore
import PlantIdentification
import PlantNetAPI
import Synchronization
import Testing
@testable import PlantGuideServer

/// A small real catalog for router tests (the bundled one is exercised by the browser tests).
let fixtureCatalog = PlantCatalog(plants: [
    CatalogPlant(scientificName: "Monstera deliciosa", commonNames: ["Swiss Cheese Plant"], family: "Araceae", category: .tropicalFoliage),
    CatalogPlant(scientificName: "Monstera adansonii", commonNames: ["Monkey Mask"], family: "Araceae", category: .tropicalFoliage),
    CatalogPlant(scientificName: "Echeveria elegans", commonNames: ["Mexican Snowball"], family: "Crassulaceae", category: .succulent),
    CatalogPlant(scientificName: "Mammillaria elongata", commonNames: ["Ladyfinger Cactus"], family: "Cactaceae", category: .cactus),
    CatalogPlant(scientificName: "Nephrolepis exaltata", commonNames: ["Boston Fern"], family: "Nephrolepidaceae", category: .fern),
    CatalogPlant(scientificName: "Dracaena trifasciata", commonNames: ["Snake Plant"], family: "Asparagaceae", category: .succulent),
])

/// The names the fake identifier answers with, best first; the first two are in the fixture catalog.
let fakeSpecies = [
    "Monstera deliciosa", "Monstera adansonii", "Philodendron hederaceum", "Epipremnum aureum", "Scindapsus pictus",
    "Syngonium podophyllum", "Alocasia amazonica", "Anthurium andraeanum", "Spathiphyllum wallisii", "Aglaonema commutatum",
    "Calathea orbifolia",
]

/// An identifier that answers with ten candidates; optionally waits for a gate so tests can fill the queue.
final class FakeIdentifier: Sendable {
    let calls = Mutex(0)
    /// The organs of every request, in order.
    let organs = Mutex<[[PlantNetOrgan]]>([])
    let confidence: Double
    let species: [String]
    let source: IdentificationSource

    init(confidence: Double = 0.82, species: [String] = fakeSpecies, source: IdentificationSource = .onDevice) {
        self.confidence = confidence
        self.species = species
        self.source = source
    }

    func capability(gate: Gate? = nil) -> IdentificationCapability {
        IdentificationCapability(summary: "Fake identifier", strategies: [.auto, .onDevice]) { [self] request in
            calls.withLock { $0 += 1 }
            organs.withLock { $0.append(request.organs) }
            if let gate { await gate.wait() }
            let predictions = species.prefix(request.top).enumerated().map { index, name in
                SpeciesPrediction(rank: index + 1, scientificName: name, confidence: index == 0 ? confidence : 0.5 / Double(index + 1))
            }
            // The identification layer enriches answers (catalog, names, uncertainty) before the routes see them.
            let enricher = AnswerEnricher(catalog: fixtureCatalog)
            let identification = enricher.enrich(
                Identification(source: source, model: "fake", predictions: Array(predictions), uncertain: false)
            )
            return IdentifyOutcome(
                identification: identification, offline: request.strategy == .onDevice, quotaRemaining: 12,
                suggestions: enricher.didYouMean(for: identification)
            )
        }
    }
}

/// A one-shot barrier: `wait()` suspends until `open()`.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resume = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    var waiting: Int { state.withLock { $0.waiters.count } }
}

/// An in-memory collection and care store with the behaviour the pages rely on.
final class FakeStore: Sendable {
    struct State {
        var entries: [CollectionEntry] = []
        var photos: [String: Data] = [:]
        /// Each plant's photo ids, newest first.
        var plantPhotos: [String: [String]] = [:]
        /// Covers chosen with "Set as cover".
        var covers: [String: String] = [:]
        var identifications: [String: [CollectionIdentification]] = [:]
        var tasks: [DueCareItem] = []
        var done: [String] = []
        var snoozed: [(String, Int)] = []
        var apiKey: String?

        /// Stores a photo with a plant; its cover becomes the chosen one, else the newest.
        mutating func attach(_ data: Data, to plant: String) -> String {
            let id = "ph\(photos.count + 1)"
            photos[id] = data
            plantPhotos[plant, default: []].insert(id, at: 0)
            refreshCover(of: plant)
            return id
        }

        mutating func refreshCover(of plant: String) {
            guard let index = entries.firstIndex(where: { $0.id == plant }) else { return }
            entries[index].photoID = covers[plant] ?? plantPhotos[plant]?.first
        }

        func requirePhoto(_ photo: String, of plant: String) throws {
            guard plantPhotos[plant]?.contains(photo) == true else { throw ServerError.notFound("That photo of the plant") }
        }

        func index(of plant: String) throws -> Int {
            guard let index = entries.firstIndex(where: { $0.id == plant }) else { throw ServerError.notFound("That plant in your collection") }
            return index
        }
    }

    /// The profile every fake plant has.
    static let profile = CareProfile(
        light: .brightIndirect, waterGrowingDays: 7, waterWinterDays: 14, fertilizeGrowingDays: 30, mistDays: nil, repotDays: 730,
        pruneDays: nil, humidity: .high, minTemperature: 18, maxTemperature: 27, toxicToCats: true, toxicToDogs: true,
        toxicitySource: "ASPCA", basis: "genus Monstera"
    )

    let state = Mutex(State())
    let now: Date

    init(now: Date) { self.now = now }

    var collection: CollectionCapability {
        CollectionCapability(
            list: { room in self.state.withLock { $0.entries.filter { room == nil || $0.room == room } } },
            detail: { id in
                self.state.withLock { state in
                    state.entries.first { $0.id == id }.map { entry in
                        let photoIDs = state.plantPhotos[id] ?? []
                        let identifications = state.identifications[id] ?? []
                        return CollectionEntryDetail(
                            entry: entry, photoIDs: photoIDs,
                            history: identifications.map { CollectionEvent(date: $0.date, text: $0.summary) }
                                + [CollectionEvent(date: entry.added, text: "Added as \(entry.scientificName)")],
                            careLog: state.done.filter { $0.hasSuffix("-\(id)") }.map { CollectionEvent(date: self.now, text: "Done \($0)") },
                            photos: photoIDs.map { CollectionPhoto(id: $0, isCover: $0 == entry.photoID, added: self.now) },
                            identifications: identifications, careProfile: FakeStore.profile,
                            schedule: state.tasks.filter { $0.plantID == id }.map {
                                CollectionCareTask(id: $0.id, action: $0.action, due: $0.due, intervalDays: 7, lastDone: nil)
                            }
                        )
                    }
                }
            },
            add: { new in
                try self.state.withLock { state in
                    let id: String
                    if let existing = new.plantID {
                        _ = try state.index(of: existing)
                        id = existing
                    } else {
                        id = "p\(state.entries.count + 1)"
                        state.entries.append(CollectionEntry(
                            id: id, scientificName: new.scientificName, nickname: new.nickname, room: new.room, added: self.now
                        ))
                        state.tasks.append(DueCareItem(id: "t-\(id)", plantID: id, plantName: new.nickname ?? new.scientificName, action: "Water", due: self.now))
                    }
                    for photo in new.photos { _ = state.attach(photo, to: id) }
                    if let identification = new.identification {
                        let best = identification.best
                        state.identifications[id, default: []].insert(CollectionIdentification(
                            date: identification.date, species: new.scientificName, confidence: best?.confidence,
                            source: identification.source, model: identification.model
                        ), at: 0)
                    }
                    return try state.entries[state.index(of: id)]
                }
            },
            photo: { id in self.state.withLock { $0.photos[id] } },
            thumbnail: { id in self.state.withLock { $0.photos[id] == nil ? nil : Data("thumbnail of \(id)".utf8) } },
            addPhoto: { id, data in
                try self.state.withLock { state in
                    _ = try state.index(of: id)
                    _ = state.attach(data, to: id)
                }
            },
            removePhoto: { id, photo in
                try self.state.withLock { state in
                    try state.requirePhoto(photo, of: id)
                    state.plantPhotos[id]?.removeAll { $0 == photo }
                    if state.covers[id] == photo { state.covers[id] = nil }
                    state.refreshCover(of: id)
                }
            },
            setCover: { id, photo in
                try self.state.withLock { state in
                    try state.requirePhoto(photo, of: id)
                    state.covers[id] = photo
                    state.refreshCover(of: id)
                }
            },
            update: { id, edit in
                try self.state.withLock { state in
                    let index = try state.index(of: id)
                    state.entries[index].nickname = edit.nickname
                    state.entries[index].room = edit.room
                    state.entries[index].notes = edit.notes
                }
            },
            remove: { id in
                try self.state.withLock { state in
                    state.entries.remove(at: try state.index(of: id))
                    state.tasks.removeAll { $0.plantID == id }
                }
            }
        )
    }

    var care: CareCapability {
        CareCapability(
            due: { through in self.state.withLock { $0.tasks.filter { $0.due <= through } } },
            markDone: { id in
                try self.state.withLock { state in
                    guard state.tasks.contains(where: { $0.id == id }) else { throw ServerError.notFound("The task") }
                    state.done.append(id)
                    state.tasks.removeAll { $0.id == id }
                }
            },
            snooze: { id, days in self.state.withLock { $0.snoozed.append((id, days)) } },
            calendar: { _ in "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n" }
        )
    }

    var settings: SettingsCapability {
        SettingsCapability(
            apiKeySource: { self.state.withLock { $0.apiKey == nil ? nil : .dataDirectory } },
            replaceAPIKey: { key in self.state.withLock { $0.apiKey = key } },
            quota: { QuotaStatus(remaining: 480, limit: 500) },
            cacheStatistics: { [("Entries", "3")] },
            modelInfo: { [("Model", "fake")] }
        )
    }
}

/// Bytes that start like a real JPEG / PNG.
let jpegBytes = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data("JFIF".utf8) + Data(repeating: 7, count: 64)
let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 1, count: 64)

/// A multipart/form-data body.
struct Multipart {
    let boundary = "----plantguide-test-boundary"
    var parts: [(name: String, filename: String?, data: Data)] = []

    mutating func field(_ name: String, _ value: String) { parts.append((name, nil, Data(value.utf8))) }
    mutating func file(_ name: String, _ filename: String, _ data: Data) { parts.append((name, filename, data)) }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    var body: ByteBuffer {
        var data = Data()
        for part in parts {
            data += Data("--\(boundary)\r\n".utf8)
            if let filename = part.filename {
                data += Data("Content-Disposition: form-data; name=\"\(part.name)\"; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            } else {
                data += Data("Content-Disposition: form-data; name=\"\(part.name)\"\r\n\r\n".utf8)
            }
            data += part.data + Data("\r\n".utf8)
        }
        data += Data("--\(boundary)--\r\n".utf8)
        return ByteBuffer(bytes: data)
    }
}

/// A browser-like session for router tests: keeps the cookie and knows the anti-forgery token.
struct Session {
    var cookie: String
    var csrf: String

    /// Opens a session by asking `GET /api/session`.
    static func open(_ client: some TestClientProtocol) async throws -> Session {
        try await client.execute(uri: "/api/session", method: .get) { response in
            let setCookie = response.headers[.setCookie] ?? ""
            let cookie = String(setCookie.split(separator: ";").first ?? "")
            let body = try JSONDecoder().decode(SessionBody.self, from: Data(buffer: response.body))
            return Session(cookie: cookie, csrf: body.csrfToken)
        }
    }

    var headers: HTTPFields { [.cookie: cookie] }

    func form(_ fields: [(String, String)], includeToken: Bool = true) -> (HTTPFields, ByteBuffer) {
        var all = fields
        if includeToken { all.append(("_csrf", csrf)) }
        let text = all.map { "\(urlComponent($0.0))=\(urlComponent($0.1))" }.joined(separator: "&")
        return ([.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], ByteBuffer(string: text))
    }

    func multipart(_ form: Multipart, includeToken: Bool = true) -> (HTTPFields, ByteBuffer) {
        var form = form
        if includeToken { form.field("_csrf", csrf) }
        return ([.cookie: cookie, .contentType: form.contentType], form.body)
    }
}

extension Session {
    /// Sends an identify form to `POST /identify`, checks the redirect to the results' own address and returns
    /// that address and the results page.
    func identifyPage(_ client: some TestClientProtocol, _ form: Multipart) async throws -> (location: String, page: String) {
        let (headers, body) = multipart(form)
        let location = try await client.execute(uri: "/identify", method: .post, headers: headers, body: body) { response in
            #expect(response.status == .seeOther)
            return response.headers[.location] ?? ""
        }
        #expect(location.hasPrefix("/identify/results/"))
        let page = try await client.execute(uri: location, method: .get, headers: self.headers) { response in
            #expect(response.status == .ok)
            return response.text
        }
        return (location, page)
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    func errorBody() throws -> APIErrorBody {
        try JSONDecoder().decode(APIErrorBody.self, from: Data(buffer: body))
    }
}

func makeApp(
    configuration: ServerConfiguration = ServerConfiguration(),
    dependencies: ServerDependencies = ServerDependencies(catalog: fixtureCatalog)
) -> some ApplicationProtocol {
    var logger = Logger(label: "plantguide.test")
    logger.logLevel = .critical
    return Application(router: buildRouter(configuration: configuration, dependencies: dependencies), logger: logger)
}
