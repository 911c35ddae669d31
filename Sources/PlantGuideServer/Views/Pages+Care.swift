import Foundation
import PlantGuideCore
import PlantLocalization

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
        let words = context.localizer
        let calendar = Calendar(identifier: .gregorian)
        let endOfToday = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)) ?? now
        let today = tasks.filter { $0.due < endOfToday }
        let week = tasks.filter { $0.due >= endOfToday }
        func list(_ tasks: [DueCareItem], empty: String, selectable: Bool) -> HTML {
            guard !tasks.isEmpty else { return "<p>\(empty)</p>" }
            let items: [HTML] = tasks.map { task in
                let action = careAction(task, words)
                let named = ["action": action, "plant": task.plantName]
                let overdue: HTML =
                    task.due < calendar.startOfDay(for: now) ? " <span class=\"badge\">\(words.text("care.overdue"))</span>" : ""
                // The tick belongs to the form below the list (a form cannot hold the task's own forms).
                let tick: HTML = !selectable ? "" : """
                    <input type="checkbox" form="care-many" name="task" value="\(task.id)" id="tick-\(task.id)" \
                    aria-label="\(words.text("care.select", named))">
                    """
                return """
                    <li class="card" data-task="\(task.id)">\(tick)<strong>\(action)</strong> \
                    <a href="/collection/\(urlComponent(task.plantID))">\(task.plantName)</a>\(overdue)\
                    \(who[task.id].map { " <span class=\"meta\">\(words.text("care.for", ["name": $0]))</span>" as HTML } ?? "")
                    <span class="meta">\(dueDate(task.due, words))</span>\
                    \(task.why.map { "<p class=\"meta why\">\(words.text("care.why")) \(Layout.inEnglish($0, words))</p>" as HTML } ?? "")
                    <div class="row">
                    <form method="post" action="/care/\(urlComponent(task.id))/done">\(Layout.csrfField(context))\
                    <button type="submit">\(words.text("care.markDone"))<span class="visually-hidden">\(words.text("care.aboutTask", named))</span></button></form>
                    <form method="post" action="/care/\(urlComponent(task.id))/snooze">\(Layout.csrfField(context))\
                    <input type="hidden" name="days" value="1">\
                    <button type="submit" class="secondary">\(words.text("care.snooze"))<span class="visually-hidden">\(words.text("care.aboutTask", named))</span></button></form>
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
                "<h3>\(group.room ?? words.text("care.noRoom"))</h3>\(list(group.tasks, empty: empty, selectable: selectable))"
            }
            return "\(sections)"
        }
        return Layout.page(
            title: words.text("nav.care"), tab: .care, context: context,
            body: """
                <h1>\(words.text("nav.care"))</h1>
                \(done.map { "<div class=\"notice ok\" role=\"status\">\(words.text("care.logged", count: $0))</div>" as HTML } ?? "")
                <h2>\(words.text("care.dueToday")) <span class="badge">\(today.count)</span></h2>
                \(byRoom(today, empty: words.text("care.nothingToday"), selectable: true))
                \(today.isEmpty ? "" : many(context: context))
                <h2>\(words.text("care.laterThisWeek")) <span class="badge">\(week.count)</span></h2>
                \(byRoom(week, empty: words.text("care.nothingThisWeek"), selectable: false))
                <p><a href="/care/calendar.ics">\(words.text("care.calendarLink"))</a> — \(words.text("care.calendarHint"))</p>
                """,
            bodyLanguage: words.language
        )
    }

    /// What to do, in the page's language: "Water", "Arroser"…; a task PlantGuide has no word for stays as the store
    /// names it.
    private static func careAction(_ task: DueCareItem, _ words: Localizer) -> String {
        guard let suffix = task.id.split(separator: "-").last, let kind = CareTask(rawValue: String(suffix)) else {
            return task.action
        }
        return words.text("care.task.\(kind.rawValue)")
    }

    /// "Due 29 Nov 2026", with the day machine-readable.
    private static func dueDate(_ due: Date, _ words: Localizer) -> HTML {
        Layout.text(words, "care.due", markup: ["date": "<time datetime=\"\(due.formatted(.iso8601))\">\(Layout.day(due, words))</time>"])
    }

    /// "Soil: Still wet / Dry" for a watering: the plant's interval learns from it, and the watering moves.
    private static func soil(_ task: DueCareItem, context: AppRequestContext) -> HTML {
        guard task.id.hasSuffix("-water") else { return "" }
        let words = context.localizer
        return """
            <form method="post" action="/care/\(urlComponent(task.id))/check" class="row soil">\(Layout.csrfField(context))\
            <span class="meta">\(words.text("care.soil"))</span>\
            <button type="submit" name="soil" value="wet" class="secondary">\(words.text("care.soilWet"))<span class="visually-hidden">\(words.text("care.aboutPlant", ["plant": task.plantName]))</span></button>\
            <button type="submit" name="soil" value="dry" class="secondary">\(words.text("care.soilDry"))<span class="visually-hidden">\(words.text("care.aboutPlant", ["plant": task.plantName]))</span></button></form>
            """
    }

    /// Logging several of today's tasks at once: the ticked ones, or all of them; done today or yesterday.
    private static func many(context: AppRequestContext) -> HTML {
        let words = context.localizer
        return """
            <form id="care-many" method="post" action="/care/done" class="card">\(Layout.csrfField(context))
            <label for="care-many-day">\(words.text("care.doneOn"))</label>
            <select id="care-many-day" name="day"><option value="today">\(words.text("care.today"))</option>\
            <option value="yesterday">\(words.text("care.yesterday"))</option></select>
            <p class="row"><button type="submit">\(words.text("care.markTicked"))</button>
            <button type="submit" name="all" value="1" class="secondary">\(words.text("care.markAll"))</button></p>
            </form>
            """
    }
}
