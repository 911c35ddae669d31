import Foundation
import PlantCatalog
import PlantGuideCore

extension Pages {
    /// What a catalog plant's page shows.
    struct PlantModel {
        var plant: CatalogPlant
        var related: [CatalogPlant]
        /// The care guide's advice; `nil` when the server has no care guide.
        var care: CareProfile?
        /// The server's hemisphere, for the seasons.
        var hemisphere: Hemisphere
        /// This month (1–12), to mark the season it is now.
        var month: Int
        /// Whether the collection is there to add the plant to.
        var canCollect: Bool
        /// "Calathea orbifolia is now Goeppertia orbifolia …" when the page was asked for by a former or trade name.
        var notice: String? = nil
    }

    /// The row of former and trade names, if the plant has any.
    private static func former(_ plant: CatalogPlant) -> HTML {
        guard !plant.formerNames.isEmpty else { return "" }
        return "<tr><th scope=\"row\">Formerly</th><td class=\"sci\">\(plant.formerNames.joined(separator: ", "))</td></tr>"
    }

    static func plant(_ model: PlantModel, context: AppRequestContext) -> HTML {
        let plant = model.plant
        // The common name is what most people know a plant by; the scientific name says exactly which one it is.
        let heading: HTML =
            plant.commonNames.first.map { "<h1>\($0)</h1><p class=\"subtitle sci\">\(plant.scientificName)</p>" }
            ?? "<h1 class=\"sci\">\(plant.scientificName)</h1>"
        let otherNames = plant.commonNames.dropFirst()
        let names: HTML =
            plant.commonNames.isEmpty
            ? "<p>No common name recorded.</p>"
            : otherNames.isEmpty ? "" : "<p>Also called: \(otherNames.joined(separator: ", ")).</p>"
        let care: HTML = model.care.map { (profile: CareProfile) -> HTML in
            """
            <div class="cards">
            \(careProfile(profile, unit: context.temperatureUnit))
            \(seasons(profile, hemisphere: model.hemisphere, month: model.month))
            </div>
            """
        } ?? ""
        let relatedList: HTML =
            model.related.isEmpty
            ? "" : "<h2>Related plants</h2><ul class=\"plants\">\(model.related.prefix(12).map(plantItem))</ul>"
        let title = plant.commonNames.first.map { "\($0) (\(plant.scientificName))" } ?? plant.scientificName
        return Layout.page(
            title: title, tab: .browse, context: context,
            body: """
                <p><a href="/browse">← All plants</a></p>
                \(model.notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" as HTML } ?? "")
                \(heading)
                \(names)
                \(care)
                \(addForm(plant, context: context), if: model.canCollect)
                <h2>About</h2>
                <table>
                <tr><th scope="row">Family</th><td>\(plant.family)</td></tr>
                <tr><th scope="row">Genus</th><td class="sci">\(plant.name.genus)</td></tr>
                \(former(plant))
                <tr><th scope="row">Category</th><td><a class="chip" href="/browse?category=\(plant.category.argumentName)">\
                \(CategoryIcon.svg(plant.category))\(plant.category.rawValue)</a></td></tr>
                </table>
                <p class="row"><a class="button secondary" href="/identify">Identify a photo</a></p>
                \(relatedList)
                """
        )
    }

    /// The care guide's profile: light, water, feeding, humidity, temperature, repotting, pruning and pets.
    static func careProfile(_ profile: CareProfile, unit: TemperatureUnit) -> HTML {
        let light = profile.light == .directSun ? "Direct sun" : "\(sentenceCase(profile.light.rawValue)) light"
        let feeding = profile.fertilizeGrowingDays.map { "Every \(counted($0, "day")) in the growing season, none in winter" }
        let mist = profile.mistDays.map { "; mist every \(counted($0, "day")) (every \(counted($0 * 2, "day")) in winter)" } ?? ""
        let pets = profile.petToxicity
        let watering =
            "Every \(counted(profile.waterGrowingDays, "day")) in the growing season, every \(counted(profile.waterWinterDays, "day")) in winter"
        let repotting = profile.repotDays.map { "Every \(interval($0))" } ?? "Not needed"
        let pruning = profile.pruneDays.map { "Every \(counted($0, "day")) in the growing season" } ?? "Not needed"
        let rows: [(String, HTML)] = [
            ("Light", "\(light)"),
            ("Watering", "\(watering)"),
            ("Feeding", "\(feeding ?? "Not needed")"),
            ("Humidity", "\(sentenceCase(profile.humidity.rawValue) + mist)"),
            ("Temperature", "\(unit.range(celsius: profile.minTemperature, profile.maxTemperature))"),
            ("Repotting", "\(repotting)"),
            ("Pruning", "\(pruning)"),
            ("Pets", "\(pets) <span class=\"meta\">Reference: \(profile.toxicitySource)</span>"),
        ]
        let items: [HTML] = rows.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }
        return """
            <section class="card" aria-labelledby="care-title">
            <h2 id="care-title">Care profile</h2>
            <dl class="facts">\(items)</dl>
            <p class="meta">From PlantGuide's own care guide (\(profile.basis)): a starting point, not horticultural or \
            veterinary advice.</p>
            </section>
            """
    }

    /// What to do in the growing season and in the rest season, with their months in `hemisphere`.
    static func seasons(_ profile: CareProfile, hemisphere: Hemisphere, month: Int) -> HTML {
        let tasks: [(CareTask, String, String)] = [
            (.water, "Water", "No watering"), (.fertilize, "Feed", "No feeding"), (.mist, "Mist", "No misting"),
            (.prune, "Prune", "No pruning"),
        ]
        func season(rest: Bool) -> HTML {
            let name = rest ? "Rest season" : "Growing season"
            let now: HTML = hemisphere.isRestSeason(month: month) == rest ? " <span class=\"badge\">now</span>" : ""
            let items: [HTML] = tasks.compactMap { entry -> HTML? in
                let (task, verb, none) = entry
                // A task the plant never needs is left out; one it needs only in the other season says so.
                guard profile.growingInterval(for: task) != nil || profile.restInterval(for: task) != nil else { return nil }
                let days = rest ? profile.restInterval(for: task) : profile.growingInterval(for: task)
                let text = days.map { "\(verb) every \(counted($0, "day"))" } ?? none
                return "<li>\(text)</li>"
            }
            return """
                <h3>\(name): \(seasonMonths(hemisphere, rest: rest))\(now)</h3>
                <ul class="season">\(items)</ul>
                """
        }
        let half = hemisphere == .north ? "northern" : "southern"
        return """
            <section class="card" aria-labelledby="seasons-title">
            <h2 id="seasons-title">Through the year</h2>
            <p class="meta">Seasons of the \(half) hemisphere (Settings, "Seasons and time zone").</p>
            \(season(rest: false))
            \(season(rest: true))
            </section>
            """
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// The months of one season in a hemisphere, first to last, e.g. "April–September".
    static func seasonMonths(_ hemisphere: Hemisphere, rest: Bool) -> String {
        func inSeason(_ month: Int) -> Bool { hemisphere.isRestSeason(month: (month + 11) % 12 + 1) == rest }
        let months = Array(1...12)
        guard let first = months.first(where: { inSeason($0) && !inSeason($0 - 1) }),
              let last = months.first(where: { inSeason($0) && !inSeason($0 + 1) })
        else { return "all year" }
        return "\(monthNames[first - 1])–\(monthNames[last - 1])"
    }

    /// "Add to my plants": a new plant of this kind in the collection, with an optional nickname and room.
    static func addForm(_ plant: CatalogPlant, context: AppRequestContext) -> HTML {
        """
        <form class="card add-plant" method="post" action="/collection" aria-labelledby="add-title">
        \(Layout.csrfField(context))
        <input type="hidden" name="scientificName" value="\(plant.scientificName)">
        <h2 id="add-title">Add to my plants</h2>
        <p class="meta">Keeps this plant in your collection, with care reminders from its profile.</p>
        <label for="nickname">Nickname (optional)</label>
        <input id="nickname" name="nickname" type="text" maxlength="\(InputLimits.nicknameCharacters)">
        <label for="room">Room (optional)</label>
        <input id="room" name="room" type="text" maxlength="\(InputLimits.roomCharacters)">
        <p><button type="submit">Add to my plants</button></p>
        </form>
        """
    }

    /// A number of days as people say it: whole years as years, else days.
    private static func interval(_ days: Int) -> String {
        days % 365 == 0 ? (days == 365 ? "year" : counted(days / 365, "year")) : counted(days, "day")
    }

    private static func sentenceCase(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
