import Foundation
import PlantGuideCore
import PlantNetAPI
import PlantStore

extension Pages {
    /// "Something wrong?": photos of the sick part of one plant (from a collection plant's page, `plant` is it).
    static func diagnoseForm(available: Bool, plant: CollectionEntry?, limit: Int, context: AppRequestContext) -> HTML {
        let name = plant.map { $0.nickname ?? $0.scientificName }
        let heading: HTML = name.map { "What’s wrong with \($0)?" } ?? "What’s wrong with my plant?"
        guard available else {
            return Layout.page(
                title: "Diagnose", tab: plant == nil ? .identify : .collection, context: context,
                body: """
                    <h1>\(heading)</h1>
                    \(Layout.unavailable("Diagnosis", how: """
                    <p>Diagnosis asks Pl@ntNet’s disease service, which needs a Pl@ntNet API key: add one on the \
                    <a href="/settings">Settings</a> page.</p>
                    """))
                    """
            )
        }
        let organs: [HTML] = DiagnoseRoutes.organs.map { "<option value=\"\($0.rawValue)\">\($0.label)</option>" }
        let plantField: HTML = plant.map { "<input type=\"hidden\" name=\"plant\" value=\"\($0.id)\">" } ?? ""
        return Layout.page(
            title: "Diagnose", tab: plant == nil ? .identify : .collection, context: context,
            body: """
                <h1>\(heading)</h1>
                <p>Photograph the sick part up close in daylight: a spotted leaf (its upper and lower side), a flower or a \
                fruit. Pl@ntNet’s disease service compares the photos with the diseases and pests it knows; it uses one \
                request of the same daily quota as identification.</p>
                <form class="card" method="post" action="/diagnose" enctype="multipart/form-data">
                \(Layout.csrfField(context))
                \(plantField)
                <fieldset>
                <legend>Photos of the sick part (1 to \(PhotoUploadRules.maximumPhotos))</legend>
                <label for="diagnose-camera">Take a photo</label>
                <input id="diagnose-camera" name="photo" type="file" accept="image/*" capture="environment" aria-describedby="diagnose-help">
                <label for="diagnose-library">Or choose photos</label>
                <input id="diagnose-library" name="photo" type="file" accept="image/*" multiple aria-describedby="diagnose-help">
                <p id="diagnose-help" class="meta">\(ImageFormat.acceptedNames); up to \(limit / 1_048_576) MB in all.</p>
                <label for="diagnose-organ">What do the photos show?</label>
                <select id="diagnose-organ" name="organ">\(organs)</select>
                </fieldset>
                <p><button type="submit">Diagnose</button></p>
                </form>
                """
        )
    }

    /// What "Keep in the plant's history" sends back: the photos (by SHA-256) and organs the answer was about.
    struct DiagnosisKeep {
        var sha256s: [String]
        var organs: [PlantNetOrgan]
        var language: String
    }

    /// A diagnosis: the likely diseases with Pl@ntNet's photos of them, what to do next when none scores well, and
    /// with a collection plant, its care log's facts to check and (with `keep`) a form keeping it in the plant's history.
    static func diagnoseResults(
        _ answer: DiagnosisAnswer, plant: CollectionEntryDetail?, keep: DiagnosisKeep?, context: AppRequestContext
    ) -> HTML {
        let diagnosis = answer.diagnosis
        let name = plant.map { $0.entry.nickname ?? $0.entry.scientificName }
        var found: HTML
        if answer.rejected {
            found = "<p class=\"notice\" role=\"status\">Pl@ntNet did not recognise a plant in the photos.</p>"
        } else if diagnosis.candidates.isEmpty {
            found = "<p class=\"notice\" role=\"status\">No disease found that Pl@ntNet’s disease service knows.</p>"
        } else {
            let items: [HTML] = diagnosis.candidates.map(candidateItem)
            found = "<ol class=\"results\" aria-label=\"Possible problems, most likely first\">\(items)</ol>"
        }
        // The page reads the kept answer (its own address, so a reload sends nothing): say who answered, and when.
        let origin: HTML = "\(diagnosis.model), answered \(CalendarDay(diagnosis.date, in: .current).description) at \(Layout.time(diagnosis.date))"
        let steps = DiagnosisAdvice.nextSteps(
            for: answer, careHint: plant == nil ? "check the plant’s care on the Care page" : "check its care (below, and on its page)"
        )
        var next: HTML = ""
        if !steps.isEmpty {
            let lines: [HTML] = steps.map { "<li>\($0)</li>" }
            next = "<section aria-labelledby=\"next-title\"><h2 id=\"next-title\">What to do next</h2><ul>\(lines)</ul></section>"
        }
        var facts: HTML = ""
        if let plant, let name, !plant.careFacts.isEmpty {
            let lines: [HTML] = plant.careFacts.map { "<li>\($0.text)</li>" }
            facts = """
                <section aria-labelledby="facts-title"><h2 id="facts-title">Things to check about \(name)</h2>
                <p class="meta">From its care log and schedule: facts to check, not a diagnosis.</p>
                <ul class="care-facts">\(lines)</ul></section>
                """
        }
        var keepForm: HTML = ""
        if let plant, let keep {
            keepForm = """
                <section aria-labelledby="keep-title"><h2 id="keep-title">Keep in the plant’s history</h2>
                <form class="card" method="post" action="/collection/\(urlComponent(plant.entry.id))/health">
                \(Layout.csrfField(context))
                <input type="hidden" name="photos" value="\(keep.sha256s.joined(separator: ","))">
                <input type="hidden" name="organs" value="\(keep.organs.map(\.rawValue).joined(separator: ","))">
                <input type="hidden" name="lang" value="\(keep.language)">
                <p class="meta">The answer and your photos go on the plant’s page, so you can compare when it looks better \
                (or worse).</p>
                <label for="keep-note">A note (optional)</label>
                <textarea id="keep-note" name="note" rows="2" maxlength="\(NewHealthRecord.maximumNoteCharacters)"></textarea>
                <p><button type="submit">Keep in the plant’s history</button></p>
                </form></section>
                """
        }
        let again: HTML = plant.map { "/diagnose?plant=\(urlComponent($0.entry.id))" as HTML } ?? "/diagnose"
        return Layout.page(
            title: "Diagnosis", tab: plant == nil ? .identify : .collection, context: context,
            body: """
                <h1>\(name.map { "Possible problems of \($0)" as HTML } ?? "Possible problems")</h1>
                <p class="meta">From \(origin).</p>
                \(found)
                \(next)
                \(facts)
                \(keepForm)
                <p><a href="\(again)">Diagnose other photos</a>\(plant.map { " · <a href=\"/collection/\(urlComponent($0.entry.id))\">Back to \($0.entry.nickname ?? $0.entry.scientificName)</a>" as HTML } ?? "")</p>
                """
        )
    }

    /// Pl@ntNet could not be reached for a collection plant's diagnosis: why, and (with `keep`) a form keeping the photos
    /// in the plant's history until the re-check queue can send them.
    static func diagnoseLater(
        reason: String, plant: CollectionEntryDetail, keep: DiagnosisKeep?, context: AppRequestContext
    ) -> HTML {
        let name = plant.entry.nickname ?? plant.entry.scientificName
        let plantPath = "/collection/\(urlComponent(plant.entry.id))"
        var keepForm: HTML = ""
        if let keep {
            keepForm = """
                <form class="card" method="post" action="\(plantPath)/health">
                \(Layout.csrfField(context))
                <input type="hidden" name="later" value="1">
                <input type="hidden" name="photos" value="\(keep.sha256s.joined(separator: ","))">
                <input type="hidden" name="organs" value="\(keep.organs.map(\.rawValue).joined(separator: ","))">
                <input type="hidden" name="lang" value="\(keep.language)">
                <p>Keep the photos in \(name)’s history now: PlantGuide sends them when Pl@ntNet can be reached again and \
                puts the answer beside them (the plant’s page says when it is waiting).</p>
                <label for="keep-note">A note (optional)</label>
                <textarea id="keep-note" name="note" rows="2" maxlength="\(NewHealthRecord.maximumNoteCharacters)"></textarea>
                <p><button type="submit">Keep and diagnose later</button></p>
                </form>
                """
        }
        return Layout.page(
            title: "Diagnosis", tab: .collection, context: context,
            body: """
                <h1>Pl@ntNet cannot diagnose \(name) now</h1>
                <p class="notice" role="status">\(reason)</p>
                \(keepForm)
                <p><a href="/diagnose?plant=\(urlComponent(plant.entry.id))">Try again</a> · <a href="\(plantPath)">Back to \(name)</a></p>
                """
        )
    }

    private static func candidateItem(_ candidate: DiseaseCandidate) -> HTML {
        let percent = Int((min(max(candidate.score, 0), 1) * 100).rounded())
        let level = candidate.score > 0.7 ? "high" : candidate.score >= 0.4 ? "mid" : "low"
        let title: HTML = candidate.name.map { "<strong>\($0)</strong> <span class=\"meta\">EPPO \(candidate.eppoCode)</span>" }
            ?? "<strong>EPPO \(candidate.eppoCode)</strong>"
        let unknown: HTML = candidate.inDiseaseList == false ? " <span class=\"meta\">(not in Pl@ntNet’s disease list)</span>" : ""
        let kept = candidate.referenceImages.filter { $0.localID != nil }
        var references: HTML = ""
        if !kept.isEmpty {
            let figures: [HTML] = kept.map { image in
                """
                <li><figure><img src="/identify/reference-photos/\(image.localID ?? "")" loading="lazy" \
                alt="Pl@ntNet photo of \(candidate.name ?? candidate.eppoCode)"><figcaption>\(image.citation ?? image.credit)</figcaption></figure></li>
                """
            }
            references = """
                <p class="meta compare">Compare with Pl@ntNet’s photos of \(candidate.name ?? candidate.eppoCode):</p>
                <ul class="references">\(figures)</ul>
                """
        }
        return """
            <li data-rank="\(candidate.rank)"><span class="rank" aria-label="Rank \(candidate.rank)">\(candidate.rank)</span>\
            \(title)\(unknown)
            <div class="bar" role="img" data-percent="\(percent)"
             aria-label="Score \(percent) percent"><span class="\(level) pct-\(percent)"></span></div>
            <span class="confidence">\(percent) %</span>\(references)
            </li>
            """
    }
}
