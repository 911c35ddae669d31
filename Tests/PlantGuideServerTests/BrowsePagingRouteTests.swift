import Foundation
import Hummingbird
import HummingbirdTesting
import PlantCatalog
import PlantGuideCore
import Testing
@testable import PlantGuideServer

/// Browse in pages of 60, A–Z jumps across pages, category icons, and what the search box shows.
@Suite struct BrowsePagingRouteTests {
    /// 130 plants: 50 under A, 50 under B, 30 under C; every other one a cactus (65 in all), all in one family.
    static let bigCatalog = PlantCatalog(plants: (0..<130).map { index in
        let letter = ["Alpha", "Beta", "Gamma"][index / 50]
        return CatalogPlant(
            scientificName: "\(letter) species\(String(format: "%03d", index))", commonNames: [], family: "Testaceae",
            category: index % 2 == 0 ? .cactus : .fern
        )
    })

    static func page(_ path: String, catalog: PlantCatalog = bigCatalog) async throws -> String {
        try await makeApp(dependencies: ServerDependencies(catalog: catalog)).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok, "\(path)")
                return response.text
            }
        }
    }

    @Test func theFirstPageHoldsSixtyPlantsAndLinksToTheNext() async throws {
        let page = try await Self.page("/browse")
        #expect(page.contains("Alpha species000"))
        #expect(page.contains("Beta species059"))
        #expect(!page.contains("Beta species060"))
        #expect(page.contains(#"id="count" aria-live="polite">130<"#), "the badge counts every page")
        #expect(page.contains("130 plants, A–Z. Page 1 of 3: 1–60."))
        #expect(page.contains(#"<a class="button secondary next" rel="next" href="/browse?page=2">Next →</a>"#))
        #expect(!page.contains(#"rel="prev""#))
        #expect(page.contains(#"<a href="/browse" aria-current="page"><span class="visually-hidden">Page </span>1</a>"#))
        #expect(page.contains(#"href="/browse?page=3"><span class="visually-hidden">Page </span>3</a>"#))
    }

    @Test func aMiddlePageLinksBothWaysAndTheLastHasNoNext() async throws {
        let middle = try await Self.page("/browse?page=2")
        #expect(middle.contains("Beta species060"))
        #expect(middle.contains("Gamma species119"))
        #expect(!middle.contains("Gamma species120"))
        #expect(!middle.contains("Alpha species000"))
        #expect(middle.contains(#"rel="prev" href="/browse">"#))
        #expect(middle.contains(#"rel="next" href="/browse?page=3">"#))
        #expect(middle.contains("<title>Browse, page 2 · PlantGuide</title>"))

        let last = try await Self.page("/browse?page=3")
        #expect(last.contains("Gamma species129"))
        #expect(last.contains("Page 3 of 3: 121–130."))
        #expect(last.contains(#"rel="prev" href="/browse?page=2">"#))
        #expect(!last.contains(#"rel="next""#))
    }

    @Test func everyLetterLinksToThePageHoldingItsFirstPlant() async throws {
        let first = try await Self.page("/browse")
        #expect(first.contains(#"<a href="/browse#letter-A">A</a>"#))
        #expect(first.contains(#"<a href="/browse#letter-B">B</a>"#))
        #expect(first.contains(#"<a href="/browse?page=2#letter-G">G</a>"#))
        #expect(first.contains(#"id="letter-B""#))
        #expect(!first.contains(#"id="letter-G""#))
        // Page 2 starts inside B: its B section continues there, and the G section begins.
        let second = try await Self.page("/browse?page=2")
        #expect(second.contains(#"id="letter-B""#))
        #expect(second.contains(#"id="letter-G""#))
        #expect(!second.contains(#"id="letter-A""#))
    }

    @Test func pageLinksKeepTheCategoryAndTheSearch() async throws {
        let cacti = try await Self.page("/browse?category=cactus")
        #expect(cacti.contains("65 plants in Cactus, A–Z. Page 1 of 2: 1–60."))
        #expect(cacti.contains(#"rel="next" href="/browse?category=cactus&amp;page=2">"#))
        let lastCacti = try await Self.page("/browse?category=cactus&page=2")
        #expect(lastCacti.contains("Gamma species128"))
        #expect(!lastCacti.contains("Gamma species129"), "a fern is not listed under Cactus")

        let search = try await Self.page("/browse?q=testaceae&page=2")
        #expect(search.contains("130 plants match “testaceae”. Page 2 of 3: 61–120."))
        #expect(search.contains(#"<ol class="plants" start="61">"#))
        #expect(search.contains(#"rel="prev" href="/browse?q=testaceae">"#))
        #expect(search.contains(#"rel="next" href="/browse?q=testaceae&amp;page=3">"#))
    }

    @Test func theLiveSearchFragmentIsPagedToo() async throws {
        let fragment = try await Self.page("/browse?q=testaceae&partial=1")
        #expect(!fragment.contains("<html"))
        #expect(fragment.contains(#"data-count="130""#))
        #expect(fragment.contains(#"rel="next" href="/browse?q=testaceae&amp;page=2">"#))
    }

    @Test(arguments: ["/browse?page=4", "/browse?category=cactus&page=3", "/browse?q=testaceae&page=9"])
    func aPageBeyondTheLastIsNotFound(path: String) async throws {
        try await makeApp(dependencies: ServerDependencies(catalog: Self.bigCatalog)).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.text.contains("Page"))
            }
        }
    }

    @Test(arguments: ["/browse?page=0", "/browse?page=-1", "/browse?page=two"])
    func aPageThatIsNotANumberFromOneIsABadRequest(path: String) async throws {
        try await makeApp(dependencies: ServerDependencies(catalog: Self.bigCatalog)).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("page must be a whole number"))
            }
        }
    }

    @Test func aShortListHasNoPager() async throws {
        let page = try await Self.page("/browse", catalog: fixtureCatalog)
        #expect(!page.contains("class=\"pager\""))
        #expect(page.contains("6 plants, A–Z.</p>"))
    }

    @Test func aSearchWithPlusForSpaceShowsTheWordsInTheBox() async throws {
        let page = try await Self.page("/browse?q=snake+plant", catalog: fixtureCatalog)
        #expect(page.contains(#"value="snake plant""#))
        #expect(!page.contains("snake+plant"))
        #expect(page.contains("1 plant matches “snake plant”."))
        #expect(page.contains("Dracaena trifasciata"))
    }

    @Test func countsOfOneAreSingular() async throws {
        let page = try await Self.page("/browse?category=cactus", catalog: fixtureCatalog)
        #expect(page.contains("1 plant in Cactus, A–Z."))
        #expect(page.contains(#"<span class="visually-hidden">(1 plant)</span>"#))
        #expect(page.contains(#"<span class="visually-hidden">(2 plants)</span>"#))
        let lonely = PlantCatalog(plants: [CatalogPlant(scientificName: "Aloe vera", commonNames: [], family: "Asphodelaceae", category: .succulent)])
        try await makeApp(dependencies: ServerDependencies(catalog: lonely)).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.text.contains("1 houseplant to browse and search."))
            }
        }
    }

    @Test func categoryChipsAndListsCarryTheirIconBesideTheName() async throws {
        let page = try await Self.page("/browse", catalog: fixtureCatalog)
        for category in PlantCategory.allCases {
            #expect(page.contains("\(CategoryIcon.svg(category))\(HTML.escape(category.rawValue)) <span aria-hidden=\"true\">"))
        }
        #expect(page.contains(#"<span class="category">\#(CategoryIcon.svg(.cactus))Cactus</span>"#))
        let plant = try await Self.page("/plants/Mammillaria%20elongata", catalog: fixtureCatalog)
        #expect(plant.contains("\(CategoryIcon.svg(.cactus))Cactus</a>"))
    }

    @Test func everyCategoryHasItsOwnDecorativeLineIcon() {
        let icons = PlantCategory.allCases.map { CategoryIcon.svg($0).markup }
        #expect(Set(icons).count == PlantCategory.allCases.count)
        for icon in icons {
            #expect(icon.hasPrefix("<svg class=\"icon\" viewBox=\"0 0 24 24\""))
            #expect(icon.contains("aria-hidden=\"true\""))
            #expect(icon.contains("stroke=\"currentColor\""))
            #expect(!icon.contains("style="), "the CSP forbids inline styles")
            #expect(!icon.contains("href"), "nothing is fetched")
        }
    }
}
