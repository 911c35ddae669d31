import Foundation
import PlantCatalog
import PlantGuideCore

extension Pages {
    struct BrowseModel {
        var query: String
        var category: PlantCategory?
        var sections: [CatalogSection]
        var hits: [CatalogPlant]
        var count: Int
        var categoryCounts: [PlantCategory: Int]
    }

    static func browse(_ model: BrowseModel, context: AppRequestContext) -> HTML {
        let hidden: HTML = model.category.map { "<input type=\"hidden\" name=\"category\" value=\"\($0.argumentName)\">" } ?? ""
        return Layout.page(
            title: "Browse", tab: .browse, context: context,
            body: """
                <h1>Browse plants <span class="badge" id="count" aria-live="polite">\(model.count)</span></h1>
                <form class="search" role="search" action="/browse" method="get">
                <label for="q">Search by name, family or genus</label>
                <input id="q" name="q" type="search" value="\(model.query)" autocomplete="off" spellcheck="false"
                 placeholder="e.g. snake plant, monstera, Araceae" data-live-search>
                \(hidden)
                <button type="submit">Search</button>
                </form>
                <div id="results" aria-live="polite">\(browseResults(model))</div>
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
                <li><a class="chip" href="/browse?category=\(category.argumentName)\(queryPart)"\(current)>\
                \(category.rawValue) <span class="visually-hidden">(</span>\(count)<span class="visually-hidden"> plants)</span></a></li>
                """
        }
        let allHref = model.query.isEmpty ? "/browse" : "/browse?q=\(urlComponent(model.query))"
        let chipBar: HTML = """
            <nav aria-label="Categories"><ul class="chips">
            <li><a class="chip" href="\(allHref)"\(allCurrent)>All</a></li>
            \(chips)
            </ul></nav>
            """
        let noun = model.count == 1 ? "plant" : "plants"
        let where_: String = model.category.map { " in \($0.rawValue)" } ?? ""
        let summary: HTML =
            model.query.isEmpty
            ? "<p data-count=\"\(model.count)\">\(model.count) \(noun)\(where_), A–Z.</p>"
            : "<p data-count=\"\(model.count)\">\(model.count) \(noun)\(where_) match “\(model.query)”.</p>"
        if !model.query.isEmpty {
            guard !model.hits.isEmpty else {
                return "\(chipBar)\(summary)<p>Try fewer letters, another spelling, or a common name.</p>"
            }
            return "\(chipBar)\(summary)<ol class=\"plants\">\(model.hits.map(plantItem))</ol>"
        }
        let letters: [HTML] = model.sections.map { "<li><a href=\"#letter-\($0.letter)\">\($0.letter)</a></li>" }
        let sections: [HTML] = model.sections.map { section in
            """
            <section aria-labelledby="letter-\(section.letter)">
            <h2 id="letter-\(section.letter)">\(section.letter)</h2>
            <ul class="plants">\(section.plants.map(plantItem))</ul>
            </section>
            """
        }
        return """
            \(chipBar)
            \(summary)
            <nav aria-label="Jump to letter"><ul class="az">\(letters)</ul></nav>
            \(sections)
            """
    }

    static func plantItem(_ plant: CatalogPlant) -> HTML {
        let common: HTML = plant.commonNames.isEmpty ? "" : " — \(plant.commonNames.prefix(3).joined(separator: ", "))"
        return """
            <li><a class="sci" href="/plants/\(urlComponent(plant.scientificName))">\(plant.scientificName)</a>\(common)\
            <span class="meta">\(plant.family) · \(plant.category.rawValue)</span></li>
            """
    }
}
