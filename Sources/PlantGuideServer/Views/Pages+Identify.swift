import Foundation
import PlantCatalog
import PlantGuideCore
import PlantNetAPI

extension Pages {
    static func identifyForm(
        capability: IdentificationCapability?, limit: Int, modelProblem: String? = nil,
        install: (choices: [ModelInstallCapability.Choice], status: ModelInstallStatus)? = nil, context: AppRequestContext
    ) -> HTML {
        guard let capability else {
            if let install, context.mayChangeInstallation {
                return firstRun(install, modelProblem: modelProblem, context: context)
            }
            return Layout.page(
                title: "Identify", tab: .identify, context: context,
                body: """
                    <h1>Identify a plant</h1>
                    \(Layout.unavailable("Identification", how: """
                    <p>This server has neither an on-device model nor a Pl@ntNet API key yet.</p>
                    \(modelProblem.map { "<p class=\"error\" role=\"status\">\($0)</p>" as HTML } ?? "")
                    <ul><li>Add a Pl@ntNet API key on the <a href="/settings">Settings</a> page, or</li>
                    <li>install an on-device model (see the <a href="/">start page</a>).</li></ul>
                    <p>Meanwhile you can <a href="/browse">browse the catalog</a>.</p>
                    """))
                    """
            )
        }
        let organs: [HTML] = PlantNetOrgan.webChoices.map { "<option value=\"\($0.rawValue)\">\($0.label)</option>" }
        let strategies: [HTML] = capability.strategies.map { strategy in
            let selected = strategy == capability.defaultStrategy ? " selected" : ""
            return "<option value=\"\(strategy.rawValue)\"\(selected)>\(strategy.label)</option>"
        }
        return Layout.page(
            title: "Identify", tab: .identify, context: context,
            body: """
                <h1>Identify a plant</h1>
                <p>Photograph one plant. Up to \(PhotoUploadRules.maximumPhotos) photos of it — a leaf, a flower, the whole plant — identify it better than one.</p>
                <form class="card" method="post" action="/identify" enctype="multipart/form-data" data-identify
                 data-loading="Identifying…" data-max-photos="\(PhotoUploadRules.maximumPhotos)" data-max-bytes="\(limit)">
                \(Layout.csrfField(context))
                <fieldset>
                <legend>Photos of one plant (1 to \(PhotoUploadRules.maximumPhotos))</legend>
                <label for="camera">Take a photo</label>
                <input id="camera" name="photo" type="file" accept="image/*" capture="environment" aria-describedby="photo-help">
                <label for="library">Or choose photos</label>
                <input id="library" name="photo" type="file" accept="image/*" multiple aria-describedby="photo-help">
                <p id="photo-help" class="meta">\(ImageFormat.acceptedNames); up to \(limit / 1_048_576) MB in all.</p>
                <ol class="previews" id="previews" aria-label="Chosen photos"></ol>
                <p class="notice error" id="photo-error" role="alert" hidden></p>
                <div id="organ-all">
                <label for="organ">What do the photos show?</label>
                <select id="organ" name="organ">\(organs)</select>
                </div>
                </fieldset>
                <label for="strategy">Identify with</label>
                <select id="strategy" name="strategy">\(strategies)</select>
                <p><button type="submit">Identify</button></p>
                <div class="loading" role="status" aria-live="polite">
                <progress id="progress" max="100" aria-label="Progress"></progress>
                <span id="progress-text">Identifying your photos… this can take a few seconds.</span>
                </div>
                </form>
                <p class="meta">Using: \(capability.summary)\(capability.diagnosis == nil ? "" : " · Plant looks sick? <a href=\"/diagnose\">Something wrong?</a>" as HTML)</p>
                \(onlineStatus(capability.online?.status(), back: "/identify", context: context))
                """
        )
    }

    /// Pl@ntNet's reachability as the server sees it, with "Check again" when it could not be reached. Nothing when
    /// Pl@ntNet is not configured or answers.
    static func onlineStatus(_ status: OnlineStatus?, back: String, context: AppRequestContext) -> HTML {
        guard let status, !status.reachable || status.lastFailure != nil else { return "" }
        let since = status.lastFailure.map { " (last tried \(Layout.time($0)))" } ?? ""
        let until = status.retryAfter.map { "; identifications answer on this device until \(Layout.time($0))" } ?? ""
        return """
            <form class="notice online-status" method="post" action="/identify/check-online" role="status">
            \(Layout.csrfField(context))
            <input type="hidden" name="back" value="\(back)">
            <p><strong>Pl@ntNet could not be reached</strong>\(since)\(until).</p>
            <p><button type="submit" class="secondary">Check again</button></p>
            </form>
            """
    }

    static func identifyResults(_ result: IdentifyResult, saving plants: [CollectionEntry]?, context: AppRequestContext) -> HTML {
        let identification = result.outcome.identification
        var notices: [HTML] = []
        if result.outcome.offline {
            notices.append("""
                <form class="notice" method="post" action="/identify/check-online" role="status">\(Layout.csrfField(context))\
                <input type="hidden" name="back" value="/identify/results/\(result.uploadID)">\
                <p><strong>Offline:</strong> Pl@ntNet could not be reached, so this answer comes from the on-device model.</p>\
                <p><button type="submit" class="secondary">Check again</button> <a href="/identify">then identify again</a></p></form>
                """)
        }
        // The quota is said only when this answer used it (not for device answers or cached ones), in the levels the
        // command line names the same way.
        if identification.source == .plantNetAPI, let remaining = result.outcome.quotaRemaining {
            let level = QuotaLevel(remaining: remaining)
            if level.isWarning {
                notices.append("""
                    <div class="notice" role="status"><strong>Pl@ntNet quota \(level.label):</strong> \
                    \(counted(remaining, "identification")) left today. They reset at midnight UTC.</div>
                    """)
            }
        }
        for note in result.outcome.notes {
            notices.append("<div class=\"notice\" role=\"status\">\(note)</div>")
        }
        if let reason = result.queuedForRecheck {
            notices.append("""
                <div class="notice" role="status"><strong>Queued for a Pl@ntNet re-check</strong> (the device answered because \
                \(reason.label)). PlantGuide sends these photos to Pl@ntNet by itself when it can; if you keep this plant and \
                Pl@ntNet names another species, its page will ask you. Unsaved answers are re-checked within 30 days.</div>
                """)
        }
        if identification.predictions.isEmpty {
            notices.append("<div class=\"notice error\" role=\"alert\">No plant was recognised in these photos. Try a closer photo of a leaf or flower.</div>")
        } else if identification.uncertain {
            let reason = identification.uncertainReason ?? "Compare the candidates below with your plant."
            notices.append("<div class=\"notice uncertain\" role=\"status\"><strong>Not sure:</strong> \(reason)</div>")
        }
        if let count = identification.photoCount, count > 1 {
            let agreeing = identification.agreeingPhotos.map { "; \($0) of \(count) had the best match first on their own" } ?? ""
            notices.append("<p class=\"meta\">\(count) photos combined\(agreeing).</p>")
        }
        let items: [HTML] = identification.predictions.map { predictionItem($0, unit: context.temperatureUnit) }
        let didYouMean: HTML =
            result.didYouMean.isEmpty
            ? "" : "<section aria-labelledby=\"dym\"><h2 id=\"dym\">Did you mean…</h2><ul class=\"plants\">\(result.didYouMean.prefix(5).map(plantItem))</ul></section>"
        let photos: [HTML] = result.organs.enumerated().map { index, organ in
            let caption = organ == .auto ? "Photo \(index + 1)" : "Photo \(index + 1): \(organ.label.lowercased())"
            return """
                <li><figure><img src="/identify/uploads/\(result.uploadID)/\(index + 1)" alt="\(caption), as you sent it">\
                <figcaption>\(caption)</figcaption></figure></li>
                """
        }
        let save: HTML = plants.map { saveForm(result, plants: $0, context: context) } ?? ""
        let yours: HTML = plants == nil ? "" : collectionMatches(result, context: context)
        return Layout.page(
            title: "Results", tab: .identify, context: context,
            body: """
                <h1>Results</h1>
                \(notices)
                <div class="columns">
                <div>
                <ul class="sent-photos\(result.organs.count == 1 ? " single" : "")" aria-label="Your photos">\(photos)</ul>
                <p>\(sourceBadge(result))<span class="meta">\(counted(identification.predictions.count, "candidate"))\(identification.model.map { " · model \($0)" } ?? "")</span></p>
                <p class="meta timings">\(timingsLine(result.timings))</p>
                <p class="row"><a class="button secondary" href="/identify">Identify another plant</a></p>
                </div>
                <div>
                \(yours)
                <ol class="results" aria-label="Candidates, best first">\(items)</ol>
                \(didYouMean)
                \(save)
                </div>
                </div>
                """
        )
    }

    /// Where the answer came from, with the cache said as such (no Pl@ntNet call, no quota spent).
    static func sourceBadge(_ result: IdentifyResult) -> HTML {
        switch result.outcome.identification.source {
        case .onDevice: "<span class=\"badge source\">Source: on this device</span>"
        case .plantNetAPI: "<span class=\"badge source\">Source: Pl@ntNet</span>"
        case .cache: "<span class=\"badge source\">Source: Pl@ntNet, from the cache (no quota used)</span>"
        }
    }

    /// "Answered in 1.2 s: queue 0 ms · decode 40 ms · preprocess 12 ms · inference 340 ms · Pl@ntNet 800 ms".
    static func timingsLine(_ timings: [String: Double]) -> HTML {
        func format(_ milliseconds: Double) -> String {
            milliseconds >= 1000 ? String(format: "%.1f s", milliseconds / 1000) : "\(Int(milliseconds.rounded())) ms"
        }
        let parts = IdentificationStage.allCases.filter { $0 != .total }.compactMap { stage in
            // Mid-sentence: "inference 340 ms", but Pl@ntNet keeps its capitals.
            timings[stage: stage].map { "\(stage == .request ? "Pl@ntNet" : stage.label.lowercased()) \(format($0))" }
        }
        guard let total = timings[stage: .total] else { return HTML(stringLiteral: parts.joined(separator: " · ")) }
        return HTML(stringLiteral: "Answered in \(format(total))" + (parts.isEmpty ? "" : ": " + parts.joined(separator: " · ")))
    }

    /// "This is my plant": the species (any candidate), and a new plant or one already in the collection. The
    /// photos of the identification are stored with it.
    static func saveForm(_ result: IdentifyResult, plants: [CollectionEntry], context: AppRequestContext) -> HTML {
        let identification = result.outcome.identification
        guard !identification.predictions.isEmpty else { return "" }
        let names = identification.predictions.map(\.scientificName) + result.didYouMean.map(\.scientificName)
        let options: [HTML] = names.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.map { name in
            "<option value=\"\(name)\">\(name)</option>"
        }
        let existing: [HTML] = plants.map { plant in
            let label = [plant.nickname, plant.scientificName, plant.room].compactMap { $0 }.joined(separator: " · ")
            return "<option value=\"\(plant.id)\">\(label)</option>"
        }
        let choosePlant: HTML = plants.isEmpty ? "" : """
            <label for="plantId">Which plant is it?</label>
            <select id="plantId" name="plantId"><option value="new" selected>A new plant</option>\(existing)</select>
            """
        let count = result.organs.count
        return """
            <form class="card" method="post" action="/collection">
            \(Layout.csrfField(context))
            <input type="hidden" name="uploadId" value="\(result.uploadID)">
            <h2>This is my plant</h2>
            <p class="meta">Keeps \(count == 1 ? "the photo" : "the \(count) photos") and this answer in your collection.</p>
            <label for="scientificName">Species</label>
            <select id="scientificName" name="scientificName">\(options)</select>
            \(choosePlant)
            <label for="nickname">Nickname (new plant, optional)</label>
            <input id="nickname" name="nickname" type="text" maxlength="\(InputLimits.nicknameCharacters)">
            <label for="room">Room (new plant, optional)</label>
            <input id="room" name="room" type="text" maxlength="\(InputLimits.roomCharacters)">
            <p><button type="submit">This is my plant</button></p>
            </form>
            """
    }

    /// "Is this Spike?": the owner's plants the photo most likely shows, each with one button that files the photos
    /// and the answer under it, and one that logs today's watering.
    static func collectionMatches(_ result: IdentifyResult, context: AppRequestContext) -> HTML {
        let identification = result.outcome.identification
        let items: [HTML] = (identification.collectionMatches ?? []).map { match in
            let name = match.nickname ?? match.name
            let species = match.scientificName ?? identification.best?.scientificName ?? match.name
            let details = [match.scientificName, match.room].compactMap { $0 }.joined(separator: " · ")
            let similarity = Int((min(max(match.similarity, 0), 1) * 100).rounded())
            let plant = String(match.plantId)
            return """
                <section class="card collection-match" aria-labelledby="match-\(plant)">
                <h2 id="match-\(plant)">Is this <a href="/collection/\(plant)">\(name)</a>?</h2>
                <p class="meta">\(details.isEmpty ? "" : details + " · ")\(similarity) % similar to one of its photos</p>
                <form method="post" action="/collection">
                \(Layout.csrfField(context))
                <input type="hidden" name="uploadId" value="\(result.uploadID)">
                <input type="hidden" name="plantId" value="\(plant)">
                <input type="hidden" name="scientificName" value="\(species)">
                <p><button type="submit">Yes, add the photo to \(name)</button></p>
                </form>
                <form method="post" action="/care/\(plant)-water/done">
                \(Layout.csrfField(context))
                <input type="hidden" name="back" value="/collection/\(plant)">
                <p><button type="submit" class="secondary">Yes, and I watered it today</button></p>
                </form>
                </section>
                """
        }
        return HTML(stringLiteral: items.map(\.markup).joined())
    }

    /// One candidate: the common name first (the scientific name first when only a genus-level name is known,
    /// marked as such), then the confidence, family, the catalog entry with its care summary, and the catalog's
    /// plants of the same genus.
    static func predictionItem(_ prediction: SpeciesPrediction, unit: TemperatureUnit) -> HTML {
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
        var badge: HTML = prediction.source == .collection ? "<span class=\"badge mine\">From your confirmed photos</span>" : ""
        if prediction.inCatalog {
            let details = [prediction.category?.rawValue, prediction.family].compactMap { $0 }.joined(separator: " · ")
            let care: HTML = prediction.careSummary.map {
                "<span class=\"meta care\">Care: \(unit.convertingRanges(in: $0))</span>"
            } ?? ""
            badge = """
                \(badge)<a class="badge db" href="/plants/\(urlComponent(prediction.scientificName))">Found in local database · \(details)</a>\(care)
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
        let kept = prediction.referenceImages.filter { $0.localID != nil }
        var references: HTML = ""
        if !kept.isEmpty {
            let figures: [HTML] = kept.map { image in
                let organ = image.organ.map { " (\($0))" } ?? ""
                return """
                    <li><figure><img src="/identify/reference-photos/\(image.localID ?? "")" loading="lazy" \
                    alt="Pl@ntNet reference photo of \(prediction.scientificName)\(organ)"><figcaption>\(image.credit)</figcaption></figure></li>
                    """
            }
            references = """
                <p class="meta compare">Compare with Pl@ntNet's photos of \(prediction.scientificName):</p>
                <ul class="references">\(figures)</ul>
                """
        }
        return """
            <li data-rank="\(prediction.rank)"><span class="rank" aria-label="Rank \(prediction.rank)">\(prediction.rank)</span>\
            \(title)
            <div class="bar" role="img" data-percent="\(percent)"
             aria-label="Confidence \(percent) percent"><span class="\(level) pct-\(percent)"></span></div>
            <span class="confidence">\(percent) %</span> \(family)\(badge)\(related)\(references)
            </li>
            """
    }
}
