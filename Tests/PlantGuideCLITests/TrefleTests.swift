import Foundation
import PlantGuideCore
import PlantGuideLive
import PlantGuideTestSupport
import PlantStore
import PlantStoreSQLite
import Testing

@Suite struct TrefleTests {
    @Test func readsGrowthFactsFromTheStub() async throws {
        let stub = try TrefleStub()
        defer { stub.stop() }
        let client = try TrefleClient(token: TrefleStub.token, baseURL: stub.baseURL)
        let growth = try #require(try await client.growth(forScientificName: "Monstera deliciosa Liebm."))
        #expect(growth == TrefleGrowth(light: 6, atmosphericHumidity: 8, minimumTemperature: 13, maximumTemperature: 35))
        #expect(try await client.growth(forScientificName: "Nonexistia fabulosa") == nil)
        #expect(stub.requests.contains { $0.hasPrefix("/api/v1/species/monstera-deliciosa?") })
    }

    @Test func enrichmentMapsScalesAndKeepsOurOwnWatering() {
        let base = CareProfile(
            light: .brightIndirect, waterGrowingDays: 7, waterWinterDays: 14, fertilizeGrowingDays: 30, mistDays: nil,
            repotDays: 730, pruneDays: nil, humidity: .medium, minTemperature: 16, maxTemperature: 29, toxicToCats: true,
            toxicToDogs: true, toxicitySource: "test", basis: "test"
        )
        let cactus = base.enriched(with: TrefleGrowth(light: 9, atmosphericHumidity: 2, minimumTemperature: 5, maximumTemperature: 38))
        #expect(cactus.light == .directSun && cactus.humidity == .low)
        #expect(cactus.minTemperature == 5 && cactus.maxTemperature == 38)
        #expect(cactus.waterGrowingDays == base.waterGrowingDays && cactus.toxicToCats == base.toxicToCats)
        #expect(cactus.basis == "test + Trefle")
        // Implausible or missing values change nothing.
        let odd = base.enriched(with: TrefleGrowth(light: 42, atmosphericHumidity: nil, minimumTemperature: 30, maximumTemperature: 10))
        #expect(odd == base)
    }

    @Test func failuresAreTypedAndNeverShowTheToken() async throws {
        let stub = try TrefleStub()
        defer { stub.stop() }
        let secret = "very-secret-token-123"
        let wrong = try TrefleClient(token: secret, baseURL: stub.baseURL)
        await expectFailure(wrong, .unauthorized, secret: secret)
        let client = try TrefleClient(token: TrefleStub.token, baseURL: stub.baseURL, timeout: 1)
        stub.behaviour = .down
        await expectFailure(client, .unavailable("HTTP 503"), secret: TrefleStub.token)
        stub.behaviour = .malformed
        await expectFailure(client, .malformed("unexpected JSON"), secret: TrefleStub.token)
        stub.behaviour = .slow(2.5)
        do {
            _ = try await client.growth(forScientificName: "Monstera deliciosa")
            Issue.record("a slow answer should time out")
        } catch {
            #expect(!"\(error)".contains(TrefleStub.token))
        }
        // Nothing listening at all.
        stub.stop()
        let gone = try TrefleClient(token: secret, baseURL: stub.baseURL, timeout: 1)
        do {
            _ = try await gone.growth(forScientificName: "Monstera deliciosa")
            Issue.record("a closed port should fail")
        } catch {
            #expect(!"\(error)".contains(secret))
        }
    }

    @Test func collectionEnrichmentUpdatesTheProfileOrLeavesItAlone() async throws {
        let home = DataDirectory(url: FileManager.default.temporaryDirectory.appendingPathComponent("plantguide-trefle-\(UUID().uuidString)"))
        try home.create()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let stub = try TrefleStub()
        defer { stub.stop() }
        let monstera = CatalogPlant(scientificName: "Monstera deliciosa", commonNames: [], family: "Araceae", category: .tropicalFoliage)
        let collection = PlantCollection(
            store: try CollectionDatabase.open(in: home), photos: PhotoLibrary(directory: home, encoder: .storingOriginal),
            careGuide: try CareGuide.bundled(), lookup: { $0.hasPrefix("Monstera") ? monstera : nil }
        )
        let plant = try await collection.addPlant(name: "Monstera")
        let client = try TrefleClient(token: TrefleStub.token, baseURL: stub.baseURL, timeout: 1)
        stub.behaviour = .down
        #expect(await collection.enrichCareProfile(ofPlant: plant.id, client: client) != nil)
        #expect(try collection.database.details(ofPlant: plant.id).profile?.basis == "genus Monstera")
        stub.behaviour = .normal
        #expect(await collection.enrichCareProfile(ofPlant: plant.id, client: client) == nil)
        let profile = try #require(try collection.database.details(ofPlant: plant.id).profile)
        #expect(profile.basis == "genus Monstera + Trefle")
        #expect(profile.humidity == .high && profile.minTemperature == 13)
    }

    private func expectFailure(_ client: TrefleClient, _ expected: TrefleError, secret: String) async {
        do {
            _ = try await client.growth(forScientificName: "Monstera deliciosa")
            Issue.record("expected \(expected)")
        } catch {
            #expect(error == expected)
            #expect(!error.description.contains(secret))
        }
    }
}
