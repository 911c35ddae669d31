import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import PlantGuideServer

@Suite struct BrowseRouteTests {
    @Test func homePageSaysWhatWorksAndHowToAddIdentification() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(response.text.contains("6 houseplants to browse"))
                #expect(response.text.contains("Add identification"))
                #expect(response.text.contains("Pl@ntNet API key"))
            }
        }
    }

    @Test(arguments: ["/", "/browse", "/api/catalog/plants", "/openapi.json", "/nowhere", "/api/nowhere"])
    func everyAnswerCarriesTheSecurityHeaders(path: String) async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                let csp = try #require(response.headers[.contentSecurityPolicy])
                #expect(csp.contains("frame-ancestors 'none'"))
                #expect(csp.contains("script-src 'self'"))
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.referrerPolicy] == "same-origin")
            }
        }
    }

    @Test func browseListsEveryPlantInLetterSectionsWithACount() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/browse", method: .get) { response in
                #expect(response.status == .ok)
                let page = response.text
                #expect(page.contains(#"<span class="badge" id="count" aria-live="polite">6</span>"#))
                for letter in ["D", "E", "M", "N"] { #expect(page.contains("id=\"letter-\(letter)\"")) }
                #expect(page.contains("Monstera deliciosa"))
                #expect(page.contains(#"data-live-search"#))
            }
        }
    }

    @Test func categoryChipFiltersTheList() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/browse?category=succulent", method: .get) { response in
                let page = response.text
                #expect(page.contains("Echeveria elegans"))
                #expect(page.contains("Dracaena trifasciata"))
                #expect(!page.contains("Monstera deliciosa</a>"))
                #expect(page.contains(#"id="count" aria-live="polite">2<"#))
                #expect(page.contains(#"href="/browse?category=succulent" aria-current="page""#))
            }
        }
    }

    @Test func searchFindsByCommonNameAndThePartialIsAFragment() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/browse?q=snake&partial=1", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("Dracaena trifasciata"))
                #expect(response.text.contains(#"data-count="1""#))
                #expect(!response.text.contains("<html"))
            }
        }
    }

    @Test func searchTextIsEscapedInThePage() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/browse?q=%3Cscript%3Ealert(1)%3C/script%3E", method: .get) { response in
                #expect(!response.text.contains("<script>alert"))
                #expect(response.text.contains("&lt;script&gt;alert(1)"))
            }
        }
    }

    @Test func unknownCategoryIsABadRequest() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/browse?category=trees", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("Unknown category"))
            }
            try await client.execute(uri: "/api/catalog/plants?category=trees", method: .get) { response in
                #expect(response.status == .badRequest)
                try #expect(response.errorBody().status == 400)
            }
        }
    }

    @Test func plantPageShowsFamilyCategoryAndRelatedPlants() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/plants/Monstera%20deliciosa", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("Araceae"))
                #expect(response.text.contains("Swiss Cheese Plant"))
                #expect(response.text.contains("Monstera adansonii"))
            }
            try await client.execute(uri: "/plants/Quercus%20robur", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.text.contains("Try again") || response.text.contains("not found"))
            }
        }
    }

    @Test func catalogAPISearchesFiltersAndLimits() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/api/catalog/plants?q=monstera&limit=1", method: .get) { response in
                #expect(response.status == .ok)
                let body = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                #expect(body.count == 2)
                #expect(body.plants.count == 1)
                #expect(body.plants.first?.family == "Araceae")
            }
            try await client.execute(uri: "/api/catalog/plants?category=cactus", method: .get) { response in
                let body = try JSONDecoder().decode(PlantListBody.self, from: Data(buffer: response.body))
                #expect(body.plants.map(\.scientificName) == ["Mammillaria elongata"])
            }
            try await client.execute(uri: "/api/catalog/plants?limit=zero", method: .get) { response in
                #expect(response.status == .badRequest)
                try #expect(response.errorBody().message.contains("limit"))
            }
        }
    }

    @Test func catalogAPIGivesOnePlantAndTheCategories() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/api/catalog/plants/Echeveria%20elegans", method: .get) { response in
                let body = try JSONDecoder().decode(PlantDetailBody.self, from: Data(buffer: response.body))
                #expect(body.plant.category == .succulent)
            }
            try await client.execute(uri: "/api/catalog/plants/Nothing%20here", method: .get) { response in
                #expect(response.status == .notFound)
                try #expect(response.errorBody() == APIErrorBody(status: 404, message: "The plant “Nothing here” was not found."))
            }
            try await client.execute(uri: "/api/catalog/categories", method: .get) { response in
                let body = try JSONDecoder().decode([CategoryBody].self, from: Data(buffer: response.body))
                #expect(body.count == 11)
                #expect(body.first { $0.slug == "succulent" }?.count == 2)
            }
        }
    }

    @Test func missingCatalogIsReportedNotFaked() async throws {
        try await makeApp(dependencies: ServerDependencies()).test(.router) { client in
            try await client.execute(uri: "/api/catalog/plants?q=fern", method: .get) { response in
                #expect(response.status == .notImplemented)
                try #expect(response.errorBody().message.contains("catalog"))
            }
        }
    }

    @Test func unknownAddressesAreNotFoundAsJSONOrPage() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/api/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
                try #expect(response.errorBody().status == 404)
            }
            try await client.execute(uri: "/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            }
        }
    }

    @Test func staticAssetsAndHealthAreServed() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/static/app.css", method: .get) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/css") == true)
                #expect(response.text.contains(".pct-70{width:70%}"))
            }
            try await client.execute(uri: "/static/app.js", method: .get) { response in
                #expect(response.text.contains("data-live-search"))
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.text == "ok\n")
            }
            try await client.execute(uri: "/api/status", method: .get) { response in
                let body = try JSONDecoder().decode(StatusBody.self, from: Data(buffer: response.body))
                #expect(body.catalog)
                #expect(body.identification == nil)
                #expect(body.queue.concurrency == 2)
            }
        }
    }
}
