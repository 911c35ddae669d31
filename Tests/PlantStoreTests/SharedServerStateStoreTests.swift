import Foundation
import PlantStore
import Testing

extension TestStore {
    /// The server's shared state: the secret, household settings, the calendar token and recent uploads.
    var serverState: any ServerStateStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// The state every server replica must see, through the store protocol, on every backend: two connections stand for
/// two replicas.
@Suite struct SharedServerStateStoreTests {
    private let now = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00 UTC

    @Test(arguments: StateBackend.allCases)
    func replicasMakingTheSecretAtOnceGetTheSameBytes(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let states = stores.map(\.serverState)
            // Eight makers on two connections, each with bytes of its own: one insert wins and all read it.
            let secrets = try await withThrowingTaskGroup(of: (Data, Data).self) { group in
                for maker in 0..<8 {
                    let state = states[maker % 2]
                    let own = Data(repeating: UInt8(maker + 1), count: 32)
                    group.addTask { (own, try await state.serverSecret(named: "session", make: { own }, now: now)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winner = try #require(secrets.first?.1)
            #expect(winner.count == 32)
            #expect(secrets.allSatisfy { $0.1 == winner })
            #expect(secrets.contains { $0.0 == winner })
            // Later calls read it and never make another.
            let again = try await states[1].serverSecret(named: "session", make: { Data(repeating: 0xEE, count: 32) }, now: now)
            #expect(again == winner)
            await #expect(throws: StoreError.self) {
                try await states[0].serverSecret(named: "other", make: { Data(count: 32) }, now: now)
            }
        }
        try await backend.withTestStores(1) { stores in
            // A maker of the wrong length is refused, and nothing is stored.
            let state = stores[0].serverState
            await #expect(throws: StoreError.self) {
                try await state.serverSecret(named: "session", make: { Data(count: 16) }, now: now)
            }
            let made = Data(repeating: 7, count: 32)
            let stored = try await state.serverSecret(named: "session", make: { made }, now: now)
            #expect(stored == made)
        }
    }

    @Test(arguments: StateBackend.allCases)
    func householdSettingsAreSharedReplacedAndRemoved(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let first = stores[0].serverState, second = stores[1].serverState
            #expect(try await first.householdSettings(household: 1).isEmpty)
            try await first.setHouseholdSetting(.identifyStrategy, to: "plantNet", household: 1, now: now)
            try await first.setHouseholdSetting(.identifyThreshold, to: "0.85", household: 1, now: now)
            #expect(try await second.householdSettings(household: 1) == [.identifyStrategy: "plantNet", .identifyThreshold: "0.85"])
            // The care settings (v19, pg11) are kept alike.
            try await first.setHouseholdSetting(.careHemisphere, to: "south", household: 1, now: now)
            try await first.setHouseholdSetting(.careTimeZone, to: "Europe/Oslo", household: 1, now: now)
            let care = CareSettings(
                settings: try await second.householdSettings(household: 1), defaults: CareSettings(hemisphere: .north, timeZone: .gmt)
            )
            #expect(care.hemisphere == .south && care.timeZone.identifier == "Europe/Oslo" && care.hemisphereIsSet && care.timeZoneIsSet)
            try await second.setHouseholdSetting(.careHemisphere, to: nil, household: 1, now: now)
            try await second.setHouseholdSetting(.careTimeZone, to: nil, household: 1, now: now)
            try await second.setHouseholdSetting(.identifyThreshold, to: "0.6", household: 1, now: now.addingTimeInterval(5))
            try await second.setHouseholdSetting(.identifyStrategy, to: nil, household: 1, now: now.addingTimeInterval(5))
            #expect(try await first.householdSettings(household: 1) == [.identifyThreshold: "0.6"])
            // Another household's settings are its own (there is none 2 yet: the store refuses it).
            #expect(try await first.householdSettings(household: 2).isEmpty)
            await #expect(throws: StoreError.self) {
                try await first.setHouseholdSetting(.identifyThreshold, to: "0.5", household: 2, now: now)
            }
        }
    }

    @Test(arguments: StateBackend.allCases)
    func theCalendarTokenIsFoundByTokenOnEveryReplica(_ backend: StateBackend) async throws {
        try await backend.withTestStores(2) { stores in
            let first = stores[0].serverState, second = stores[1].serverState
            let token = String(repeating: "ab", count: 32), renewed = String(repeating: "0f", count: 32)
            #expect(try await first.calendarToken(household: 1) == nil)
            #expect(try await first.household(calendarToken: token) == nil)
            try await first.setCalendarToken(token, household: 1)
            #expect(try await second.calendarToken(household: 1) == token)
            #expect(try await second.household(calendarToken: token) == 1)
            try await second.setCalendarToken(renewed, household: 1)
            #expect(try await first.household(calendarToken: token) == nil)
            #expect(try await first.household(calendarToken: renewed) == 1)
            try await first.setCalendarToken(nil, household: 1)
            #expect(try await second.calendarToken(household: 1) == nil)
            #expect(try await second.household(calendarToken: renewed) == nil)
            await #expect(throws: StoreError.self) { try await first.setCalendarToken("ABC", household: 1) }
            await #expect(throws: StoreError.self) { try await first.setCalendarToken(token, household: 9) }
        }
    }

    private static func hash(_ character: Character) -> String { String(repeating: character, count: 64) }

    private func upload(
        _ id: String, session: Character, photos: [Character], created: TimeInterval = 0, lifetime: TimeInterval = 7200
    ) -> RecentUploadRow {
        RecentUploadRow(
            id: id, householdId: 1, sessionHash: Self.hash(session),
            photos: photos.map { RecentUploadPhoto(sha256: Self.hash($0), kind: "jpeg", organ: "leaf") },
            outcome: #"{"identification":{"source":"onDevice"},"notes":["\#(id)"]}"#,
            createdAt: now.addingTimeInterval(created), expiresAt: now.addingTimeInterval(created + lifetime)
        )
    }

    @Test(arguments: StateBackend.allCases)
    func uploadsAreReadOnlyByTheirSessionUntilTheyExpire(_ backend: StateBackend) async throws {
        let now = now
        let first = upload("upload-0000000001", session: "a", photos: ["1", "2"])
        try await backend.withTestStores(2) { stores in
            let a = stores[0].serverState, b = stores[1].serverState
            #expect(try await a.saveUpload(first, keepPerSession: 8) == [])
            // The other replica reads it whole, for the session that made it.
            let read = try #require(try await b.upload(id: first.id, sessionHash: Self.hash("a"), household: 1, now: now))
            #expect(read.photos == first.photos)
            #expect(read.outcome == first.outcome)
            #expect(read.recheckIdentificationId == nil)
            #expect(abs(read.createdAt.timeIntervalSince(first.createdAt)) < 0.001)
            #expect(abs(read.expiresAt.timeIntervalSince(first.expiresAt)) < 0.001)
            // Another session, another household, an unknown id or a time past its end get nothing.
            #expect(try await b.upload(id: first.id, sessionHash: Self.hash("b"), household: 1, now: now) == nil)
            #expect(try await b.upload(id: first.id, sessionHash: Self.hash("a"), household: 2, now: now) == nil)
            #expect(try await b.upload(id: "upload-0000000009", sessionHash: Self.hash("a"), household: 1, now: now) == nil)
            #expect(try await b.upload(id: first.id, sessionHash: Self.hash("a"), household: 1, now: now.addingTimeInterval(7200)) == nil)
            #expect(try await b.upload(id: first.id, sessionHash: Self.hash("a"), household: 1, now: now.addingTimeInterval(7199)) != nil)
            // Rows the schema would refuse are refused with a clear error.
            var bad = first
            bad.id = "short"
            await #expect(throws: StoreError.self) { try await a.saveUpload(bad, keepPerSession: 8) }
            bad = upload("upload-0000000002", session: "a", photos: ["1"])
            bad.photos[0].sha256 = "not-a-hash"
            await #expect(throws: StoreError.self) { try await a.saveUpload(bad, keepPerSession: 8) }
            bad = upload("upload-0000000002", session: "a", photos: ["1"])
            bad.outcome = "{not json"
            await #expect(throws: StoreError.self) { try await a.saveUpload(bad, keepPerSession: 8) }
            bad = upload("upload-0000000002", session: "a", photos: ["1"], lifetime: 0)
            await #expect(throws: StoreError.self) { try await a.saveUpload(bad, keepPerSession: 8) }
            await #expect(throws: StoreError.self) { try await b.saveUpload(first, keepPerSession: 8) }
        }
    }

    @Test(arguments: StateBackend.allCases)
    func purgingForgetsExpiredUploadsAndNamesPhotosNoUploadStillNeeds(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let a = stores[0].serverState, b = stores[1].serverState
            // Photo 1 is in an upload ending soon and in one that stays; 2 and 3 only in ones ending soon.
            try await a.saveUpload(upload("upload-short-0001", session: "a", photos: ["1", "2"], lifetime: 60), keepPerSession: 8)
            try await b.saveUpload(upload("upload-short-0002", session: "b", photos: ["3", "2"], lifetime: 120), keepPerSession: 8)
            try await a.saveUpload(upload("upload-long-00001", session: "b", photos: ["1", "4"]), keepPerSession: 8)
            #expect(try await b.purgeUploads(now: now.addingTimeInterval(59)) == [])
            #expect(try await b.purgeUploads(now: now.addingTimeInterval(60)) == [])  // 2 is still named by the second
            #expect(try await a.upload(id: "upload-short-0001", sessionHash: Self.hash("a"), household: 1, now: now) == nil)
            #expect(try await a.purgeUploads(now: now.addingTimeInterval(121)) == [Self.hash("2"), Self.hash("3")])
            #expect(try await b.upload(id: "upload-long-00001", sessionHash: Self.hash("b"), household: 1, now: now) != nil)
            // Two replicas purging at once: one of them reports the photos, never both.
            let both = try await withThrowingTaskGroup(of: [String].self) { group in
                for state in [a, b] { group.addTask { try await state.purgeUploads(now: now.addingTimeInterval(7201)) } }
                return try await group.reduce(into: []) { $0.append(contentsOf: $1) }
            }
            #expect(both.sorted() == [Self.hash("1"), Self.hash("4")])
        }
    }

    @Test(arguments: StateBackend.allCases)
    func aSessionKeepsItsNewestUploadsOnly(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(2) { stores in
            let a = stores[0].serverState, b = stores[1].serverState
            try await a.saveUpload(upload("upload-keep-00001", session: "a", photos: ["1", "2"], created: 0), keepPerSession: 2)
            try await b.saveUpload(upload("upload-keep-00002", session: "a", photos: ["2"], created: 10), keepPerSession: 2)
            try await a.saveUpload(upload("upload-other-0001", session: "b", photos: ["1"], created: 15), keepPerSession: 2)
            // The third of session a forgets its first: photo 2 is still named, photo 1 by session b's upload.
            #expect(try await b.saveUpload(upload("upload-keep-00003", session: "a", photos: ["3"], created: 20), keepPerSession: 2) == [])
            #expect(try await a.upload(id: "upload-keep-00001", sessionHash: Self.hash("a"), household: 1, now: now) == nil)
            #expect(try await a.upload(id: "upload-keep-00002", sessionHash: Self.hash("a"), household: 1, now: now) != nil)
            // The fourth forgets the second, and photo 2 with it.
            #expect(try await a.saveUpload(upload("upload-keep-00004", session: "a", photos: ["4"], created: 30), keepPerSession: 2)
                == [Self.hash("2")])
            #expect(try await b.upload(id: "upload-other-0001", sessionHash: Self.hash("b"), household: 1, now: now) != nil)
        }
    }
}
