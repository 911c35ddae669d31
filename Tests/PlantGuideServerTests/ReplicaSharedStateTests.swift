import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PlantClassifier
import PlantGuideCore
import PlantGuideLive
import PlantGuideTestSupport
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantGuideServer

/// Two servers on one data directory (one SQLite file, one `uploads` folder) stand for two replicas behind a load
/// balancer: whatever one makes (the anti-forgery secret, an identification, a setting, the calendar address), the
/// other sees. Both listen on 127.0.0.1, built with `buildApplication` as `plantguide serve` builds them.
@Suite struct ReplicaSharedStateTests {
    private static func replica(home: URL, environment: [String: String]) async throws -> some ApplicationProtocol {
        var configuration = ServerConfiguration(port: 0)
        configuration.hasAccounts = true
        var logger = Logger(label: "plantguide.test")
        logger.logLevel = .critical
        return try buildApplication(
            configuration: configuration, dependencies: await ServerDependencies.live(dataDirectory: home, environment: environment),
            logger: logger
        )
    }

    /// A data directory whose collection database has one account, the owner alice ("alice passphrase").
    private static func homeWithAlice() async throws -> URL {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        _ = try await database.addUser(
            name: "alice", role: .owner, passwordHash: PasswordHash(password: "alice passphrase", iterations: 1_000).encoded, now: Date()
        )
        return home
    }

    /// alice logged in on `client`: her session cookie and its form token.
    private static func aliceSession(_ client: some TestClientProtocol) async throws -> Session {
        let login = try await AccountRouteTests.logIn(client, try await Session.open(client), user: "alice", password: "alice passphrase")
        let cookie = try #require(login.cookie)
        return Session(cookie: cookie, csrf: try await AccountRouteTests.state(client, cookie: cookie).csrfToken)
    }

    private static func form(_ fields: [(String, String)], cookie: String, csrf: String) -> (HTTPFields, ByteBuffer) {
        let text = (fields + [("_csrf", csrf)]).map { "\(urlComponent($0.0))=\(urlComponent($0.1))" }.joined(separator: "&")
        return ([.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], ByteBuffer(string: text))
    }

    @Test func anIdentificationOnOneReplicaIsSavedOnTheOtherWithItsPhoto() async throws {
        let home = try await Self.homeWithAlice()
        defer { try? FileManager.default.removeItem(at: home) }
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let environment = [
            "PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTGUIDE_REFRESH_SECONDS": "0.2",
        ]
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        let a = try await Self.replica(home: home, environment: environment)
        let b = try await Self.replica(home: home, environment: environment)
        try await a.test(.live) { a in
            try await b.test(.live) { b in
                // Log in on A; A's session and form token are good on B (one secret, log-ins in the database).
                let session = try await Self.aliceSession(a)
                let (cookie, csrf) = (session.cookie, session.csrf)
                #expect(try await AccountRouteTests.state(b, cookie: cookie).csrfToken == csrf)

                // Identify on A…
                var upload = Multipart()
                upload.file("photo", "leaf.jpg", photo)
                upload.field("organ", "leaf")
                upload.field("strategy", "plantnet")
                let (location, _) = try await session.identifyPage(a, upload)
                let uploadID = String(location.split(separator: "/").last ?? "")
                // …the results page and its photo on B…
                try await b.execute(uri: location, method: .get, headers: session.headers) { response in
                    #expect(response.status == .ok)
                    #expect(response.text.contains("Monstera deliciosa"))
                    #expect(response.text.contains(#"name="uploadId" value="\#(uploadID)""#))
                }
                try await b.execute(uri: "/identify/uploads/\(uploadID)/1", method: .get, headers: session.headers) { response in
                    #expect(response.status == .ok)
                    #expect(Data(buffer: response.body) == photo)
                }
                // …not for another session.
                let stranger = try await Session.open(b)
                try await b.execute(uri: location, method: .get, headers: stranger.headers) { response in
                    #expect(response.status != .ok)
                }
                // "This is my plant" on B, with A's form token: the plant is there with the photo.
                let (headers, body) = Self.form(
                    [("uploadId", uploadID), ("scientificName", "Monstera deliciosa"), ("nickname", "Spike")], cookie: cookie, csrf: csrf
                )
                let plant = try await b.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .seeOther)
                    return String((response.headers[.location] ?? "").split(separator: "/").last ?? "")
                }
                let detail = try await a.execute(uri: "/api/collection/\(plant)", method: .get, headers: session.headers) { response in
                    #expect(response.status == .ok)
                    return try JSONDecoder.iso.decode(CollectionEntryDetail.self, from: Data(buffer: response.body))
                }
                #expect(detail.entry.nickname == "Spike")
                #expect(detail.photoIDs.count == 1)
                #expect(detail.identifications.first?.species == "Monstera deliciosa")
                #expect(detail.identifications.first?.source == .plantNetAPI)
                // The photo waits in the shared folder until its upload expires.
                #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("uploads/\(sha256Hex(photo))").path))
            }
        }
    }

    @Test func aSettingAndTheCalendarAddressMadeOnOneReplicaAreUsedByTheOther() async throws {
        let home = try await Self.homeWithAlice()
        defer { try? FileManager.default.removeItem(at: home) }
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        let stub = try await PlantNetStub.start()
        defer { Task { await stub.stop() } }
        let environment = [
            "PLANTNET_API_KEY": "stub-key", "PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTGUIDE_REFRESH_SECONDS": "0.2",
        ]
        let a = try await Self.replica(home: home, environment: environment)
        let b = try await Self.replica(home: home, environment: environment)
        try await a.test(.live) { a in
            try await b.test(.live) { b in
                let session = try await Self.aliceSession(a)
                let (cookie, csrf) = (session.cookie, session.csrf)
                try await b.execute(uri: "/identify", method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.text.contains(#"<option value="auto" selected>"#))
                }
                // Pl@ntNet first and an 85 % threshold, chosen on A…
                let (headers, body) = Self.form([("defaultStrategy", "plantnet"), ("threshold", "85")], cookie: cookie, csrf: csrf)
                try await a.execute(uri: "/settings/identification", method: .post, headers: headers, body: body) { response in
                    #expect(response.status == .seeOther)
                }
                // …are B's settings at once, and its Identify form's within a refresh.
                try await b.execute(uri: "/settings", method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.text.contains(#"<option value="85" selected>85 %</option>"#))
                }
                var preselected = false
                for _ in 0..<50 where !preselected {
                    try await Task.sleep(for: .milliseconds(100))
                    preselected = try await b.execute(uri: "/identify", method: .get, headers: [.cookie: cookie]) { response in
                        response.text.contains(#"<option value="plantnet" selected>"#)
                    }
                }
                #expect(preselected)

                // The calendar address made on A serves the calendar on B, without a log-in, until B turns it off.
                let (renew, renewBody) = Self.form([("action", "renew")], cookie: cookie, csrf: csrf)
                try await a.execute(uri: "/settings/calendar-feed", method: .post, headers: renew, body: renewBody) { response in
                    #expect(response.status == .seeOther)
                }
                let token = try #require(try database.calendarToken(household: 1))
                try await b.execute(uri: "/settings", method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.text.contains("/care/feed/\(token).ics"))
                }
                try await b.execute(uri: "/care/feed/\(token).ics", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.text.hasPrefix("BEGIN:VCALENDAR"))
                }
                let (revoke, revokeBody) = Self.form([("action", "revoke")], cookie: cookie, csrf: csrf)
                try await b.execute(uri: "/settings/calendar-feed", method: .post, headers: revoke, body: revokeBody) { response in
                    #expect(response.status == .seeOther)
                }
                try await a.execute(uri: "/care/feed/\(token).ics", method: .get) { response in
                    #expect(response.status == .notFound)
                }
            }
        }
    }

    @Test func aKeySavedOnOneReplicaIsUsedByTheOtherWithinARefresh() async throws {
        let home = try await Self.homeWithAlice()
        defer { try? FileManager.default.removeItem(at: home) }
        var behaviour = PlantNetStubBehaviour()
        behaviour.apiKey = "2b10abcdefghijklmnopqrstuv"
        let stub = try await PlantNetStub.start(behaviour: behaviour)
        defer { Task { await stub.stop() } }
        // No key in the environment: the key is the one Settings saves in the shared data directory.
        let environment = ["PLANTGUIDE_PLANTNET_URL": stub.baseURL.absoluteString, "PLANTGUIDE_REFRESH_SECONDS": "0.2"]
        let photo = try Data(contentsOf: LiveDependenciesTests.testsFolder.appendingPathComponent("Browser/Fixtures/leaf.jpg"))
        let a = try await Self.replica(home: home, environment: environment)
        let b = try await Self.replica(home: home, environment: environment)
        try await a.test(.live) { a in
            try await b.test(.live) { b in
                let session = try await Self.aliceSession(a)
                func identifyOnB() async throws -> (HTTPResponse.Status, String) {
                    var form = Multipart()
                    form.file("photo", "leaf.jpg", photo)
                    form.field("strategy", "plantnet")
                    let (headers, body) = session.multipart(form)
                    return try await b.execute(uri: "/api/identify", method: .post, headers: headers, body: body) { response in
                        (response.status, response.text)
                    }
                }
                let before = try await identifyOnB()
                #expect(before.0 != .ok, "no key yet: \(before.1)")
                #expect(stub.requestCount == 0)
                // The owner saves a key on A…
                try await a.execute(
                    uri: "/api/settings/api-key", method: .put,
                    headers: [.cookie: session.cookie, AccountRouteTests.csrfHeader: session.csrf, .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"apiKey":"2b10abcdefghijklmnopqrstuv"}"#)
                ) { response in
                    #expect(response.status.code < 300, "\(response.text)")
                }
                // …and B identifies with it within a refresh (0.2 s here), without a restart.
                var after = try await identifyOnB()
                for _ in 0..<40 where after.0 != .ok {
                    try await Task.sleep(for: .milliseconds(100))
                    after = try await identifyOnB()
                }
                #expect(after.0 == .ok, "\(after.1)")
                #expect(after.1.contains("Monstera deliciosa"))  // the stub answers this key only
                #expect(stub.requestCount >= 1)
            }
        }
    }

    @Test func aModelMadeTheDefaultByAnotherReplicaIsLoadedWithinARefresh() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let models = ModelStore(dataDirectory: DataDirectory(url: home))
        let installed = try #require(models.defaultModel())
        let replica = await ServerDependencies.live(dataDirectory: home, environment: [:])
        let refresh = try #require(replica.refresh)
        let before = try #require(replica.currentIdentification.capability?.summary)
        #expect(before.contains(installed.deletingPathExtension().lastPathComponent), "\(before)")
        // A round with nothing changed keeps the loaded identification as it is.
        let loaded = replica.currentIdentification.capability?.summary
        await refresh.run()
        #expect(replica.currentIdentification.capability?.summary == loaded)
        // Another replica installs a second model file and makes it the default, in the shared data directory.
        let second = models.folder.appendingPathComponent("second-model.\(installed.pathExtension)")
        try FileManager.default.copyItem(at: installed, to: second)
        try models.makeDefault(second)
        await refresh.run()
        let after = try #require(replica.currentIdentification.capability?.summary)
        #expect(after.contains("second-model"), "\(after)")
    }

    @Test func anOlderServersFilesAreMovedIntoTheDatabaseOnceAndKept() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let secret = Data((0..<32).map { UInt8($0) })
        let token = String(repeating: "5a", count: 32)
        try secret.write(to: home.appendingPathComponent("session-secret"))
        try Data(token.utf8).write(to: home.appendingPathComponent("calendar-feed-token"))
        try ServerPreferences(defaultStrategy: .plantNet, threshold: 0.8).save(DataDirectory(url: home))

        let first = await ServerDependencies.live(dataDirectory: home, environment: [:])
        #expect(first.sessionSecret == secret)
        // The old address is household 1's; a store-backed feed reads it only in a household's scope.
        #expect(try await HouseholdScope.$current.withValue(.home) { try await first.calendarFeed?.current() } == token)
        #expect(await first.calendarFeed?.household(for: token) == 1)
        #expect(await first.settings?.preferences?() == ServerPreferences(defaultStrategy: .plantNet, threshold: 0.8))
        for name in ["session-secret", "calendar-feed-token", "web-settings.json"] {
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent(name).path))
            #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(name + ".imported").path))
        }
        let database = try CollectionDatabase.open(in: DataDirectory(url: home))
        #expect(try database.calendarToken(household: 1) == token)
        #expect(try database.householdSettings(household: 1) == [.identifyStrategy: "plantnet", .identifyThreshold: "0.8"])

        // A second start (another replica) finds them in the database; a newer stray file changes nothing, and the
        // first import's copy is kept.
        try Data(repeating: 9, count: 32).write(to: home.appendingPathComponent("session-secret"))
        let second = await ServerDependencies.live(dataDirectory: home, environment: [:])
        #expect(second.sessionSecret == secret)
        #expect(try Data(contentsOf: home.appendingPathComponent("session-secret.imported")) == secret)
        let names = try FileManager.default.contentsOfDirectory(atPath: home.path)
        #expect(names.filter { $0.hasPrefix("session-secret.imported-") }.count == 1)
    }

    /// Recent uploads in the store: their photos are files in `uploads`, read back whole for the session that made
    /// them; a session keeps its newest few, and purging after the lifetime leaves no file behind.
    @Test func recentUploadsKeepTheirPhotosAsFilesUntilTheyExpire() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let directory = DataDirectory(url: home)
        let database = try CollectionDatabase.open(in: directory)
        let clock = ManualTime(Date())
        // The files' ages by the same moving clock (they are read by the file system's own clock otherwise).
        let folder = UploadFolder(directory: directory, now: clock.now)
        let uploads = RecentUploads(store: database, folder: folder, lifetime: 3600, keepPerSession: 2, now: clock.now, log: { _ in })
        let photos = (1...3).map { Data(repeating: UInt8($0), count: 1000 * $0) }
        func upload(_ id: String, _ indices: [Int]) -> RecentUploads.Upload {
            RecentUploads.Upload(
                id: id, photos: indices.map { .init(data: photos[$0], kind: .jpeg, organ: .leaf) },
                outcome: IdentifyOutcome(identification: Identification(source: .onDevice, predictions: [], uncertain: false), notes: [id]),
                sessionID: "session-one"
            )
        }
        // Outside any household's scope nothing is kept.
        await #expect(throws: ServerError.self) { try await uploads.add(upload("upload-none-00001", [0])) }
        try await HouseholdScope.$current.withValue(.home) {
            try await uploads.add(upload("upload-one-000001", [0, 1]))
            try await uploads.add(upload("upload-two-000002", [1]))
            let read = try #require(await uploads.upload(id: "upload-one-000001", sessionID: "session-one"))
            #expect(read.photos.map(\.data) == [photos[0], photos[1]])
            #expect(read.photos.map(\.organ) == [.leaf, .leaf])
            #expect(read.outcome.notes == ["upload-one-000001"])
            #expect(await uploads.upload(id: "upload-one-000001", sessionID: "session-two") == nil)
            // Another household does not find it, even with the session id.
            await HouseholdScope.$current.withValue(HouseholdScope(household: 2)) {
                #expect(await uploads.upload(id: "upload-one-000001", sessionID: "session-one") == nil)
            }
            // A third upload of the session forgets its first (its only-named photo stays a minute, for a replica saving it).
            try await uploads.add(upload("upload-three-0003", [2]))
            #expect(await uploads.upload(id: "upload-one-000001", sessionID: "session-one") == nil)
            #expect(await uploads.upload(id: "upload-two-000002", sessionID: "session-one") != nil)
            let files = { Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []).filter { !$0.hasPrefix(".") }) }
            #expect(files() == Set(photos.map(sha256Hex)))
            // Past the lifetime they are gone, and so are their files.
            clock.advance(by: 3600)
            #expect(await uploads.upload(id: "upload-two-000002", sessionID: "session-one") == nil)
            clock.advance(by: 61)
            #expect(await uploads.purge() == 3)
            #expect(files().isEmpty)
        }
    }

    /// A replica whose clock runs ten minutes ahead purges while another stores a photo it is about to name: the file
    /// was just touched by the file system's clock, which both read, so it stays. By the purging replica's own clock it
    /// looked ten minutes unchanged, past the minute's grace, and went.
    @Test func aReplicaWithAClockAheadKeepsAPhotoAnotherJustStored() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        let directory = DataDirectory(url: home)
        let database = try CollectionDatabase.open(in: directory)
        let folder = UploadFolder(directory: directory)
        let ahead = RecentUploads(
            store: database, folder: folder, lifetime: 3600, keepPerSession: 1, now: { Date().addingTimeInterval(600) }, log: { _ in }
        )
        let photo = Data(repeating: 7, count: 4096), other = Data(repeating: 8, count: 4096)
        func upload(_ id: String, _ data: Data) -> RecentUploads.Upload {
            RecentUploads.Upload(
                id: id, photos: [.init(data: data, kind: .jpeg, organ: .leaf)],
                outcome: IdentifyOutcome(identification: Identification(source: .onDevice, predictions: [], uncertain: false), notes: []),
                sessionID: "session-one"
            )
        }
        // The folder's clock is this machine's here (a local file system), so it reads about now.
        #expect(abs(folder.now().timeIntervalSinceNow) < 5)
        try await HouseholdScope.$current.withValue(.home) {
            // The fast replica keeps an upload naming the photo, then a second one forgets it (one per session): the
            // photo is named by nothing, as while another replica has stored it and not yet recorded its upload.
            try await ahead.add(upload("upload-one-000001", photo))
            let sha = try folder.store(photo)
            try await ahead.add(upload("upload-two-000002", other))
            #expect(FileManager.default.fileExists(atPath: folder.file(sha256: sha).path), "stored a moment ago by the file system's clock")
            _ = await ahead.purge()
            #expect(folder.data(sha256: sha) == photo)
            // Storing it again touches it by the file system's clock: a file that looked two minutes old stays.
            let file = folder.file(sha256: sha).path
            try await ahead.add(upload("upload-three-0003", photo))
            try FileManager.default.setAttributes([.modificationDate: folder.now().addingTimeInterval(-120)], ofItemAtPath: file)
            _ = try folder.store(photo)
            try await ahead.add(upload("upload-four-00004", other))
            #expect(folder.data(sha256: sha) == photo, "stored again a moment ago")
            // Unchanged for longer than the grace by the file system's clock, a photo no upload names goes.
            try await ahead.add(upload("upload-five-00005", photo))
            try FileManager.default.setAttributes([.modificationDate: folder.now().addingTimeInterval(-120)], ofItemAtPath: file)
            try await ahead.add(upload("upload-six-000006", other))
            #expect(folder.data(sha256: sha) == nil, "forgotten and unchanged for two minutes")
        }
    }

    /// Two replicas starting at once on a fresh data directory agree on one secret, and keep it across a restart.
    @Test func replicasStartingAtOnceShareOneSessionSecret() async throws {
        let home = try LiveDependenciesTests.makeHome(withModel: false)
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try CollectionDatabase.open(in: DataDirectory(url: home))
        let secrets = await withTaskGroup(of: Data?.self) { group in
            for _ in 0..<2 {
                group.addTask { await ServerDependencies.live(dataDirectory: home, environment: [:]).sessionSecret }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let secret = try #require(secrets.first ?? nil)
        #expect(secret.count == 32)
        #expect(secrets == [secret, secret])
        await #expect(ServerDependencies.live(dataDirectory: home, environment: [:]).sessionSecret == secret)
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("session-secret").path))
    }
}
