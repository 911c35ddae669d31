import Foundation

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

    static func care(_ tasks: [DueCareItem], now: Date, context: AppRequestContext) -> HTML {
        let calendar = Calendar(identifier: .gregorian)
        let endOfToday = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)) ?? now
        let today = tasks.filter { $0.due < endOfToday }
        let week = tasks.filter { $0.due >= endOfToday }
        func list(_ tasks: [DueCareItem], empty: String) -> HTML {
            guard !tasks.isEmpty else { return "<p>\(empty)</p>" }
            let items: [HTML] = tasks.map { task in
                let overdue: HTML = task.due < calendar.startOfDay(for: now) ? " <span class=\"badge\">overdue</span>" : ""
                return """
                    <li class="card" data-task="\(task.id)"><strong>\(task.action)</strong> \
                    <a href="/collection/\(urlComponent(task.plantID))">\(task.plantName)</a>\(overdue)
                    <span class="meta">Due <time datetime="\(task.due.formatted(.iso8601))">\(task.due.formatted(date: .abbreviated, time: .omitted))</time></span>
                    <div class="row">
                    <form method="post" action="/care/\(urlComponent(task.id))/done">\(Layout.csrfField(context))\
                    <button type="submit">Mark done<span class="visually-hidden">: \(task.action) \(task.plantName)</span></button></form>
                    <form method="post" action="/care/\(urlComponent(task.id))/snooze">\(Layout.csrfField(context))\
                    <input type="hidden" name="days" value="1">\
                    <button type="submit" class="secondary">Snooze a day<span class="visually-hidden">: \(task.action) \(task.plantName)</span></button></form>
                    </div></li>
                    """
            }
            return "<ul class=\"plants\">\(items)</ul>"
        }
        return Layout.page(
            title: "Care", tab: .care, context: context,
            body: """
                <h1>Care</h1>
                <h2>Due today <span class="badge">\(today.count)</span></h2>
                \(list(today, empty: "Nothing due today."))
                <h2>Later this week <span class="badge">\(week.count)</span></h2>
                \(list(week, empty: "Nothing else this week."))
                <p><a href="/care/calendar.ics">Subscribe to the care calendar (iCalendar)</a> — add this address to your calendar app.</p>
                """
        )
    }
}
