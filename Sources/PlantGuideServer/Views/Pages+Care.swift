import Foundation
import PlantGuideCore

extension Pages {
    static func careUnavailable(context: AppRequestContext) -> HTML {
        Layout.page(
            title: "Care", tab: .care, context: context,
            body: """
                <h1>Care</h1>
                \(Layout.unavailable("Care reminders", how: "<p>This build of PlantGuide has no care schedules yet. They arrive with the collection store.</p>"))
                """
        )
    }

    static func care(
        _ tasks: [DueCareItem], now: Date, done: Int? = nil, who: [String: String] = [:], context: AppRequestContext
    ) -> HTML {
        let calendar = Calendar(identifier: .gregorian)
        let endOfToday = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)) ?? now
        let today = tasks.filter { $0.due < endOfToday }
        let week = tasks.filter { $0.due >= endOfToday }
        func list(_ tasks: [DueCareItem], empty: String, selectable: Bool) -> HTML {
            guard !tasks.isEmpty else { return "<p>\(empty)</p>" }
            let items: [HTML] = tasks.map { task in
                let overdue: HTML = task.due < calendar.startOfDay(for: now) ? " <span class=\"badge\">overdue</span>" : ""
                // The tick belongs to the form below the list (a form cannot hold the task's own forms).
                let tick: HTML = !selectable ? "" : """
                    <input type="checkbox" form="care-many" name="task" value="\(task.id)" id="tick-\(task.id)" \
                    aria-label="Select \(task.action) \(task.plantName)">
                    """
                return """
                    <li class="card" data-task="\(task.id)">\(tick)<strong>\(task.action)</strong> \
                    <a href="/collection/\(urlComponent(task.plantID))">\(task.plantName)</a>\(overdue)\
                    \(who[task.id].map { " <span class=\"meta\">for \($0)</span>" as HTML } ?? "")
                    <span class="meta">Due <time datetime="\(task.due.formatted(.iso8601))">\(task.due.formatted(date: .abbreviated, time: .omitted))</time></span>\
                    \(task.why.map { "<p class=\"meta why\">Why: \($0)</p>" as HTML } ?? "")
                    <div class="row">
                    <form method="post" action="/care/\(urlComponent(task.id))/done">\(Layout.csrfField(context))\
                    <button type="submit">Mark done<span class="visually-hidden">: \(task.action) \(task.plantName)</span></button></form>
                    <form method="post" action="/care/\(urlComponent(task.id))/snooze">\(Layout.csrfField(context))\
                    <input type="hidden" name="days" value="1">\
                    <button type="submit" class="secondary">Snooze a day<span class="visually-hidden">: \(task.action) \(task.plantName)</span></button></form>
                    </div>\(soil(task, context: context))</li>
                    """
            }
            return "<ul class=\"plants\">\(items)</ul>"
        }
        /// Tasks room by room (as the due list orders them) when the plants live in more than one room.
        func byRoom(_ tasks: [DueCareItem], empty: String, selectable: Bool) -> HTML {
            var rooms: [(room: String?, tasks: [DueCareItem])] = []
            for task in tasks {
                if let last = rooms.indices.last, rooms[last].room == task.room {
                    rooms[last].tasks.append(task)
                } else {
                    rooms.append((task.room, [task]))
                }
            }
            guard rooms.count > 1 else { return list(tasks, empty: empty, selectable: selectable) }
            let sections: [HTML] = rooms.map { group in
                "<h3>\(group.room ?? "No room")</h3>\(list(group.tasks, empty: empty, selectable: selectable))"
            }
            return "\(sections)"
        }
        return Layout.page(
            title: "Care", tab: .care, context: context,
            body: """
                <h1>Care</h1>
                \(done.map { "<div class=\"notice ok\" role=\"status\">\(counted($0, "task")) logged.</div>" as HTML } ?? "")
                <h2>Due today <span class="badge">\(today.count)</span></h2>
                \(byRoom(today, empty: "Nothing due today.", selectable: true))
                \(today.isEmpty ? "" : many(context: context))
                <h2>Later this week <span class="badge">\(week.count)</span></h2>
                \(byRoom(week, empty: "Nothing else this week.", selectable: false))
                <p><a href="/care/calendar.ics">Subscribe to the care calendar (iCalendar)</a> — add this address to your calendar app.</p>
                """
        )
    }

    /// "Soil: Still wet / Dry" for a watering: the plant's interval learns from it, and the watering moves.
    private static func soil(_ task: DueCareItem, context: AppRequestContext) -> HTML {
        guard task.id.hasSuffix("-water") else { return "" }
        return """
            <form method="post" action="/care/\(urlComponent(task.id))/check" class="row soil">\(Layout.csrfField(context))\
            <span class="meta">Soil:</span>\
            <button type="submit" name="soil" value="wet" class="secondary">Still wet<span class="visually-hidden">: \(task.plantName)</span></button>\
            <button type="submit" name="soil" value="dry" class="secondary">Dry<span class="visually-hidden">: \(task.plantName)</span></button></form>
            """
    }

    /// Logging several of today's tasks at once: the ticked ones, or all of them; done today or yesterday.
    private static func many(context: AppRequestContext) -> HTML {
        """
        <form id="care-many" method="post" action="/care/done" class="card">\(Layout.csrfField(context))
        <label for="care-many-day">Done</label>
        <select id="care-many-day" name="day"><option value="today">today</option><option value="yesterday">yesterday</option></select>
        <p class="row"><button type="submit">Mark the ticked tasks done</button>
        <button type="submit" name="all" value="1" class="secondary">Mark everything due today done</button></p>
        </form>
        """
    }
}
