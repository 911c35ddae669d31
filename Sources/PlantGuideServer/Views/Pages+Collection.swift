import Foundation
import PlantGuideCore
import PlantStore

extension Pages {
    static func collectionUnavailable(context: AppRequestContext) -> HTML {
        Layout.page(
            title: "Collection", tab: .collection, context: context,
            body: """
                <h1>Your collection</h1>
                \(Layout.unavailable("The collection", how: "<p>This build of PlantGuide has no collection store yet. Identifying and browsing work without it.</p>"))
                """
        )
    }

    static func collection(_ entries: [CollectionEntry], rooms: [String], room: String?, grid: Bool, context: AppRequestContext) -> HTML {
        let roomQuery = room.map { "&room=\(urlComponent($0))" } ?? ""
        let roomChips: [HTML] = rooms.map { name in
            let current: HTML = name == room ? #" aria-current="page""# : ""
            return "<li><a class=\"chip\" href=\"/collection?room=\(urlComponent(name))\(grid ? "" : "&view=list")\"\(current)>\(name)</a></li>"
        }
        let allCurrent: HTML = room == nil ? #" aria-current="page""# : ""
        let list: HTML
        if entries.isEmpty {
            list = "<p>No plants here yet. <a href=\"/identify\">Identify a plant</a> and choose “Save to collection”.</p>"
        } else if grid {
            let items: [HTML] = entries.map { entry in
                let image: HTML =
                    entry.photoID.map { "<img src=\"/collection/photos/\(urlComponent($0))/thumbnail\" alt=\"Photo of \(entry.nickname ?? entry.scientificName)\" loading=\"lazy\">" }
                    ?? "<div class=\"thumb-missing\" aria-hidden=\"true\">🌱</div>"
                return """
                    <li>\(image)<div class="body"><a href="/collection/\(urlComponent(entry.id))">\(entry.nickname ?? entry.scientificName)</a>\
                    <span class="meta sci">\(entry.scientificName)</span><span class="meta">\(entry.room ?? "No room")</span></div></li>
                    """
            }
            list = "<ul class=\"grid\">\(items)</ul>"
        } else {
            let rows: [HTML] = entries.map { entry in
                """
                <tr><td><a href="/collection/\(urlComponent(entry.id))">\(entry.nickname ?? entry.scientificName)</a></td>\
                <td class="sci">\(entry.scientificName)</td><td>\(entry.room ?? "—")</td></tr>
                """
            }
            list = "<table><thead><tr><th scope=\"col\">Plant</th><th scope=\"col\">Species</th><th scope=\"col\">Room</th></tr></thead><tbody>\(rows)</tbody></table>"
        }
        let gridCurrent: HTML = grid ? #" aria-current="page""# : ""
        let listCurrent: HTML = grid ? "" : #" aria-current="page""#
        return Layout.page(
            title: "Collection", tab: .collection, context: context,
            body: """
                <h1>Your collection <span class="badge">\(entries.count)</span></h1>
                <nav aria-label="Rooms"><ul class="chips"><li><a class="chip" href="/collection\(grid ? "" : "?view=list")"\(allCurrent)>All rooms</a></li>\(roomChips)</ul></nav>
                <nav aria-label="View"><ul class="chips"><li><a class="chip" href="/collection?view=grid\(roomQuery)"\(gridCurrent)>Grid</a></li>\
                <li><a class="chip" href="/collection?view=list\(roomQuery)"\(listCurrent)>List</a></li></ul></nav>
                \(list)
                """
        )
    }

    /// A plant of the collection: its photos, care profile and schedule with Done and Snooze, care log, history, the
    /// form that edits it, and the way to remove it. Every action is a plain form, so the page works without JavaScript.
    /// Who looks after a plant, as its page shows and changes it.
    struct AssignmentState {
        var plant: Int64
        var assignments: CareAssignments
    }

    /// "Who looks after it": everyone, one member, or the members in turn (with whose turn watering is).
    static func assignmentForm(_ state: AssignmentState, plantPath: String, context: AppRequestContext) -> HTML {
        let current = state.assignments.plants[state.plant]
        func option(_ value: String, _ label: String, selected: Bool) -> HTML {
            "<option value=\"\(value)\"\(selected ? " selected" : "" as HTML)>\(label)</option>"
        }
        var options: [HTML] = [option("everyone", "Everyone", selected: current == nil)]
        for member in state.assignments.members {
            options.append(option(String(member.id), member.name, selected: current == .member(member.id)))
        }
        options.append(option("turns", "Take turns", selected: current == .turns))
        let turn: HTML = current == .turns
            ? (state.assignments.member(for: state.plant, task: .water).map { "<p class=\"meta\">Next watering: \($0.name)'s turn.</p>" } ?? "")
            : ""
        return """
            <form class="card" method="post" action="\(plantPath)/assign">\(Layout.csrfField(context))
            <label for="assign-to">Who looks after it</label>
            <select id="assign-to" name="to">\(options)</select>
            \(turn)
            <p><button type="submit" class="secondary">Save</button></p>
            </form>
            """
    }

    static func collectionPlant(
        _ detail: CollectionEntryDetail, suggestions: [SpeciesSuggestion] = [], uploadLimit: Int,
        assignment: AssignmentState? = nil, notice: String? = nil, context: AppRequestContext
    ) -> HTML {
        let entry = detail.entry
        let name = entry.nickname ?? entry.scientificName
        let plantPath = "/collection/\(urlComponent(entry.id))"
        let flags: [HTML] = suggestions.map { suggestionNotice($0, species: entry.scientificName, plantPath: plantPath, context: context) }
        return Layout.page(
            title: name, tab: .collection, context: context,
            body: """
                <p><a href="/collection">← Collection</a></p>
                \(notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" as HTML } ?? HTML.empty)
                <h1>\(name)</h1>
                <p><span class="sci">\(entry.scientificName)</span> · \(entry.room ?? "No room") · \
                <a href="/browse?q=\(urlComponent(entry.scientificName))">look it up in the catalog</a> · \
                <a href="/diagnose?plant=\(urlComponent(entry.id))">Something wrong?</a></p>
                \(entry.notes.map { notes -> HTML in "<p class=\"notes\">\(notes)</p>" } ?? HTML.empty)
                \(flags)
                <div class="plant-page">
                <section class="photos-part" aria-labelledby="photos-title">
                <h2 id="photos-title">Photos <span class="badge">\(detail.photos.count)</span></h2>
                \(photoGrid(detail.photos, name: name, plantPath: plantPath, context: context))
                <form class="card" method="post" action="\(plantPath)/photos" enctype="multipart/form-data">\(Layout.csrfField(context))
                <label for="add-photo">Add photos</label>
                <input type="file" id="add-photo" name="photo" accept="\(ImageFormat.allCases.map(\.mediaType).joined(separator: ",")),image/heif" multiple required>
                <span class="meta">\(ImageFormat.acceptedNames), up to \(PhotoUploadRules.maximumPhotos) at a time and \(ServerError.bytes(uploadLimit)) in all. \
                Location and camera details are not kept.</span>
                <p><button type="submit">Add photos</button></p>
                </form>
                </section>
                <section class="care-part" aria-labelledby="care-title">
                <h2 id="care-title">Care</h2>
                \(careProfile(detail.careProfile, unit: context.temperatureUnit))
                <h3>Schedule</h3>
                \(schedule(detail.schedule, name: name, plantPath: plantPath, context: context))
                \(assignment.map { assignmentForm($0, plantPath: plantPath, context: context) } ?? HTML.empty)
                \(conditionsForm(detail.conditions ?? PlantConditions(), plantPath: plantPath, context: context))
                <h3>Care log</h3>
                \(events(detail.careLog, empty: "No care recorded yet."))
                \(undo(detail.careLog.isEmpty, plantPath: plantPath, context: context))
                </section>
                <section class="history-part" aria-labelledby="history-title">
                <h2 id="history-title">History</h2>
                \(events(detail.history, empty: "Nothing recorded yet."))
                \(healthRecords(detail.healthRecords, name: name, plantPath: plantPath, context: context))
                </section>
                <section class="edit-part" aria-labelledby="edit-title">
                <h2 id="edit-title">Name, room and notes</h2>
                <form class="card" method="post" action="\(plantPath)/edit">\(Layout.csrfField(context))
                <label for="edit-nickname">Nickname</label>
                <input type="text" id="edit-nickname" name="nickname" value="\(entry.nickname ?? "")" maxlength="\(InputLimits.nicknameCharacters)">
                <label for="edit-room">Room</label>
                <input type="text" id="edit-room" name="room" value="\(entry.room ?? "")" maxlength="\(InputLimits.roomCharacters)">
                <label for="edit-notes">Notes</label>
                <textarea id="edit-notes" name="notes" rows="4" maxlength="\(InputLimits.noteCharacters)">\(entry.notes ?? "")</textarea>
                <p><button type="submit">Save changes</button></p>
                </form>
                <p><a class="button secondary" href="\(plantPath)/remove">Remove this plant…</a></p>
                </section>
                </div>
                """
        )
    }

    /// "Pl@ntNet thinks this is X (87 %)": a re-check or re-scoring disagrees with the plant's species. The plant is never
    /// renamed by itself: the owner takes the suggestion (with its care profile) or keeps the species.
    static func suggestionNotice(_ suggestion: SpeciesSuggestion, species: String, plantPath: String, context: AppRequestContext) -> HTML {
        let action = "\(plantPath)/suggestions/\(suggestion.id)"
        let before: HTML = switch suggestion.kind {
        case .recheck: "It was identified on this device\(suggestion.previousModel.map { " (\($0))" } ?? "") as \(suggestion.previousSpecies ?? species)."
        case .rescore: "The previous model (\(suggestion.previousModel ?? "unknown")) said \(suggestion.previousSpecies ?? species)."
        }
        return """
            <section class="notice" role="status" aria-labelledby="suggestion-\(Int(suggestion.id))">
            <p id="suggestion-\(Int(suggestion.id))"><strong>\(suggestion.headline).</strong> \(before) \
            Your plant stays <span class="sci">\(species)</span> unless you change it.</p>
            <form method="post" action="\(action)/accept" class="row">\(Layout.csrfField(context))\
            <button type="submit">Change to \(suggestion.suggestedSpecies)</button> \
            <button type="submit" formaction="\(action)/dismiss" class="secondary">Keep \(species)</button></form>
            </section>
            """
    }

    /// The confirmation step before a plant is removed: a form of its own, so no script is needed.
    static func collectionRemove(_ entry: CollectionEntry, context: AppRequestContext) -> HTML {
        let name = entry.nickname ?? entry.scientificName
        let plantPath = "/collection/\(urlComponent(entry.id))"
        return Layout.page(
            title: "Remove \(name)", tab: .collection, context: context,
            body: """
                <p><a href="\(plantPath)">← \(name)</a></p>
                <h1>Remove \(name)?</h1>
                <section class="notice error">
                <p>\(name) leaves your collection with its care schedule, its care log and the photos no other plant uses. \
                Its identifications stay in the history. This cannot be undone.</p>
                <form method="post" action="\(plantPath)/remove" class="row">\(Layout.csrfField(context))\
                <button type="submit" class="danger">Remove \(name)</button> <a class="button secondary" href="\(plantPath)">Keep it</a></form>
                </section>
                """
        )
    }

    private static func events(_ list: [CollectionEvent], empty: String) -> HTML {
        guard !list.isEmpty else { return "<p>\(empty)</p>" }
        let items: [HTML] = list.map {
            "<li><time datetime=\"\($0.date.formatted(.iso8601))\">\($0.date.formatted(date: .abbreviated, time: .omitted))</time> — \($0.text)\($0.by.map { " <span class=\"meta\">by \($0)</span>" as HTML } ?? "")</li>"
        }
        return "<ul class=\"events\">\(items)</ul>"
    }

    /// The diagnoses kept in the plant's history, newest first, each with its photos (the full photo a click away).
    private static func healthRecords(
        _ records: [CollectionHealthRecord], name: String, plantPath: String, context: AppRequestContext
    ) -> HTML {
        guard !records.isEmpty else { return "" }
        let items: [HTML] = records.map { record in
            let day = record.date.formatted(date: .abbreviated, time: .omitted)
            let photos: [HTML] = record.photoIDs.enumerated().map { index, id in
                """
                <li><a href="/collection/photos/\(urlComponent(id))"><img src="/collection/photos/\(urlComponent(id))/thumbnail" \
                alt="Photo \(index + 1) of \(name) diagnosed on \(day)" loading="lazy"></a></li>
                """
            }
            return """
                <li data-health="\(record.id)"><time datetime="\(record.date.formatted(.iso8601))">\(day)</time> — \(record.summary)\
                \(record.by.map { " <span class=\"meta\">by \($0)</span>" as HTML } ?? "")
                \(record.note.map { "<p class=\"notes\">\($0)</p>" as HTML } ?? "")
                <ul class="references">\(photos)</ul>
                <form method="post" action="\(plantPath)/health/\(urlComponent(record.id))/remove">\(Layout.csrfField(context))\
                <button type="submit" class="secondary small">Remove<span class="visually-hidden">: the diagnosis of \(day)</span>\
                </button></form></li>
                """
        }
        return """
            <h3 id="health">Health</h3>
            <p class="meta">Diagnoses kept from Pl@ntNet’s disease service, with the photos sent.</p>
            <ul class="events health">\(items)</ul>
            """
    }

    /// Thumbnails (the full photo a click away), each with Set as cover and Remove.
    private static func photoGrid(_ photos: [CollectionPhoto], name: String, plantPath: String, context: AppRequestContext) -> HTML {
        guard !photos.isEmpty else { return "<p>No photos yet.</p>" }
        let items: [HTML] = photos.enumerated().map { index, photo in
            let label = "photo \(index + 1) of \(name)"
            let photoPath = "\(plantPath)/photos/\(urlComponent(photo.id))"
            let cover: HTML = photo.isCover
                ? "<span class=\"badge\">Cover</span>"
                : """
                <form method="post" action="\(photoPath)/cover">\(Layout.csrfField(context))\
                <button type="submit" class="secondary small">Set as cover<span class="visually-hidden">: \(label)</span></button></form>
                """
            return """
                <li data-photo="\(photo.id)"><a href="/collection/photos/\(urlComponent(photo.id))">\
                <img src="/collection/photos/\(urlComponent(photo.id))/thumbnail" alt="\(label.prefix(1).uppercased() + label.dropFirst())" loading="lazy"></a>
                <div class="body row">\(cover)
                <form method="post" action="\(photoPath)/remove">\(Layout.csrfField(context))\
                <button type="submit" class="secondary small">Remove<span class="visually-hidden">: \(label)</span></button></form></div></li>
                """
        }
        return "<ul class=\"grid photos\">\(items)</ul>"
    }

    private static func careProfile(_ profile: CareProfile?, unit: TemperatureUnit) -> HTML {
        guard let profile else { return "<p>No care profile: the general care schedule applies.</p>" }
        let toxicity = profile.petToxicity
        return """
            <dl class="facts">
            <dt>Light</dt><dd>\(profile.light.rawValue.prefix(1).uppercased() + profile.light.rawValue.dropFirst())</dd>
            <dt>Watering</dt><dd>Every \(days(profile.waterGrowingDays)) while growing, every \(days(profile.waterWinterDays)) at rest</dd>
            <dt>Humidity</dt><dd>\(profile.humidity.rawValue.capitalized)</dd>
            <dt>Temperature</dt><dd>\(unit.range(celsius: profile.minTemperature, profile.maxTemperature))</dd>
            <dt>Pets</dt><dd>\(toxicity) <span class="meta">\(profile.toxicitySource)</span></dd>
            </dl>
            <p class="meta">PlantGuide's own guidance, from \(profile.basis).</p>
            """
    }

    /// Every task with when it is next due, and Done and Snooze forms that come back to this page.
    private static func schedule(_ tasks: [CollectionCareTask], name: String, plantPath: String, context: AppRequestContext) -> HTML {
        guard !tasks.isEmpty else { return "<p>No care scheduled.</p>" }
        let back: HTML = "<input type=\"hidden\" name=\"back\" value=\"\(plantPath)\">"
        let items: [HTML] = tasks.map { task in
            var facts: [String] = []
            if let interval = task.intervalDays { facts.append("every \(days(interval))") }
            if let last = task.lastDone { facts.append("last done \(last.formatted(date: .abbreviated, time: .omitted))") }
            let due: HTML = task.due.map { due -> HTML in
                "Due <time datetime=\"\(due.formatted(.iso8601))\">\(due.formatted(date: .abbreviated, time: .omitted))</time>"
            } ?? "Not scheduled now"
            let when = facts.isEmpty ? "" : " · " + facts.joined(separator: " · ")
            let overdue: HTML = task.overdueDays > 0 ? " <span class=\"badge overdue\">overdue \(task.overdueDays == 1 ? "1 day" : "\(task.overdueDays) days")</span>" : ""
            let snooze: HTML = task.due == nil ? "" : """
                <form method="post" action="/care/\(urlComponent(task.id))/snooze" class="row">\(Layout.csrfField(context))\(back)\
                <select id="snooze-\(task.id)" name="days" class="small" aria-label="Snooze \(task.action) for"><option value="1">1 day</option><option value="3">3 days</option>\
                <option value="7">7 days</option></select>\
                <button type="submit" class="secondary">Snooze<span class="visually-hidden">: \(task.action) \(name)</span></button></form>
                """
            let why: HTML = task.explanation.map { "<p class=\"meta why\">Why: \($0)</p>" } ?? ""
            let soil: HTML = !task.checksSoil ? "" : """
                <form method="post" action="/care/\(urlComponent(task.id))/check" class="row soil">\(Layout.csrfField(context))\(back)\
                <span class="meta">Soil when due:</span>\
                <button type="submit" name="soil" value="wet" class="secondary">Still wet<span class="visually-hidden">: \(name)</span></button>\
                <button type="submit" name="soil" value="dry" class="secondary">Dry<span class="visually-hidden">: \(name)</span></button></form>
                """
            return """
                <li data-task="\(task.id)"><strong>\(task.action)</strong>\(overdue)
                <span class="meta">\(due)\(when)</span>
                \(why)
                <div class="row">
                <form method="post" action="/care/\(urlComponent(task.id))/done">\(Layout.csrfField(context))\(back)\
                <button type="submit">Done<span class="visually-hidden">: \(task.action) \(name)</span></button></form>
                \(snooze)
                </div>
                \(soil)</li>
                """
        }
        return "<ul class=\"plants tasks\">\(items)</ul>"
    }

    private static func days(_ count: Int) -> String { count == 1 ? "day" : "\(count) days" }

    /// "Where it lives": pot, light, heater and summer outdoors, which scale the watering interval.
    private static func conditionsForm(_ conditions: PlantConditions, plantPath: String, context: AppRequestContext) -> HTML {
        guard let plant = plantPath.split(separator: "/").last else { return "" }
        func option(_ value: String, _ label: String, _ selected: Bool) -> HTML {
            "<option value=\"\(value)\"\(selected ? " selected" : "")>\(label)</option>"
        }
        let materials: [HTML] = [option("", "not said", conditions.potMaterial == nil)]
            + PotMaterial.allCases.map { option($0.rawValue, $0.rawValue, conditions.potMaterial == $0) }
        let lights: [HTML] = [option("", "not said", conditions.light == nil)]
            + LightLevel.allCases.map { option($0.rawValue, $0.rawValue, conditions.light == $0) }
        let checked: (Bool) -> String = { $0 ? " checked" : "" }
        return """
            <details class="conditions"\(conditions.isEmpty ? "" : " open")><summary>Where it lives: \(conditions.summary)</summary>
            <form method="post" action="/care/conditions/\(urlComponent(String(plant)))">\(Layout.csrfField(context))\
            <input type="hidden" name="back" value="\(plantPath)">
            <label for="conditions-pot">Pot diameter (cm)</label>
            <input type="number" id="conditions-pot" name="pot" min="\(PlantConditions.potRange.lowerBound)" max="\(PlantConditions.potRange.upperBound)" value="\(conditions.potCentimetres.map(String.init) ?? "")">
            <label for="conditions-material">Pot material</label>
            <select id="conditions-material" name="material">\(materials)</select>
            <label for="conditions-light">Light of the spot</label>
            <select id="conditions-light" name="light">\(lights)</select>
            <label><input type="checkbox" name="heater" value="1"\(checked(conditions.nearHeater))> Near a heater or radiator</label>
            <label><input type="checkbox" name="outdoors" value="1"\(checked(conditions.outdoorsInSummer))> Outdoors for the summer</label>
            <p class="meta">Each scales the care guide's watering interval (PlantGuide's rule of thumb); soil checks then correct it.</p>
            <p><button type="submit" class="secondary">Save where it lives</button></p>
            </form></details>
            """
    }

    /// The form that removes the care entry logged last (a mistaken tap), coming back to the plant's page.
    private static func undo(_ empty: Bool, plantPath: String, context: AppRequestContext) -> HTML {
        guard !empty, let plant = plantPath.split(separator: "/").last else { return "" }
        return """
            <form method="post" action="/care/undo/\(urlComponent(String(plant)))">\(Layout.csrfField(context))\
            <input type="hidden" name="back" value="\(plantPath)">\
            <button type="submit" class="secondary">Undo the last entry</button></form>
            """
    }
}
