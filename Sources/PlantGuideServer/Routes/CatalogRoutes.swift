import Foundation
import Hummingbird
import NIOCore
import PlantCatalog
import PlantGuideCore
import Synchronization

/// Browse pages, catalog plant pages and the catalog's JSON API.
struct CatalogRoutes {
    let catalog: PlantCatalog?
    /// Care advice for the plant pages; without it they show no care profile.
    let careAdvice: CareAdviceCapability?
    /// Whether plant pages offer "Add to my plants".
    let canCollect: Bool
    let now: @Sendable () -> Date
    /// The household's hemisphere and time zone, for the plant pages' seasons; the server's when `nil`.
    var care: CareCapability? = nil
    /// Browse result lists already made: the catalog never changes while the server runs.
    let renderedResults = RenderedBrowseResults()
    /// Search API answers already written, for the same reason.
    let renderedAnswers = RenderedSearchAnswers()

    func register(on router: Router<AppRequestContext>) {
        router.get("/browse") { request, context in try browsePage(request, context: context) }
        router.get("/plants/:name") { _, context in try await plantPage(context) }
        router.get("/api/catalog/plants") { request, _ in try searchAPI(request) }
        router.get("/api/catalog/plants/:name") { _, context in try plantAPI(context) }
        router.get("/api/catalog/categories") { _, _ in try categoriesAPI() }
    }

    private func requireCatalog() throws -> PlantCatalog {
        guard let catalog else { throw ServerError.capabilityMissing("The plant catalog is not installed.") }
        return catalog
    }

    private func category(_ request: Request) throws -> PlantCategory? {
        guard let text = request.queryValue("category"), !text.isEmpty else { return nil }
        guard let category = PlantCategory(userInput: text) else {
            let names = PlantCategory.allCases.map(\.argumentName).joined(separator: ", ")
            throw ServerError.badRequest("Unknown category “\(text)”. Use one of: \(names).")
        }
        return category
    }

    /// The `page` asked for, 1 when there is none.
    private func pageNumber(_ request: Request) throws -> Int {
        guard let text = request.queryValue("page"), !text.isEmpty else { return 1 }
        guard let number = Int(text), number > 0 else { throw ServerError.badRequest("page must be a whole number from 1.") }
        return number
    }

    private func browsePage(_ request: Request, context: AppRequestContext) throws -> Response {
        let catalog = try requireCatalog()
        let query = (request.queryValue("q") ?? "").trimmingCharacters(in: .whitespaces)
        let category = try category(request)
        let number = try pageNumber(request)
        let key = RenderedBrowseResults.Key(query: query, category: category, page: number)
        if let known = renderedResults[key] {
            if request.queryValue("partial") == "1" { return .html(known.results) }
            return .html(Pages.browse(known.model, results: known.results, context: context))
        }
        let everything = query.isEmpty ? try catalog.allPlants() : try catalog.search(query).map(\.plant)
        var categoryCounts: [PlantCategory: Int] = [:]
        for plant in everything { categoryCounts[plant.category, default: 0] += 1 }
        // Without a query the list is A–Z by letter sections; with one it is best match first.
        let sections = query.isEmpty ? try catalog.browse(category: category) : []
        let listed = query.isEmpty ? sections.flatMap(\.plants) : everything.filter { category == nil || $0.category == category }
        guard let pager = Pager(number: number, total: listed.count) else {
            let pages = Pager(number: 1, total: listed.count)?.pageCount ?? 1
            throw ServerError.notFound("Page \(number) of this list (it has \(counted(pages, "page")))")
        }
        var model = Pages.BrowseModel(
            query: query, category: category, count: listed.count, categoryCounts: categoryCounts, pager: pager
        )
        if query.isEmpty {
            // Every letter links to the page its first plant is on; this page shows the parts of sections it holds.
            var position = 0
            for section in sections {
                let span = position..<position + section.plants.count
                model.letters.append(Pages.LetterLink(letter: section.letter, page: Pager.page(of: position)))
                let here = span.clamped(to: pager.range)
                if !here.isEmpty {
                    let plants = section.plants[(here.lowerBound - position)..<(here.upperBound - position)]
                    model.sections.append(Pages.LetterSection(letter: section.letter, plants: Array(plants)))
                }
                position = span.upperBound
            }
        } else {
            model.hits = Array(listed[pager.range])
        }
        let results = Pages.browseResults(model)
        // What the page around the list needs of the model; the plants are in the list already.
        var outline = model
        (outline.sections, outline.hits, outline.letters) = ([], [], [])
        renderedResults[key] = (outline, results)
        if request.queryValue("partial") == "1" {
            return .html(results)
        }
        return .html(Pages.browse(model, results: results, context: context))
    }

    /// The plant the address names, and the synonym that led to it when the name is a former or trade name.
    private func plantNamed(_ context: AppRequestContext) throws -> (plant: CatalogPlant, synonym: PlantSynonym?) {
        let catalog = try requireCatalog()
        let raw = context.parameters.get("name") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        guard let found = try catalog.resolve(name) else { throw ServerError.notFound("The plant “\(name)”") }
        return found
    }

    private func plantPage(_ context: AppRequestContext) async throws -> Response {
        let (plant, synonym) = try plantNamed(context)
        let related = try requireCatalog().suggestMatches(for: plant.scientificName, confidence: 1).filter { $0 != plant }
        // The seasons of the household that asks (Settings), where it chose them; the server's otherwise.
        let household = try? await care?.settings()
        let hemisphere = household.map { $0.hemisphere } ?? careAdvice?.hemisphere ?? .north
        let month = CalendarDay(now(), in: household?.timeZone ?? .current).month
        let model = Pages.PlantModel(
            plant: plant, related: related, care: careAdvice?.profile(plant), hemisphere: hemisphere,
            month: month, canCollect: canCollect, notice: synonym?.notice(for: plant)
        )
        return .html(Pages.plant(model, context: context))
    }

    private func searchAPI(_ request: Request) throws -> Response {
        let catalog = try requireCatalog()
        let query = request.queryValue("q") ?? ""
        let family = request.queryValue("family").flatMap { $0.isEmpty ? nil : $0 }
        var limit: Int?
        if let text = request.queryValue("limit") {
            guard let value = Int(text), value > 0 else { throw ServerError.badRequest("limit must be a positive whole number.") }
            limit = value
        }
        let category = try category(request)
        let key = RenderedSearchAnswers.Key(query: query, family: family, limit: limit, category: category)
        if let known = renderedAnswers[key] {
            return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: known))
        }
        let plants: [CatalogPlant]
        if query.trimmingCharacters(in: .whitespaces).isEmpty {
            plants = try catalog.plants(category: category, family: family)
        } else {
            plants = try catalog.search(query, category: category, family: family).map(\.plant)
        }
        let page = Array(plants.prefix(limit ?? plants.count))
        let body = PlantListBody(count: plants.count, plants: page)
        var writer = JSONWriter()
        body.write(to: &writer)
        guard !writer.failed else { return JSONResponse.make(body) }
        let answer = writer.buffer
        renderedAnswers[key] = answer
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: answer))
    }

    private func plantAPI(_ context: AppRequestContext) throws -> Response {
        let plant = try plantNamed(context).plant
        let related = try requireCatalog().suggestMatches(for: plant.scientificName, confidence: 1).filter { $0 != plant }
        return JSONResponse.make(PlantDetailBody(plant: plant, related: related))
    }

    private func categoriesAPI() throws -> Response {
        let statistics = try requireCatalog().statistics()
        let categories = PlantCategory.allCases.map {
            CategoryBody(name: $0.rawValue, slug: $0.argumentName, count: statistics.categories[$0.rawValue] ?? 0)
        }
        return JSONResponse.make(categories)
    }
}

/// Browse result lists by search, category and page, as ``Pages/browseResults(_:)`` made them, with the model they
/// were made of; at most 256, all forgotten at once when full (a new list costs one search and one rendering).
final class RenderedBrowseResults: Sendable {
    struct Key: Hashable, Sendable {
        var query: String
        var category: PlantCategory?
        var page: Int
    }

    private let lists = Mutex<[Key: (model: Pages.BrowseModel, results: HTML)]>([:])

    subscript(key: Key) -> (model: Pages.BrowseModel, results: HTML)? {
        get { lists.withLock { $0[key] } }
        set {
            // Long queries are rarely asked twice.
            guard let newValue, key.query.utf8.count <= 64 else { return }
            lists.withLock { lists in
                if lists.count >= 256 { lists.removeAll(keepingCapacity: true) }
                lists[key] = newValue
            }
        }
    }
}

/// Search API answers by their question, as written: at most 256, all forgotten at once when full.
final class RenderedSearchAnswers: Sendable {
    struct Key: Hashable, Sendable {
        var query: String
        var family: String?
        var limit: Int?
        var category: PlantCategory?
    }

    private let answers = Mutex<[Key: ByteBuffer]>([:])

    subscript(key: Key) -> ByteBuffer? {
        get { answers.withLock { $0[key] } }
        set {
            guard let newValue, key.query.utf8.count <= 64, (key.family?.utf8.count ?? 0) <= 64 else { return }
            answers.withLock { answers in
                if answers.count >= 256 { answers.removeAll(keepingCapacity: true) }
                answers[key] = newValue
            }
        }
    }
}

struct PlantListBody: Codable, Sendable {
    var count: Int
    var plants: [CatalogPlant]
}

struct PlantDetailBody: Codable, Sendable {
    var plant: CatalogPlant
    var related: [CatalogPlant]
}

struct CategoryBody: Codable, Sendable {
    var name: String
    var slug: String
    var count: Int
}
