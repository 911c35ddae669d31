import Foundation
import Hummingbird
import HummingbirdTesting
import PlantCatalog
import PlantGuideCore
import Synchronization
import Testing
@testable import PlantGuideServer

/// The catalog's plant pages: care profile, seasons for the server's hemisphere, and "Add to my plants".
@Suite struct CatalogPageRouteTests {
    /// A profile whose every value is distinct, so the page can be checked value by value.
    static let profile = CareProfile(
        light: .brightIndirect, waterGrowingDays: 9, waterWinterDays: 19, fertilizeGrowingDays: 21, mistDays: 4,
        repotDays: 730, pruneDays: nil, humidity: .high, minTemperature: 17, maxTemperature: 27, toxicToCats: true,
        toxicToDogs: false, toxicitySource: "Fixture reference list", basis: "genus Monstera"
    )

    /// 15 July 2026, 12:00 UTC: summer in the north, the rest season in the south.
    static let july = Date(timeIntervalSince1970: 1_784_116_800)

    /// The plants care advice was asked about.
    final class Asked: Sendable {
        let names = Mutex<[String]>([])
    }

    /// Care advice that answers with ``profile`` and remembers which plants it was asked about.
    static func advice(_ hemisphere: Hemisphere, asked: Asked? = nil) -> CareAdviceCapability {
        CareAdviceCapability(hemisphere: hemisphere) { plant in
            asked?.names.withLock { $0.append(plant.scientificName) }
            return profile
        }
    }

    static func page(_ path: String, _ dependencies: ServerDependencies) async throws -> String {
        try await makeApp(dependencies: dependencies).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                return response.text
            }
        }
    }

    @Test func thePlantPageShowsTheCommonNameAndTheCareProfileFromTheCapability() async throws {
        let asked = Asked()
        let dependencies = ServerDependencies(catalog: fixtureCatalog, careAdvice: Self.advice(.north, asked: asked), now: { Self.july })
        let page = try await Self.page("/plants/Monstera%20deliciosa", dependencies)
        #expect(asked.names.withLock { $0 } == ["Monstera deliciosa"])
        #expect(page.contains("<h1>Swiss Cheese Plant</h1><p class=\"subtitle sci\">Monstera deliciosa</p>"))
        #expect(page.contains("<title>Swiss Cheese Plant (Monstera deliciosa) · PlantGuide</title>"))
        for fact in [
            "<dt>Light</dt><dd>Bright indirect light</dd>",
            "<dt>Watering</dt><dd>Every 9 days in the growing season, every 19 days in winter</dd>",
            "<dt>Feeding</dt><dd>Every 21 days in the growing season, none in winter</dd>",
            "<dt>Humidity</dt><dd>High; mist every 4 days (every 8 days in winter)</dd>",
            "<dt>Temperature</dt><dd>17–27 °C</dd>",
            "<dt>Repotting</dt><dd>Every 2 years</dd>",
            "<dt>Pruning</dt><dd>Not needed</dd>",
            "<dt>Pets</dt><dd>Toxic to cats, not to dogs <span class=\"meta\">Reference: Fixture reference list</span></dd>",
            "(genus Monstera)",
        ] {
            #expect(page.contains(fact), "missing: \(fact)")
        }
    }

    /// A page asked for by a former name shows the entry, says what the name is now, and lists the former names; the
    /// API gives them as `formerNames`.
    @Test func aFormerNameFindsThePlantAndSaysSo() async throws {
        let dependencies = ServerDependencies(catalog: PlantCatalog(), now: { Self.july })
        let page = try await Self.page("/plants/Calathea%20orbifolia", dependencies)
        #expect(page.contains("<p class=\"notice\" role=\"status\">Calathea orbifolia is now Goeppertia orbifolia (Round-leaf Calathea).</p>"))
        #expect(page.contains("<h1>Round-leaf Calathea</h1>"))
        #expect(page.contains("<tr><th scope=\"row\">Formerly</th><td class=\"sci\">Calathea orbifolia</td></tr>"))
        let own = try await Self.page("/plants/Goeppertia%20orbifolia", dependencies)
        #expect(!own.contains("class=\"notice\"") && own.contains("Formerly"))
        let api = try await Self.page("/api/catalog/plants?q=scindapsus%20aureus&limit=1", dependencies)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any])
        let first = try #require((body["plants"] as? [[String: Any]])?.first)
        #expect(first["scientificName"] as? String == "Epipremnum aureum")
        #expect((first["formerNames"] as? [String])?.contains("Scindapsus aureus") == true)
    }

    @Test func theSeasonsFollowTheServersHemisphereAndMarkTheCurrentOne() async throws {
        let north = try await Self.page(
            "/plants/Monstera%20deliciosa", ServerDependencies(catalog: fixtureCatalog, careAdvice: Self.advice(.north), now: { Self.july })
        )
        #expect(north.contains("Seasons of the northern hemisphere"))
        #expect(north.contains("<h3>Growing season: April–September <span class=\"badge\">now</span></h3>"))
        #expect(north.contains("<h3>Rest season: October–March</h3>"))
        #expect(north.contains("<li>Water every 9 days</li><li>Feed every 21 days</li><li>Mist every 4 days</li>"))
        #expect(north.contains("<li>Water every 19 days</li><li>No feeding</li><li>Mist every 8 days</li>"))
        #expect(!north.contains("pruning"), "a task the plant never needs is left out")

        let south = try await Self.page(
            "/plants/Monstera%20deliciosa", ServerDependencies(catalog: fixtureCatalog, careAdvice: Self.advice(.south), now: { Self.july })
        )
        #expect(south.contains("Seasons of the southern hemisphere"))
        #expect(south.contains("<h3>Growing season: October–March</h3>"))
        #expect(south.contains("<h3>Rest season: April–September <span class=\"badge\">now</span></h3>"))
    }

    @Test func withoutCareAdviceThePageStillShowsThePlant() async throws {
        let page = try await Self.page("/plants/Echeveria%20elegans", ServerDependencies(catalog: fixtureCatalog))
        #expect(page.contains("<h1>Mexican Snowball</h1>"))
        #expect(!page.contains("Care profile"))
        #expect(page.contains("Crassulaceae"))
    }

    @Test func addToMyPlantsIsOfferedOnlyWithACollection() async throws {
        let without = try await Self.page("/plants/Monstera%20deliciosa", ServerDependencies(catalog: fixtureCatalog))
        #expect(!without.contains("Add to my plants"))
        #expect(!without.contains("action=\"/collection\""))

        let store = FakeStore(now: Self.july)
        let with = try await Self.page(
            "/plants/Monstera%20deliciosa", ServerDependencies(catalog: fixtureCatalog, collection: store.collection)
        )
        #expect(with.contains("<form class=\"card add-plant\" method=\"post\" action=\"/collection\" aria-labelledby=\"add-title\">"))
        #expect(with.contains("<input type=\"hidden\" name=\"scientificName\" value=\"Monstera deliciosa\">"))
        #expect(with.contains("<input id=\"nickname\" name=\"nickname\" type=\"text\""))
        #expect(with.contains("<input id=\"room\" name=\"room\" type=\"text\""))
        #expect(with.contains("<button type=\"submit\">Add to my plants</button>"))
        #expect(with.contains("name=\"_csrf\""))
    }

    @Test func theAddFormSavesTheCatalogPlantWithItsNicknameAndRoom() async throws {
        let store = FakeStore(now: Self.july)
        try await makeApp(dependencies: ServerDependencies(catalog: fixtureCatalog, collection: store.collection)).test(.router) { client in
            let session = try await Session.open(client)
            let (headers, body) = session.form([("scientificName", "Monstera deliciosa"), ("nickname", "Monty"), ("room", "")])
            try await client.execute(uri: "/collection", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/collection/p1")
            }
        }
        let saved = try #require(store.state.withLock { $0.entries.first })
        #expect(saved.scientificName == "Monstera deliciosa")
        #expect(saved.nickname == "Monty")
        #expect(saved.room == nil, "an empty room is no room")
    }

    @Test func aPlantWithoutCommonNameHasItsScientificNameAsTitle() async throws {
        let catalog = PlantCatalog(plants: [CatalogPlant(scientificName: "Tillandsia ionantha", commonNames: [], family: "Bromeliaceae", category: .airPlant)])
        let page = try await Self.page("/plants/Tillandsia%20ionantha", ServerDependencies(catalog: catalog))
        #expect(page.contains("<h1 class=\"sci\">Tillandsia ionantha</h1>"))
        #expect(page.contains("No common name recorded."))
    }
}
