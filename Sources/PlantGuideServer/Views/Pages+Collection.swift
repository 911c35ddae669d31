import Foundation

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
                    entry.photoID.map { "<img src=\"/collection/photos/\(urlComponent($0))\" alt=\"Photo of \(entry.nickname ?? entry.scientificName)\" loading=\"lazy\">" }
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

    static func collectionPlant(_ detail: CollectionEntryDetail, context: AppRequestContext) -> HTML {
        let entry = detail.entry
        let photos: [HTML] = detail.photoIDs.map {
            "<li><img src=\"/collection/photos/\(urlComponent($0))\" alt=\"Photo of \(entry.nickname ?? entry.scientificName)\"></li>"
        }
        func events(_ list: [CollectionEvent], empty: String) -> HTML {
            guard !list.isEmpty else { return "<p>\(empty)</p>" }
            let items: [HTML] = list.map { "<li><time datetime=\"\($0.date.formatted(.iso8601))\">\($0.date.formatted(date: .abbreviated, time: .omitted))</time> — \($0.text)</li>" }
            return "<ul>\(items)</ul>"
        }
        let photoList: HTML = photos.isEmpty ? "<p>No photos yet.</p>" : "<ul class=\"grid\">\(photos)</ul>"
        return Layout.page(
            title: entry.nickname ?? entry.scientificName, tab: .collection, context: context,
            body: """
                <p><a href="/collection">← Collection</a></p>
                <h1>\(entry.nickname ?? entry.scientificName)</h1>
                <p><span class="sci">\(entry.scientificName)</span> · \(entry.room ?? "No room") · \
                <a href="/browse?q=\(urlComponent(entry.scientificName))">look it up in the catalog</a></p>
                <h2>Photos</h2>
                \(photoList)
                <h2>History</h2>
                \(events(detail.history, empty: "Nothing recorded yet."))
                <h2>Care log</h2>
                \(events(detail.careLog, empty: "No care recorded yet."))
                """
        )
    }
}
