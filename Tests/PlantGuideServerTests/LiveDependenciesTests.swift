import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantGuideTestSupport
import PlantIdentification
import PlantReminders
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantGuideServer

/// The live wiring with real parts: a data directory on disk, the tiny fixture model, a real SQLite
/// collection, and no Pl@ntNet key.
@Suite struct LiveDependenciesTests {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func makeHome(withModel: Bool) throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        if withModel {
            let checkpoint = testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet18.pth")
            _ = try ModelStore(dataDirectory: DataDirectory(url: home)).install(checkpoint: checkpoint, options: .init(architecture: .resnet18))
        }
        return home
    }

    @Test func withoutModelOrKeyIdentificationIsOffButTheStoreWorks() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        #expect(dependencies.identification == nil)
        #expect(dependencies.collection != nil)
        #expect(dependencies.care != nil)
        #expect(dependencies.catalog != nil)
    }

    /// After `model install` failed (scripts/run offline), Identify and Settings say why in one line and what to do;
    /// a model installed later makes the line go away.
    @Test func aFailedModelInstallIsExplainedOnIdentifyAndSettings() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let models = ModelStore(dataDirectory: DataDirectory(url: home))
        models.recordInstallProblem(InstallProblem(url: "https://zenodo.org/x", reason: "Download of https://zenodo.org/x failed: offline."))
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        try await makeApp(dependencies: dependencies).test(.router) { client in
            for page in ["/identify", "/settings"] {
                try await client.execute(uri: page, method: .get) { response in
                    let text = String(buffer: response.body)
                    #expect(text.contains("could not be installed: Download of https://zenodo.org/x failed: offline."), "\(page)")
                    #expect(text.contains("plantguide model install"))
                }
            }
        }
        _ = try models.install(
            checkpoint: Self.testsFolder.appendingPathComponent("PlantClassifierTests/Fixtures/tiny-resnet18.pth"),
            options: .init(architecture: .resnet18)
        )
        let settings = try #require(dependencies.settings)
        #expect(settings.modelProblem() == nil)
    }

    /// A plant added on the web by a former name gets the catalog entry, and its page says what the name is now.
    @Test func aPlantAddedByAFormerNameSaysWhatItIsNow() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            for (typed, notice) in [
                ("Calathea orbifolia", "Calathea orbifolia is now Goeppertia orbifolia (Round-leaf Calathea)."),
                ("Monstera deliciosa", nil),
            ] {
                let (headers, body) = session.form([("scientificName", typed)])
                let location = try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .seeOther)
                    return response.headers[.location] ?? ""
                }
                #expect(location.contains("?added=") == (notice != nil), "\(location)")
                try await client.execute(uri: location, method: .get) { response in
                    #expect(response.status == .ok)
                    if let notice { #expect(response.text.contains(notice), "\(typed)") }
                    #expect(!response.text.contains("is now") || notice != nil)
                }
            }
            try await client.execute(uri: "/api/collection", method: .get) { response in
                #expect(response.text.contains(#""scientificName":"Goeppertia orbifolia""#))
                #expect(!response.text.contains("Calathea"))
            }
        }
    }

    /// Several photos through the real hybrid identifier and the Pl@ntNet stub: the reference photos are kept and
    /// served, and "This is my plant" stores every photo with the plant in the real collection.
    @Test func severalPhotosWithReferencePhotosThroughPlantNetAndTheRealStore() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let dependencies = await ServerDependencies.live(
            dataDirectory: home, environment: ["PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString]
        )
        let photos = try ["Browser/Fixtures/leaf.jpg", "PlantImagingTests/Fixtures/photo.jpg", "PlantImagingTests/Fixtures/orientation-1.jpg"]
            .map { try Data(contentsOf: Self.testsFolder.appendingPathComponent($0)) }
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            for (index, photo) in photos.enumerated() {
                form.file("photo", "photo\(index).jpg", photo)
                form.field("organ", ["leaf", "flower", "habit"][index])
            }
            form.field("strategy", "plantnet")
            let (headers, body) = session.multipart(form)
            let result = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok)
                return try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            #expect(result.source == .plantNetAPI)
            #expect(result.organs == [.leaf, .flower, .habit])
            #expect(stub.requests.first?.parts.filter { $0.name == "organs" }.map(\.text) == ["leaf", "flower", "habit"])
            let references = result.predictions[0].referenceImages
            #expect(references.count == 4)
            let id = try #require(references.first?.localID)
            try await client.execute(uri: "/identify/reference-photos/\(id)", method: .get, headers: session.headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(sha256Hex(Data(buffer: response.body)) == id)
            }
            try await client.execute(uri: "/identify/reference-photos/\(String(repeating: "a", count: 64))", method: .get) { response in
                #expect(response.status == .notFound)
            }
            let (saveHeaders, saveBody) = session.form([("uploadId", result.uploadId ?? ""), ("scientificName", "Monstera deliciosa")])
            let location = try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
                response.headers[.location] ?? ""
            }
            let plantID = String(location.split(separator: "/").last ?? "")
            let detail = try await client.execute(uri: "/api/collection/\(plantID)", method: .get) { response in
                try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
            }
            #expect(detail.photoIDs.count == 3)
            // The same photos again, for the plant just saved: one more identification, no duplicate photo files.
            let (againHeaders, againBody) = session.form([
                ("uploadId", result.uploadId ?? ""), ("scientificName", "Monstera deliciosa"), ("plantId", plantID),
            ])
            try await client.execute(uri: "/collection", method: .post, headers: againHeaders, body: againBody) { response in
                #expect(response.headers[.location] == location)
            }
            let again = try await client.execute(uri: "/api/collection/\(plantID)", method: .get) { response in
                try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
            }
            #expect(again.history.filter { $0.text.hasPrefix("Identified as") }.count == 2)
            #expect(Set(again.photoIDs) == Set(detail.photoIDs))
        }
    }

    /// The offline state shown is the server's own view of Pl@ntNet, and "Check again" asks it at once.
    @Test func theServerSaysWhenPlantNetCannotBeReachedAndChecksAgain() async throws {
        let home = try Self.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        // A port that refuses connections, until the stub is started on it.
        let offline = try RefusingPort()
        defer { offline.release() }
        let port = offline.port
        let dependencies = await ServerDependencies.live(
            dataDirectory: home, environment: ["PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": "http://127.0.0.1:\(port)"]
        )
        let photo = try Data(contentsOf: Self.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/identify", method: .get, headers: session.headers) { response in
                #expect(!response.text.contains("could not be reached"))
            }
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            let (_, page) = try await session.identifyPage(client, form)
            // The tiny model is never confident, so Pl@ntNet was asked, and could not be reached.
            #expect(page.contains("<strong>Offline:</strong>"))
            #expect(page.contains("Check again"))
            try await client.execute(uri: "/identify", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Pl@ntNet could not be reached"))
            }
            let stub = try await PlantNetStub.start(takingOver: offline)
            defer { Task { await stub.stop() } }
            let (headers, body) = session.form([("back", "/identify")])
            try await client.execute(uri: "/identify/check-online", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/identify")
            }
            #expect(stub.requests.map(\.path) == ["/v2/projects"])
            try await client.execute(uri: "/identify", method: .get, headers: session.headers) { response in
                #expect(!response.text.contains("could not be reached"))
            }
        }
    }

    @Test func thePlantPageShowsTheBundledCareGuideInTheHemisphereOfTheEnvironment() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: ["PLANTGUIDE_HEMISPHERE": "south"])
        #expect(dependencies.careAdvice?.hemisphere == .south)
        try await makeApp(dependencies: dependencies).test(.router) { client in
            try await client.execute(uri: "/plants/Monstera%20deliciosa", method: .get) { response in
                #expect(response.status == .ok)
                // The care guide's row for the genus Monstera.
                #expect(response.text.contains("<dt>Watering</dt><dd>Every 7 days in the growing season, every 14 days in winter</dd>"))
                #expect(response.text.contains("<dt>Temperature</dt><dd>18–29 °C</dd>"))
                #expect(response.text.contains("Reference: ASPCA toxic and non-toxic plant list"))
                #expect(response.text.contains("Growing season: October–March"))
                #expect(response.text.contains("Add to my plants"))
            }
        }
    }

    /// A restart keeps log-ins (in the collection database, by hash only) and the forms opened before it.
    @Test func logInsAndTheirFormsSurviveARestartUntilLogOut() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        _ = try await database.addUser(
            name: "alice", role: .owner, passwordHash: PasswordHash(password: "correct horse battery", iterations: 1_000).encoded,
            now: Date()
        )
        var configuration = ServerConfiguration(host: "0.0.0.0")
        configuration.hasAccounts = true
        func server() async -> some ApplicationProtocol {
            makeApp(configuration: configuration, dependencies: await ServerDependencies.live(dataDirectory: home, environment: [:]))
        }
        // Log in on the first server.
        let (cookie, csrf) = try await server().test(.router) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("user", "alice"), ("password", "correct horse battery"), ("next", "/collection")])
            let cookie = try await client.execute(uri: "/login", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                return String((response.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
            }
            let csrf = try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: cookie]) { response in
                try JSONDecoder().decode(SessionBody.self, from: Data(buffer: response.body)).csrfToken
            }
            return (cookie, csrf)
        }
        let sessionID = String(cookie.dropFirst("pg_session=".count))
        // Only a hash of the session id is in the database.
        // (The test's own connection, which added the account, keeps the log-in in the write-ahead log until it closes.)
        var stored = Data()
        for file in ["collection.sqlite", "collection.sqlite-wal"] {
            let data = (try? Data(contentsOf: home.appendingPathComponent(file))) ?? Data()
            #expect(data.range(of: Data(sessionID.utf8)) == nil, "\(file)")
            stored += data
        }
        #expect(stored.range(of: Data(SessionStore.idHash(sessionID).utf8)) != nil)
        // A second server on the same data directory: still logged in, and a form from before the restart is accepted.
        try await server().test(.router) { client in
            try await client.execute(uri: "/collection", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("Log out"))
                #expect(response.text.contains("Signed in as alice"))
            }
            let body = ByteBuffer(string: "scientificName=Monstera+deliciosa&_csrf=\(csrf)")
            try await client.execute(
                uri: "/collection", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], body: body
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location]?.hasPrefix("/collection/") == true)
            }
            let logout = ByteBuffer(string: "_csrf=\(csrf)")
            try await client.execute(
                uri: "/logout", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], body: logout
            ) { response in
                #expect(response.status == .seeOther)
            }
        }
        // After the log-out, a third server does not let the old cookie in.
        try await server().test(.router) { client in
            try await client.execute(uri: "/collection", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .found)
            }
        }
    }

    /// Settings choose the strategy the Identify page starts with, the confidence threshold and the model, at once.
    @Test func identificationSettingsApplyWithoutARestart() async throws {
        let home = try Self.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let photo = try Data(contentsOf: Self.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        try await makeApp(dependencies: ServerDependencies.live(dataDirectory: home, environment: [:])).test(.router) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/identify", method: .get) { response in
                #expect(response.text.contains(#"<option value="auto" selected>"#))
            }
            try await client.execute(uri: "/settings", method: .get) { response in
                #expect(response.text.contains(#"<option value="70" selected>70 %</option>"#))
                #expect(response.text.contains(#"<option value="resnet18-plantnet300k.pgmodel" selected>"#))
            }
            for (fields, message) in [
                ([("defaultStrategy", "on-device"), ("threshold", "42")], "between 50 and 95"),
                ([("defaultStrategy", "sometimes"), ("threshold", "90")], "Choose the strategy"),
                ([("defaultStrategy", "on-device"), ("threshold", "90"), ("model", "../collection.sqlite")], "no installed model"),
            ] {
                let (headers, body) = session.form(fields)
                try await client.execute(uri: "/settings/identification", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .badRequest)
                    #expect(response.text.contains(message))
                }
            }
            let (headers, body) = session.form([
                ("defaultStrategy", "on-device"), ("threshold", "90"), ("model", "resnet18-plantnet300k.pgmodel"),
            ])
            try await client.execute(uri: "/settings/identification", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/identify", method: .get) { response in
                #expect(response.text.contains(#"<option value="on-device" selected>"#))
            }
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            let (identifyHeaders, identifyBody) = session.multipart(form)
            let result = try await client.execute(uri: "/api/identify", method: .post, headers: identifyHeaders, body: identifyBody) { response in
                try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            // The on-device strategy was used without being asked for, and the new threshold names the limit.
            #expect(result.source == .onDevice)
            #expect(result.uncertainReason?.contains("90 %") == true)
        }
        // They are kept in the collection database (every replica reads them there), not in a file.
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        #expect(ServerPreferences(settings: try database.householdSettings(household: 1)) == ServerPreferences(defaultStrategy: .onDevice, threshold: 0.9))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("web-settings.json").path))
    }

    @Test func identifySaveAndCareThroughTheRealStoreAndModel() async throws {
        let home = try Self.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let identification = try #require(dependencies.identification)
        #expect(identification.strategies == [.auto, .onDevice])
        let photo = try Data(contentsOf: Self.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            var form = Multipart()
            form.file("photo", "leaf.jpg", photo)
            form.field("strategy", "on-device")
            let (headers, body) = session.multipart(form)
            let result = try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .ok)
                return try JSONDecoder().decode(IdentifyAnswer.self, from: Data(buffer: response.body))
            }
            #expect(result.source == .onDevice)
            #expect(result.predictions.map(\.rank) == Array(1...10))
            let (saveHeaders, saveBody) = session.form([
                ("uploadId", result.uploadId ?? ""), ("scientificName", result.predictions[0].scientificName), ("room", "Hall"),
            ])
            let location = try await client.execute(uri: "/collection", method: .post, headers: saveHeaders, body: saveBody) { response in
                #expect(response.status == .seeOther)
                return response.headers[.location] ?? ""
            }
            let detail = try await client.execute(uri: "/api/collection/\(location.split(separator: "/").last ?? "")", method: .get) { response in
                try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
            }
            #expect(detail.entry.room == "Hall")
            #expect(detail.photoIDs.count == 1)
            #expect(detail.history.contains { $0.text.hasPrefix("Identified as \(result.predictions[0].scientificName)") })
            let identified = try #require(detail.identifications.first)
            #expect(identified.source == .onDevice)
            #expect(identified.model != nil)
            #expect(identified.confidence == result.predictions[0].confidence)
            #expect(detail.history.contains { $0.text.contains(" · on device, \(identified.model ?? "")") })
            try await client.execute(uri: "/collection/photos/\(detail.photoIDs[0])", method: .get) { response in
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(ImageFormat.detect(Data(buffer: response.body)) == .jpeg)
            }
            let tasks = try await client.execute(uri: "/api/care?days=366", method: .get) { response in
                try JSONDecoder.iso.decode([DueCareItem].self, from: Data(buffer: response.body))
            }
            let water = try #require(tasks.first { $0.action == "Water" })
            var apiHeaders = session.headers
            apiHeaders[RequestGate.csrfHeader] = session.csrf
            try await client.execute(uri: "/api/care/\(water.id)/done", method: .post, headers: apiHeaders) { response in
                #expect(response.status == .noContent)
            }
            let after = try await client.execute(uri: "/api/collection/\(detail.entry.id)", method: .get) { response in
                try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
            }
            #expect(after.careLog.map(\.text) == ["Watered"])
            try await client.execute(uri: "/care/calendar.ics", method: .get) { response in
                #expect(response.text.contains("BEGIN:VCALENDAR"))
            }
        }
    }

    @Test func snoozingOnTheCarePageMovesTheDueDayItShows() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            // A snake plant added today is first watered in 10 days or more: not this week.
            let (headers, body) = session.form([("scientificName", "Dracaena trifasciata")])
            let location = try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                return response.headers[.location] ?? ""
            }
            let task = "\(location.split(separator: "/").last ?? "")-water"
            let before = try await client.execute(uri: "/care", method: .get, headers: session.headers) { $0.text }
            #expect(before.contains("<h1>Care</h1>"))
            #expect(!before.contains("data-task=\"\(task)\""))
            let (snoozeHeaders, snoozeBody) = session.form([("days", "2")])
            try await client.execute(uri: "/care/\(task)/snooze", method: .post, headers: snoozeHeaders, body: snoozeBody) { response in
                #expect(response.status == .seeOther)
            }
            let after = try await client.execute(uri: "/care", method: .get, headers: session.headers) { $0.text }
            #expect(after.contains("data-task=\"\(task)\""))
            // A watering on the Care page takes a soil check too.
            #expect(after.contains("action=\"/care/\(task)/check\""))
            let items = try await client.execute(uri: "/api/care?days=7", method: .get, headers: session.headers) { response in
                try JSONDecoder.iso.decode([DueCareItem].self, from: Data(buffer: response.body))
            }
            let snoozed = try #require(items.first { $0.id == task })
            let days = Calendar(identifier: .gregorian).dateComponents(
                [.day], from: Calendar(identifier: .gregorian).startOfDay(for: Date()), to: snoozed.due
            ).day
            #expect(days == 2)
        }
    }

    /// The server sends the day's digest itself, on the code path `notify run` takes: a channel whose hour has passed
    /// gets it within a moment of starting, once.
    @Test func theServerSendsTheDaysCareDigestOnItsOwn() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let receiver = try LoopbackReceiver()
        do {
            let database = try CollectionDatabase.open(in: DataDirectory(url: home))
            try database.setHouseholdSetting(.careTimeZone, to: "UTC", household: 1, now: Date())
            let today = CalendarDay(Date(), in: .gmt)
            let profile = try CareGuide.bundled().profile(genus: "Nephrolepis", category: nil)
            let fern = try database.addPlant(
                NewPlant(name: "Boston fern", room: "Bathroom"), profile: profile, photo: nil, now: today.start(in: .gmt)
            )
            let interval = CareSeason(of: today, hemisphere: .north) == .growing ? profile.waterGrowingDays : profile.waterWinterDays
            try database.logCare(plantId: fern.id, task: .water, day: today.adding(days: -interval), now: Date())
            _ = try database.addReminderChannel(
                NewReminderChannel(kind: .ntfy, target: receiver.url("/plants"), minuteOfDay: 0), household: 1, now: Date()
            )
        }
        let dependencies = await ServerDependencies.live(
            dataDirectory: home, environment: ["PLANTGUIDE_ALLOW_LOCAL_TARGETS": "1", "PLANTGUIDE_HEMISPHERE": "north"]
        )
        #expect(dependencies.reminders != nil)
        var logger = Logger(label: "plantguide.test")
        logger.logLevel = .critical
        let app = try buildApplication(configuration: ServerConfiguration(), dependencies: dependencies, logger: logger)
        try await app.test(.router) { _ in
            let deadline = Date().addingTimeInterval(15)
            while receiver.requests.isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(receiver.requests.count == 1)
            #expect(receiver.requests.first?.text.contains("- Water Boston fern") == true)
        }
    }

    @Test func reminderChannelsAreAddedTestedAndRemovedInSettingsWithoutShowingTheirSecrets() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let receiver = try LoopbackReceiver()
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: ["PLANTGUIDE_ALLOW_LOCAL_TARGETS": "1"])
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            let empty = try await client.execute(uri: "/settings", method: .get, headers: session.headers) { $0.text }
            #expect(empty.contains("<h2 id=\"reminders\">Care reminders</h2>") && empty.contains("No reminders yet."))
            func post(_ uri: String, _ fields: [(String, String)]) async throws -> (Int, String) {
                let (headers, body) = session.form(fields)
                return try await client.execute(uri: uri, method: .post, headers: headers, body: body) { response in
                    (Int(response.status.code), response.headers[.location] ?? "")
                }
            }
            // Refused, nothing added: an unknown kind, a time that is none, an address that is not http(s).
            for fields in [
                [("kind", "sms"), ("url", receiver.url("/t")), ("time", "08:00")],
                [("kind", "ntfy"), ("url", receiver.url("/t")), ("time", "25:00")],
                [("kind", "ntfy"), ("url", "ftp://example.org/t"), ("time", "08:00")],
                [("kind", "ntfy"), ("url", ""), ("time", "08:00")],
            ] {
                #expect(try await post("/settings/reminders", fields).0 == 400, "\(fields)")
            }
            let added = try await post(
                "/settings/reminders",
                [("kind", "ntfy"), ("url", receiver.url("/plants-7f3a")), ("time", "07:30"), ("token", "tk_page_secret")]
            )
            #expect(added == (303, "/settings?reminders=added#reminders"))
            let page = try await client.execute(uri: "/settings?reminders=added", method: .get, headers: session.headers) { $0.text }
            #expect(page.contains("at 07:30") && page.contains("(access token set)") && page.contains("Added."))
            #expect(!page.contains("tk_page_secret") && !page.contains("7f3a"))
            // A test goes to the target with the token; a failing one says why.
            #expect(try await post("/settings/reminders/1/test", []) == (303, "/settings?reminders=tested#reminders"))
            #expect(receiver.requests.first?.headers["authorization"] == "Bearer tk_page_secret")
            receiver.answer([500])
            let failed = try await post("/settings/reminders/1/test", [])
            #expect(failed.0 == 303 && failed.1.contains("reminders=test-failed"))
            let said = try await client.execute(uri: failed.1, method: .get, headers: session.headers) { $0.text }
            #expect(said.contains("The test message was not delivered: the target answered 500."))
            // Removed once; a second time there is nothing at that address.
            #expect(try await post("/settings/reminders/1/remove", []).0 == 303)
            #expect(try await post("/settings/reminders/1/remove", []).0 == 404)
            #expect(try await post("/settings/reminders/1/test", []).0 == 404)
            let after = try await client.execute(uri: "/settings", method: .get, headers: session.headers) { $0.text }
            #expect(after.contains("No reminders yet."))
        }
    }

    /// Members' own reminders: a channel added in Settings is the logged-in member's, their hour and quiet hours move
    /// all their channels and the calendar's alarms, and a plant page assigns the plant to a member or to turns.
    @Test func aMembersRemindersAreTheirOwnAndAPlantCanBeAssignedToAMember() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let receiver = try LoopbackReceiver()
        let bobId: Int64
        do {
            let database = try CollectionDatabase.open(in: DataDirectory(url: home))
            let hash = PasswordHash(password: "correct horse battery", iterations: 1_000).encoded
            _ = try await database.addUser(name: "alice", role: .owner, passwordHash: hash, now: Date())
            bobId = try await database.addUser(name: "bob", role: .member, passwordHash: hash, now: Date()).id
            let profile = try CareGuide.bundled().profile(genus: "Nephrolepis", category: nil)
            _ = try database.addPlant(NewPlant(name: "Boston fern", room: "Bathroom"), profile: profile, photo: nil, now: Date())
            // Bob's channel, and one of the whole household's.
            _ = try database.addReminderChannel(
                NewReminderChannel(kind: .ntfy, target: receiver.url("/bob"), minuteOfDay: 540, member: bobId), household: 1, now: Date()
            )
            _ = try database.addReminderChannel(
                NewReminderChannel(kind: .ntfy, target: receiver.url("/all"), minuteOfDay: 480), household: 1, now: Date()
            )
        }
        var configuration = ServerConfiguration(host: "0.0.0.0")
        configuration.hasAccounts = true
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: ["PLANTGUIDE_ALLOW_LOCAL_TARGETS": "1"])
        try await makeApp(configuration: configuration, dependencies: dependencies).test(.router) { client in
            let anonymous = try await Session.open(client)
            let (loginHeaders, loginBody) = anonymous.form([("user", "alice"), ("password", "correct horse battery"), ("next", "/settings")])
            let cookie = try await client.execute(uri: "/login", method: .post, headers: loginHeaders, body: loginBody) { response in
                String((response.headers[.setCookie] ?? "").split(separator: ";").first ?? "")
            }
            let csrf = try await client.execute(uri: "/api/session", method: .get, headers: [.cookie: cookie]) { response in
                try JSONDecoder().decode(SessionBody.self, from: Data(buffer: response.body)).csrfToken
            }
            let session = Session(cookie: cookie, csrf: csrf)
            func post(_ uri: String, _ fields: [(String, String)]) async throws -> (Int, String) {
                let (headers, body) = session.form(fields)
                return try await client.execute(uri: uri, method: .post, headers: headers, body: body) { response in
                    (Int(response.status.code), response.headers[.location] ?? "")
                }
            }
            func get(_ uri: String) async throws -> String {
                try await client.execute(uri: uri, method: .get, headers: session.headers) { $0.text }
            }
            // Before she has a channel there is no hour of hers to set.
            #expect(try await !get("/settings").contains("Your reminders' hour"))
            #expect(try await post("/settings/reminders", [("kind", "ntfy"), ("url", receiver.url("/alice")), ("time", "07:30")]).0 == 303)
            var page = try await get("/settings")
            #expect(page.contains("(yours)") && page.contains("(bob)") && page.contains("(everyone)"))
            #expect(page.contains("Your reminders' hour") && page.contains("value=\"07:30\""))
            // Her hour and quiet hours; a half-given or empty quiet span is refused.
            for fields in [
                [("time", "07:00"), ("quiet_from", "22:00"), ("quiet_until", "")],
                [("time", "07:00"), ("quiet_from", "22:00"), ("quiet_until", "22:00")],
                [("time", "7 am"), ("quiet_from", ""), ("quiet_until", "")],
            ] {
                #expect(try await post("/settings/reminders/schedule", fields).0 == 400, "\(fields)")
            }
            let saved = try await post(
                "/settings/reminders/schedule", [("time", "06:45"), ("quiet_from", "22:00"), ("quiet_until", "06:30")]
            )
            #expect(saved == (303, "/settings?reminders=scheduled#reminders"))
            page = try await get("/settings?reminders=scheduled")
            #expect(page.contains("at 06:45") && page.contains("quiet 22:00-06:30") && page.contains("at 09:00"))
            // The calendar's alarms: at her hour when she fetches it, and as the address Settings gives says.
            let calendar = try await get("/care/calendar.ics")
            #expect(calendar.contains("TRIGGER;RELATED=START:PT6H45M"))
            let other = try await get("/care/calendar.ics?alarm=20:15")
            #expect(other.contains("TRIGGER;RELATED=START:PT20H15M") && !other.contains("PT6H45M"))
            #expect(try await client.execute(uri: "/care/calendar.ics?alarm=25:00", method: .get, headers: session.headers) {
                Int($0.status.code)
            } == 400)
            #expect(try await post("/settings/calendar-feed", [("action", "renew")]).0 == 303)
            #expect(try await get("/settings").contains(".ics?alarm=06:45"))

            // The fern: bob's, then turns, then everyone's again; a member of nobody's is refused.
            var plant = try await get("/collection/1")
            #expect(plant.contains("Who looks after it") && plant.contains("<option value=\"everyone\" selected>"))
            #expect(try await post("/collection/1/assign", [("to", String(bobId))]) == (303, "/collection/1"))
            plant = try await get("/collection/1")
            #expect(plant.contains("<option value=\"\(bobId)\" selected>bob</option>"))
            #expect(try await post("/collection/1/assign", [("to", "turns")]).0 == 303)
            #expect(try await get("/collection/1").contains("Next watering: alice's turn."))
            #expect(try await get("/care").contains("<span class=\"meta\">for alice</span>"))
            #expect(try await post("/collection/1/assign", [("to", "999")]).0 == 400)
            #expect(try await post("/collection/1/assign", [("to", "someone")]).0 == 400)
            #expect(try await post("/collection/404/assign", [("to", "turns")]).0 == 404)
            #expect(try await post("/collection/1/assign", [("to", "everyone")]).0 == 303)
            #expect(try await get("/collection/1").contains("<option value=\"everyone\" selected>"))
        }
    }

    @Test func theCarePageGroupsTasksByRoomAndSaysWhyEachDateIsWhatItIs() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            var tasks: [String] = []
            for (name, room) in [("Dracaena trifasciata", "Hall"), ("Monstera deliciosa", "Bathroom")] {
                let (headers, body) = session.form([("scientificName", name), ("room", room)])
                let plant = try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                    String((response.headers[.location] ?? "").split(separator: "/").last ?? "")
                }
                tasks.append("\(plant)-water")
                let (snoozeHeaders, snoozeBody) = session.form([("days", "2")])
                try await client.execute(uri: "/care/\(plant)-water/snooze", method: .post, headers: snoozeHeaders, body: snoozeBody) {
                    #expect($0.status == .seeOther)
                }
            }
            let page = try await client.execute(uri: "/care", method: .get, headers: session.headers) { $0.text }
            let bathroom = try #require(page.range(of: "<h3>Bathroom</h3>")), hall = try #require(page.range(of: "<h3>Hall</h3>"))
            #expect(bathroom.lowerBound < hall.lowerBound)
            let monstera = try #require(page.range(of: "data-task=\"\(tasks[1])\""))
            #expect(bathroom.upperBound < monstera.lowerBound && monstera.lowerBound < hall.lowerBound)
            #expect(page.contains("Why: every "))
            #expect(page.contains("the guide for genus Dracaena says"))
            let items = try await client.execute(uri: "/api/care?days=7", method: .get, headers: session.headers) { response in
                try JSONDecoder.iso.decode([DueCareItem].self, from: Data(buffer: response.body))
            }
            #expect(items.map(\.room) == ["Bathroom", "Hall"])
            #expect(items.allSatisfy { $0.why?.hasPrefix("every ") == true })
        }
    }

    @Test func soilChecksAndUndoOnThePlantPageAndTheAPIWithTheRealStore() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("scientificName", "Dracaena trifasciata")])
            let location = try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                return response.headers[.location] ?? ""
            }
            let plant = String(location.split(separator: "/").last ?? "")
            let task = "\(plant)-water"
            var apiHeaders = session.headers
            apiHeaders[RequestGate.csrfHeader] = session.csrf
            func detail() async throws -> CollectionEntryDetail {
                try await client.execute(uri: "/api/collection/\(plant)", method: .get, headers: session.headers) { response in
                    try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
                }
            }
            // Watering is not due this week; the soil is found dry: it is due today.
            let water = try #require(try await detail().schedule.first { $0.action == "Water" })
            #expect(water.checksSoil && water.explanation?.hasPrefix("every \(water.intervalDays ?? 0) days: the guide for genus Dracaena") == true)
            try await client.execute(uri: "/api/care/\(task)/check?soil=dry", method: .post, headers: apiHeaders) { response in
                #expect(response.status == .noContent)
            }
            let items = try await client.execute(uri: "/api/care?days=1", method: .get, headers: session.headers) { response in
                try JSONDecoder.iso.decode([DueCareItem].self, from: Data(buffer: response.body))
            }
            #expect(items.contains { $0.id == task })
            // The plant page's form: still wet; the log shows both checks, newest first.
            let (checkHeaders, checkBody) = session.form([("soil", "wet"), ("back", location)])
            try await client.execute(uri: "/care/\(task)/check", method: .post, headers: checkHeaders, body: checkBody) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == location)
            }
            #expect(try await detail().careLog.map(\.text) == ["Checked the soil: still wet", "Checked the soil: dry"])
            let page = try await client.execute(uri: location, method: .get, headers: session.headers) { $0.text }
            #expect(page.contains("Still wet") && page.contains("class=\"meta why\"") && page.contains("Undo the last entry"))
            // Undo on the page, then through the API; then there is nothing left to undo.
            let (undoHeaders, undoBody) = session.form([("back", location)])
            try await client.execute(uri: "/care/undo/\(plant)", method: .post, headers: undoHeaders, body: undoBody) { response in
                #expect(response.status == .seeOther)
            }
            #expect(try await detail().careLog.map(\.text) == ["Checked the soil: dry"])
            try await client.execute(uri: "/api/care/undo/\(plant)", method: .post, headers: apiHeaders) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("Checked the soil: dry on "))
            }
            try await client.execute(uri: "/api/care/undo/\(plant)", method: .post, headers: apiHeaders) { response in
                #expect(response.status == .notFound)
            }
            // Refused, nothing logged: a reading that is neither, a check of another task, an unknown task or plant.
            for (uri, status) in [
                ("/api/care/\(task)/check?soil=soggy", HTTPResponse.Status.badRequest), ("/api/care/\(task)/check", .badRequest),
                ("/api/care/\(plant)-repot/check?soil=wet", .notFound), ("/api/care/999-water/check?soil=wet", .notFound),
                ("/api/care/undo/999", .notFound), ("/api/care/undo/x", .notFound),
            ] {
                try await client.execute(uri: uri, method: .post, headers: apiHeaders) { response in
                    #expect(response.status == status, "\(uri)")
                }
            }
            #expect(try await detail().careLog.isEmpty)
            // Where it lives, from the page's form: a big self-watering pot lengthens the watering.
            let guideInterval = try #require(try await detail().schedule.first { $0.action == "Water" }?.intervalDays)
            let (conditionHeaders, conditionBody) = session.form([
                ("pot", "30"), ("material", "self-watering"), ("light", ""), ("back", location),
            ])
            try await client.execute(uri: "/care/conditions/\(plant)", method: .post, headers: conditionHeaders, body: conditionBody) { response in
                #expect(response.status == .seeOther)
            }
            let conditioned = try await detail()
            #expect(conditioned.conditions == PlantConditions(potCentimetres: 30, potMaterial: .selfWatering))
            #expect((conditioned.schedule.first { $0.action == "Water" }?.intervalDays ?? 0) > guideInterval)
            let conditionsPage = try await client.execute(uri: location, method: .get, headers: session.headers) { $0.text }
            #expect(conditionsPage.contains("Where it lives: pot 30 cm, self-watering"))
            for fields in [[("pot", "0")], [("pot", "ten")], [("material", "gold")], [("light", "dim")]] {
                let (badHeaders, badBody) = session.form(fields)
                try await client.execute(uri: "/care/conditions/\(plant)", method: .post, headers: badHeaders, body: badBody) { response in
                    #expect(response.status == .badRequest, "\(fields)")
                }
            }
            #expect(try await detail().conditions?.potCentimetres == 30)
        }
    }

    @Test func severalTasksAreLoggedAtOnceOnTheCarePageAllCheckedFirst() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            var plants: [String] = []
            for name in ["Dracaena trifasciata", "Monstera deliciosa"] {
                let (headers, body) = session.form([("scientificName", name)])
                plants.append(try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                    String((response.headers[.location] ?? "").split(separator: "/").last ?? "")
                })
            }
            func log(_ plant: String) async throws -> [CollectionEvent] {
                try await client.execute(uri: "/api/collection/\(plant)", method: .get, headers: session.headers) { response in
                    try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
                }.careLog
            }
            // Refused, nothing logged: an unknown task among them, a day other than today or yesterday, nothing ticked.
            for fields in [
                [("task", "\(plants[0])-water"), ("task", "999-water")], [("task", "\(plants[0])-water"), ("day", "tomorrow")],
                [("day", "today")],
            ] {
                let (headers, body) = session.form(fields)
                try await client.execute(uri: "/care/done", method: .post, headers: headers, body: body) { response in
                    #expect(response.status.code >= 400, "\(fields)")
                }
            }
            let firstLog = try await log(plants[0]), secondLog = try await log(plants[1])
            #expect(firstLog.isEmpty && secondLog.isEmpty)
            let (headers, body) = session.form([("task", "\(plants[0])-water"), ("task", "\(plants[1])-water"), ("day", "yesterday")])
            try await client.execute(uri: "/care/done", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/care?done=2")
            }
            let yesterday = Calendar(identifier: .gregorian).date(byAdding: .day, value: -1, to: Date()) ?? Date()
            for plant in plants {
                let entries = try await log(plant)
                #expect(entries.map(\.text) == ["Watered"])
                #expect(entries.first.map { Calendar(identifier: .gregorian).isDate($0.date, inSameDayAs: yesterday) } == true)
            }
            let page = try await client.execute(uri: "/care?done=2", method: .get, headers: session.headers) { $0.text }
            #expect(page.contains("2 tasks logged."))
        }
    }

    @Test func theHouseholdsSeasonsAndTimeZoneAreChosenInSettingsAndApplyAtOnce() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: ["PLANTGUIDE_HEMISPHERE": "north"])
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("scientificName", "Dracaena trifasciata")])
            let location = try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                response.headers[.location] ?? ""
            }
            let plant = String(location.split(separator: "/").last ?? "")
            func water() async throws -> CollectionCareTask? {
                try await client.execute(uri: "/api/collection/\(plant)", method: .get, headers: session.headers) { response in
                    try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
                }.schedule.first { $0.action == "Water" }
            }
            let month = Calendar(identifier: .gregorian).component(.month, from: Date())
            let northWinter = Hemisphere.north.isRestSeason(month: month)
            let before = try #require(try await water())
            let settings = try await client.execute(uri: "/settings", method: .get, headers: session.headers) { $0.text }
            #expect(settings.contains("Seasons and time zone") && settings.contains("Northern hemisphere (this server&#39;s default)"))
            let (careHeaders, careBody) = session.form([("hemisphere", "south"), ("timeZone", "Australia/Sydney")])
            try await client.execute(uri: "/settings/care", method: .post, headers: careHeaders, body: careBody) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/settings?care=1#care")
            }
            let after = try await client.execute(uri: "/settings?care=1", method: .get, headers: session.headers) { $0.text }
            #expect(after.contains("Southern hemisphere (chosen for this household)") && after.contains("Australia/Sydney"))
            // The catalog's plant pages show the household's seasons too.
            let catalogPage = try await client.execute(uri: "/plants/Dracaena%20trifasciata", method: .get, headers: session.headers) { $0.text }
            #expect(catalogPage.contains("Seasons of the southern hemisphere"))
            // The other season's interval now (Dracaena: 10 days growing, 21 at rest).
            let moved = try #require(try await water())
            #expect(moved.intervalDays != before.intervalDays)
            #expect(moved.explanation?.contains(northWinter ? "in the growing season" : "in winter") == true)
            // Refused, nothing changed: an unknown hemisphere or time zone, or nothing chosen.
            for fields in [[("hemisphere", "east")], [("timeZone", "Mars/Olympus_Mons")], [("nothing", "1")]] {
                let (badHeaders, badBody) = session.form(fields)
                try await client.execute(uri: "/settings/care", method: .post, headers: badHeaders, body: badBody) { response in
                    #expect(response.status == .badRequest, "\(fields)")
                }
            }
            #expect(try await water()?.intervalDays == moved.intervalDays)
        }
    }

    /// The plant page's forms against the real SQLite store and photo library: photos (thumbnails served, a cover
    /// chosen, one removed, a damaged one refused), Done and Snooze, the edit form, and removal.
    @Test func thePlantPageKeepsPhotosCareAndEditsInTheRealStore() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let photos = try ["Browser/Fixtures/leaf.jpg", "PlantImagingTests/Fixtures/photo.jpg"]
            .map { try Data(contentsOf: Self.testsFolder.appendingPathComponent($0)) }
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("scientificName", "Monstera deliciosa"), ("nickname", "Monty")])
            let location = try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                response.headers[.location] ?? ""
            }
            let id = String(location.split(separator: "/").last ?? "")
            func detail() async throws -> CollectionEntryDetail {
                try await client.execute(uri: "/api/collection/\(id)", method: .get) { response in
                    try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
                }
            }
            for photo in photos {
                var form = Multipart()
                form.file("photo", "plant.jpg", photo)
                let (uploadHeaders, uploadBody) = session.multipart(form)
                try await client.execute(uri: "\(location)/photos", method: .post, headers: uploadHeaders, body: uploadBody) { response in
                    #expect(response.status == .seeOther)
                    #expect(response.headers[.location] == location)
                }
            }
            var damaged = Multipart()
            damaged.file("photo", "damaged.jpg", photos[0].prefix(600))
            let (damagedHeaders, damagedBody) = session.multipart(damaged)
            try await client.execute(uri: "\(location)/photos", method: .post, headers: damagedHeaders, body: damagedBody) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.text.contains("The photo could not be stored"))
            }
            let added = try await detail()
            #expect(added.photos.count == 2)
            let (newest, oldest) = (added.photos[0].id, added.photos[1].id)
            #expect(added.entry.photoID == newest)
            #expect(added.photos.map(\.isCover) == [true, false])
            // The thumbnail is the store's small JPEG, not the photo.
            let full = try await client.execute(uri: "/collection/photos/\(oldest)", method: .get) { Data(buffer: $0.body) }
            try await client.execute(uri: "/collection/photos/\(oldest)/thumbnail", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(ImageFormat.detect(Data(buffer: response.body)) == .jpeg)
                #expect(response.body.readableBytes < full.count)
            }
            let (plainHeaders, plainBody) = session.form([])
            try await client.execute(uri: "\(location)/photos/\(oldest)/cover", method: .post, headers: plainHeaders, body: plainBody) { response in
                #expect(response.status == .seeOther)
            }
            let list = try await client.execute(uri: "/api/collection", method: .get) { response in
                try JSONDecoder.iso.decode([CollectionEntry].self, from: Data(buffer: response.body))
            }
            #expect(list.first?.photoID == oldest)
            try await client.execute(uri: "/collection", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("/collection/photos/\(oldest)/thumbnail"))
            }
            try await client.execute(uri: "\(location)/photos/\(newest)/remove", method: .post, headers: plainHeaders, body: plainBody) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/collection/photos/\(newest)", method: .get) { response in
                #expect(response.status == .notFound)
            }
            #expect(try await detail().photos.map(\.id) == [oldest])
            // Care: the profile and schedule of a catalog plant; Done and Snooze come back to the page.
            let page = try await client.execute(uri: location, method: .get, headers: session.headers) { $0.text }
            #expect(page.contains("<dt>Watering</dt>"))
            #expect(page.contains(#"action="/care/\#(id)-water/done""#))
            let (careHeaders, careBody) = session.form([("back", location)])
            try await client.execute(uri: "/care/\(id)-water/done", method: .post, headers: careHeaders, body: careBody) { response in
                #expect(response.headers[.location] == location)
            }
            let (snoozeHeaders, snoozeBody) = session.form([("back", location), ("days", "3")])
            try await client.execute(uri: "/care/\(id)-repot/snooze", method: .post, headers: snoozeHeaders, body: snoozeBody) { response in
                #expect(response.headers[.location] == location)
            }
            let cared = try await detail()
            #expect(cared.careLog.map(\.text) == ["Watered"])
            #expect(cared.careProfile != nil)
            let water = try #require(cared.schedule.first { $0.action == "Water" })
            #expect(water.lastDone != nil)
            let repot = try #require(cared.schedule.first { $0.action == "Repot" })
            let calendar = Calendar(identifier: .gregorian)
            #expect(repot.due.flatMap { calendar.dateComponents([.day], from: calendar.startOfDay(for: Date()), to: $0).day } == 3)
            // Edits, within the limits.
            let (editHeaders, editBody) = session.form([("nickname", "Big Monty"), ("room", "Hall"), ("notes", "Turn weekly.")])
            try await client.execute(uri: "\(location)/edit", method: .post, headers: editHeaders, body: editBody) { response in
                #expect(response.status == .seeOther)
            }
            let edited = try await detail()
            #expect(edited.entry.nickname == "Big Monty" && edited.entry.room == "Hall" && edited.entry.notes == "Turn weekly.")
            let (longHeaders, longBody) = session.form([("room", String(repeating: "r", count: InputLimits.roomCharacters + 1))])
            try await client.execute(uri: "\(location)/edit", method: .post, headers: longHeaders, body: longBody) { response in
                #expect(response.status == .unprocessableContent)
            }
            #expect(try await detail().entry.room == "Hall")
            // Removal, after its confirmation page: the plant and its last photo are gone.
            try await client.execute(uri: "\(location)/remove", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("Remove Big Monty?"))
            }
            try await client.execute(uri: "\(location)/remove", method: .post, headers: plainHeaders, body: plainBody) { response in
                #expect(response.headers[.location] == "/collection")
            }
            try await client.execute(uri: "/api/collection/\(id)", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/collection/photos/\(oldest)/thumbnail", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// `POST /api/identify` with one photo and `strategy`, through `client`: the status and the body.
    private static func identify(
        _ client: some TestClientProtocol, session: Session, strategy: String
    ) async throws -> (HTTPResponse.Status, String) {
        var form = Multipart()
        form.file("photo", "leaf.jpg", try Data(contentsOf: testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg")))
        form.field("strategy", strategy)
        let (headers, body) = session.multipart(form)
        return try await client.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { ($0.status, $0.text) }
    }

    @Test func aKeySavedInSettingsIsUsedWithoutARestart() async throws {
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(
            dataDirectory: home, environment: ["PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString]
        )
        #expect(dependencies.identification == nil)
        try await makeApp(dependencies: dependencies).test(.live) { client in
            let session = try await Session.open(client)
            let (before, _) = try await Self.identify(client, session: session, strategy: "plantnet")
            #expect(before == .notImplemented)
            // A key Pl@ntNet refuses is said so and not saved; checking it spent no identification.
            let (wrongHeaders, wrongBody) = session.form([("apiKey", "not-the-stub-key")])
            try await client.execute(uri: "/settings/api-key", method: .post, headers: wrongHeaders, body: wrongBody) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("Pl@ntNet does not accept this key, so it was not saved"))
                #expect(!response.text.contains("not-the-stub-key"))
            }
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("plantnet-api-key").path))
            #expect(stub.requests.map(\.path) == ["/v2/projects"])
            let (headers, body) = session.form([("apiKey", "stub-key")])
            try await client.execute(uri: "/settings/api-key", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
            }
            let (after, answer) = try await Self.identify(client, session: session, strategy: "plantnet")
            #expect(after == .ok, "\(answer)")
            #expect(answer.contains(#""source":"plantNetAPI""#))
            #expect(stub.requests.filter { $0.path.hasPrefix("/v2/identify/") }.count == 1)
            try await client.execute(uri: "/api/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains(#""apiKeySource":"dataDirectory""#))
                #expect(response.text.contains("Pl@ntNet"))
                #expect(!response.text.contains("stub-key"))
            }
            try await client.execute(uri: "/settings?saved=1", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("stored in the data directory"))
                #expect(response.text.contains("is used from now on"))
                #expect(!response.text.contains("stub-key"))
            }
        }
    }

    @Test func settingsSayWhenTheKeyComesFromTheEnvironment() async throws {
        let home = try Self.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let dependencies = await ServerDependencies.live(dataDirectory: home, environment: ["PLANTNET_API_KEY": "env-secret-key"])
        try await makeApp(dependencies: dependencies).test(.router) { client in
            let session = try await Session.open(client)
            try await client.execute(uri: "/api/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains(#""apiKeySource":"environment""#))
                #expect(!response.text.contains("env-secret-key"))
            }
            try await client.execute(uri: "/settings", method: .get, headers: session.headers) { response in
                #expect(response.text.contains("<code>PLANTNET_API_KEY</code> environment variable"))
                #expect(!response.text.contains("env-secret-key"))
            }
        }
    }
}
