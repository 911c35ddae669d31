import Foundation
import PlantCatalog
import PlantGuideCore
import Synchronization

extension Pages {
    /// A letter of the A–Z jump and the page that holds the first plant under it.
    struct LetterLink: Equatable {
        var letter: String
        var page: Int
    }

    /// The plants of one letter that are on this page.
    struct LetterSection {
        var letter: String
        var plants: [CatalogPlant]
    }

    struct BrowseModel {
        var query: String
        var category: PlantCategory?
        /// Plants that match, on every page.
        var count: Int
        var categoryCounts: [PlantCategory: Int]
        var pager: Pager
        /// This page's plants by first letter (the A–Z listing, without a query).
        var sections: [LetterSection] = []
        /// This page's search results, best first.
        var hits: [CatalogPlant] = []
        /// Every letter of the whole A–Z listing.
        var letters: [LetterLink] = []

        /// The address of one page of this list, with its search and category.
        func href(page: Int) -> String {
            var parts: [String] = []
            if !query.isEmpty { parts.append("q=\(urlComponent(query))") }
            if let category { parts.append("category=\(category.slug)") }
            if page > 1 { parts.append("page=\(page)") }
            return parts.isEmpty ? "/browse" : "/browse?" + parts.joined(separator: "&")
        }
    }

    static func browse(_ model: BrowseModel, context: AppRequestContext) -> HTML {
        browse(model, results: browseResults(model), context: context)
    }

    /// The Browse page around `results`, the part ``browseResults(_:)`` made of `model` (perhaps for an earlier
    /// request: it depends on the model alone).
    static func browse(_ model: BrowseModel, results: HTML, context: AppRequestContext) -> HTML {
        let hidden: HTML = model.category.map { "<input type=\"hidden\" name=\"category\" value=\"\($0.slug)\">" } ?? ""
        let title = model.pager.number > 1 ? "Browse, page \(model.pager.number)" : "Browse"
        return Layout.page(
            title: title, tab: .browse, context: context,
            body: """
                <h1>Browse plants <span class="badge" id="count" aria-live="polite">\(model.count)</span></h1>
                <form class="search" role="search" action="/browse" method="get">
                <label for="q">Search by name, family or genus</label>
                <input id="q" name="q" type="search" value="\(model.query)" spellcheck="false"
                 placeholder="e.g. snake plant, monstera, Araceae" data-live-search>
                \(hidden)
                <button type="submit">Search</button>
                </form>
                <div id="results" aria-live="polite">\(results)</div>
                """
        )
    }

    /// The part of the Browse page that search-as-you-type replaces.
    static func browseResults(_ model: BrowseModel) -> HTML {
        let allCurrent: HTML = model.category == nil ? #" aria-current="page""# : ""
        let queryPart = model.query.isEmpty ? "" : "&q=\(urlComponent(model.query))"
        let chips: [HTML] = PlantCategory.allCases.map { category in
            let current: HTML = category == model.category ? #" aria-current="page""# : ""
            let count = model.categoryCounts[category] ?? 0
            return """
                <li><a class="chip" href="/browse?category=\(category.slug)\(queryPart)"\(current)>\
                \(CategoryIcon.svg(category))\(category.rawValue) <span aria-hidden="true">\(count)</span>\
                <span class="visually-hidden">(\(counted(count, "plant")))</span></a></li>
                """
        }
        let allHref = model.query.isEmpty ? "/browse" : "/browse?q=\(urlComponent(model.query))"
        let chipBar: HTML = """
            <nav aria-label="Categories"><ul class="chips">
            <li><a class="chip" href="\(allHref)"\(allCurrent)>All</a></li>
            \(chips)
            </ul></nav>
            """
        let where_: String = model.category.map { " in \($0.rawValue)" } ?? ""
        let pager = model.pager
        let range = pager.pageCount > 1 && !pager.range.isEmpty
            ? " Page \(pager.number) of \(pager.pageCount): \(pager.range.lowerBound + 1)–\(pager.range.upperBound)." : ""
        let summary: HTML =
            model.query.isEmpty
            ? "<p data-count=\"\(model.count)\">\(counted(model.count, "plant"))\(where_), A–Z.\(range)</p>"
            : "<p data-count=\"\(model.count)\">\(counted(model.count, "plant"))\(where_) \(model.count == 1 ? "matches" : "match") “\(model.query)”.\(range)</p>"
        let navigation = pager.navigation(label: "Pages of the list", href: model.href(page:))
        if !model.query.isEmpty {
            guard !model.hits.isEmpty else {
                return "\(chipBar)\(summary)<p>Try fewer letters, another spelling, or a common name.</p>"
            }
            return "\(chipBar)\(summary)<ol class=\"plants\" start=\"\(pager.range.lowerBound + 1)\">\(plantItems(model.hits))</ol>\(navigation)"
        }
        // Each letter links to the page that holds it, so the jump works across pages and without JavaScript.
        let letters: [HTML] = model.letters.map { link in
            "<li><a href=\"\(model.href(page: link.page))#letter-\(link.letter)\">\(link.letter)</a></li>"
        }
        let sections: [HTML] = model.sections.map { section in
            """
            <section aria-labelledby="letter-\(section.letter)">
            <h2 id="letter-\(section.letter)">\(section.letter)</h2>
            <ul class="plants">\(plantItems(section.plants))</ul>
            </section>
            """
        }
        return """
            \(chipBar)
            \(summary)
            <nav aria-label="Jump to letter"><ul class="az">\(letters)</ul></nav>
            \(sections)
            \(navigation)
            """
    }

    /// The list items of `plants`, each made once per plant and then kept: an item depends on nothing but its
    /// (unchanging) catalog entry, and a Browse page shows up to 60 of them.
    static func plantItems(_ plants: [CatalogPlant]) -> HTML {
        let items = renderedItems.withLock { cache -> [HTML] in
            plants.map { plant in
                if let known = cache[plant.scientificName], known.plant == plant { return known.item }
                let item = plantItem(plant)
                if cache.count >= 4096 { cache.removeAll(keepingCapacity: true) }
                cache[plant.scientificName] = (plant, item)
                return item
            }
        }
        return items.joined()
    }

    private static let renderedItems = Mutex<[String: (plant: CatalogPlant, item: HTML)]>([:])

    static func plantItem(_ plant: CatalogPlant) -> HTML {
        let common: HTML = plant.commonNames.isEmpty ? "" : " — \(plant.commonNames.prefix(3).joined(separator: ", "))"
        return """
            <li><a class="sci" href="/plants/\(urlComponent(plant.scientificName))">\(plant.scientificName)</a>\(common)\
            <span class="meta">\(plant.family) · <span class="category">\(CategoryIcon.svg(plant.category))\(plant.category.rawValue)</span></span></li>
            """
    }
}

extension PlantCategory {
    /// ``PlantGuideCore/PlantCategory/argumentName``, worked out once per category: every Browse page links each
    /// category, and working it out (lower-casing and replacing) cost more than the rest of a chip.
    var slug: String { Self.slugs[self] ?? argumentName }

    private static let slugs: [PlantCategory: String] = Dictionary(uniqueKeysWithValues: allCases.map { ($0, $0.argumentName) })
}
