import Foundation
import PlantCatalog
import PlantGuideCore

extension Pages {
    static func identifyForm(capability: IdentificationCapability?, limit: Int, context: AppRequestContext) -> HTML {
        guard let capability else {
            return Layout.page(
                title: "Identify", tab: .identify, context: context,
                body: """
                    <h1>Identify a plant</h1>
                    \(Layout.unavailable("Identification", how: """
                    <p>This server has neither an on-device model nor a Pl@ntNet API key yet.</p>
                    <ul><li>Add a Pl@ntNet API key on the <a href="/settings">Settings</a> page, or</li>
                    <li>install an on-device model (see the <a href="/">start page</a>).</li></ul>
                    <p>Meanwhile you can <a href="/browse">browse the catalog</a>.</p>
                    """))
                    """
            )
        }
        let organs: [HTML] = PlantOrgan.allCases.map { "<option value=\"\($0.rawValue)\">\($0.label)</option>" }
        let strategies: [HTML] = capability.strategies.map { "<option value=\"\($0.rawValue)\">\($0.label)</option>" }
        return Layout.page(
            title: "Identify", tab: .identify, context: context,
            body: """
                <h1>Identify a plant</h1>
                <p>Take or choose a clear photo of one plant — a leaf or flower filling most of the picture works best.</p>
                <form class="card" method="post" action="/identify" enctype="multipart/form-data" data-loading="Identifying…">
                \(Layout.csrfField(context))
                <label for="photo">Photo</label>
                <input id="photo" name="photo" type="file" accept="image/*" capture="environment" required
                 aria-describedby="photo-help">
                <p id="photo-help" class="meta">JPEG, PNG, WebP or HEIC, up to \(limit / 1_048_576) MB.</p>
                <label for="organ">What does the photo show?</label>
                <select id="organ" name="organ">\(organs)</select>
                <label for="strategy">Identify with</label>
                <select id="strategy" name="strategy">\(strategies)</select>
                <p><button type="submit">Identify</button></p>
                <p class="loading" role="status"><span class="spinner" aria-hidden="true"></span>Identifying your photo… this can take a few seconds.</p>
                </form>
                <p class="meta">Using: \(capability.summary)</p>
                """
        )
    }

    static func identifyResults(_ result: IdentifyResult, canSave: Bool, context: AppRequestContext) -> HTML {
        let identification = result.outcome.identification
        let source: String =
            switch identification.source {
            case .onDevice: "On device"
            case .plantNetAPI: "Pl@ntNet"
            case .cache: "Cache"
            }
        var notices: [HTML] = []
        if result.outcome.offline {
            notices.append("<div class=\"notice\" role=\"status\"><strong>Offline:</strong> Pl@ntNet could not be reached, so this answer comes from the on-device model.</div>")
        }
        if let remaining = result.outcome.quotaRemaining, remaining < 50 {
            notices.append("<div class=\"notice\" role=\"status\"><strong>Quota:</strong> only \(remaining) Pl@ntNet identifications left today. They reset at midnight UTC.</div>")
        }
        for note in result.outcome.notes {
            notices.append("<div class=\"notice\" role=\"status\">\(note)</div>")
        }
        if identification.predictions.isEmpty {
            notices.append("<div class=\"notice error\" role=\"alert\">No plant was recognised in this photo. Try a closer photo of a leaf or flower.</div>")
        } else if identification.uncertain {
            let reason = identification.uncertainReason ?? "Compare the candidates below with your plant."
            notices.append("<div class=\"notice uncertain\" role=\"status\"><strong>Not sure:</strong> \(reason)</div>")
        }
        if let count = identification.photoCount, count > 1 {
            let agreeing = identification.agreeingPhotos.map { "; \($0) of \(count) had the best match first on their own" } ?? ""
            notices.append("<p class=\"meta\">\(count) photos combined\(agreeing).</p>")
        }
        let items: [HTML] = identification.predictions.map(predictionItem)
        let didYouMean: HTML =
            result.didYouMean.isEmpty
            ? "" : "<section aria-labelledby=\"dym\"><h2 id=\"dym\">Did you mean…</h2><ul class=\"plants\">\(result.didYouMean.prefix(5).map(plantItem))</ul></section>"
        let options: [HTML] = identification.predictions.map { "<option value=\"\($0.scientificName)\">\($0.scientificName)</option>" }
        let save: HTML =
            canSave && !identification.predictions.isEmpty
            ? """
            <form class="card" method="post" action="/collection">
            \(Layout.csrfField(context))
            <input type="hidden" name="uploadId" value="\(result.uploadID)">
            <h2>Save to collection</h2>
            <label for="scientificName">Species</label>
            <select id="scientificName" name="scientificName">\(options)</select>
            <label for="nickname">Nickname (optional)</label>
            <input id="nickname" name="nickname" type="text" maxlength="80">
            <label for="room">Room (optional)</label>
            <input id="room" name="room" type="text" maxlength="80">
            <p><button type="submit">Save to collection</button></p>
            </form>
            """ : ""
        let model: HTML = identification.model.map { " · \($0)" } ?? ""
        return Layout.page(
            title: "Results", tab: .identify, context: context,
            body: """
                <h1>Results</h1>
                \(notices)
                <div class="columns">
                <div>
                <img class="photo" src="/identify/uploads/\(result.uploadID)" alt="The photo you uploaded">
                <p><span class="badge source">Source: \(source)</span><span class="meta">\(identification.predictions.count) candidates\(model)</span></p>
                <p class="row"><a class="button secondary" href="/identify">Identify again</a></p>
                </div>
                <div>
                <ol class="results" aria-label="Candidates, best first">\(items)</ol>
                \(didYouMean)
                \(save)
                </div>
                </div>
                """
        )
    }

    /// One candidate: the common name first (the scientific name first when only a genus-level name is known,
    /// marked as such), then the confidence, family, the catalog entry with its care summary, and the catalog's
    /// plants of the same genus.
    static func predictionItem(_ prediction: SpeciesPrediction) -> HTML {
        let percent = Int((min(max(prediction.confidence, 0), 1) * 100).rounded())
        let level = prediction.confidence > 0.7 ? "high" : prediction.confidence >= 0.4 ? "mid" : "low"
        let title: HTML
        switch (prediction.commonNameLevel, prediction.commonNames.first) {
        case (.species?, let name?):
            let others: HTML = prediction.commonNames.count > 1
                ? "<span class=\"meta\">Also: \(prediction.commonNames.dropFirst().prefix(2).joined(separator: ", "))</span>" : ""
            title = """
                <strong class="common">\(name.prefix(1).uppercased() + name.dropFirst())</strong> \
                <span class="sci">\(prediction.scientificName)</span>\(others)
                """
        case (.genus?, let name?):
            title = """
                <strong class="sci">\(prediction.scientificName)</strong> \
                <span class="genus-name">\(name) <small>(name of the genus)</small></span>
                """
        default:
            title = "<strong class=\"sci\">\(prediction.scientificName)</strong>"
        }
        let family: HTML = prediction.family.map { "<span class=\"meta family\">Family \($0)</span>" } ?? ""
        var badge: HTML = ""
        if prediction.inCatalog {
            let details = [prediction.category?.rawValue, prediction.family].compactMap { $0 }.joined(separator: " · ")
            let care: HTML = prediction.careSummary.map { "<span class=\"meta care\">Care: \($0)</span>" } ?? ""
            badge = """
                <a class="badge db" href="/plants/\(urlComponent(prediction.scientificName))">Found in local database · \(details)</a>\(care)
                """
        }
        var related: HTML = ""
        if !prediction.relatedCatalogPlants.isEmpty {
            let links: [HTML] = prediction.relatedCatalogPlants.prefix(4).map { plant in
                let common: HTML = plant.commonNames.first.map { " (\($0))" } ?? ""
                return "<a href=\"/plants/\(urlComponent(plant.scientificName))\"><span class=\"sci\">\(plant.scientificName)</span>\(common)</a>"
            }
            related = """
                <p class="related"><span class="meta">Related plants in the catalog:</span> \(HTML(stringLiteral: links.map(\.description).joined(separator: ", ")))</p>
                """
        }
        return """
            <li data-rank="\(prediction.rank)"><span class="rank" aria-label="Rank \(prediction.rank)">\(prediction.rank)</span>\
            \(title)
            <div class="bar" role="meter" aria-valuemin="0" aria-valuemax="100" aria-valuenow="\(percent)"
             aria-label="Confidence \(percent) percent"><span class="\(level) pct-\(percent)"></span></div>
            <span class="confidence">\(percent) %</span> \(family)\(badge)\(related)
            </li>
            """
    }
}
