import Foundation
import Hummingbird
import PlantForms
import PlantStore
import PlantGuideCore

/// The Care page, marking tasks done or snoozed, the iCalendar feed, and the care API.
struct CareRoutes {
    let care: CareCapability?
    let feed: CalendarFeed?
    let now: @Sendable () -> Date
    /// The reminder channels, whose hour the calendar's alarms follow.
    var reminders: ReminderCapability? = nil

    /// The local time of day the calendar's alarms go off: `?alarm=HH:MM`, else the reminder hour of the member's
    /// channels (the household's own for the secret address), else 08:00.
    private func alarmMinute(_ request: Request) async throws -> Int {
        if let text = request.queryValue("alarm") {
            guard let minute = ReminderRules.minuteOfDay(parsing: text) else {
                throw ServerError.badRequest("Give the alarm's time of day as HH:MM, e.g. 07:30.")
            }
            return minute
        }
        let channels = (try? await reminders?.channels()) ?? []
        return ReminderRules.schedule(of: HouseholdScope.current?.user, in: channels)?.minuteOfDay
            ?? ReminderRules.standardMinuteOfDay
    }

    func register(on router: Router<AppRequestContext>) {
        router.get("/care") { request, context in
            guard let care else { return Response.html(Pages.careUnavailable(context: context)) }
            let current = now()
            let tasks = try await care.due(Self.endOfWeek(from: current))
            let done = request.queryValue("done").flatMap(Int.init)
            // Whose each task is, where plants are assigned to a member or to turns.
            var who: [String: String] = [:]
            if let read = reminders?.assignments, let assignments = try? await read(), !assignments.plants.isEmpty {
                for task in tasks {
                    let parts = task.id.split(separator: "-")
                    guard parts.count == 2, let plant = LiveStore.plantID(parts[0]), let kind = CareTask(rawValue: String(parts[1])),
                          let member = assignments.member(for: plant, task: kind) else { continue }
                    who[task.id] = member.name
                }
            }
            return Response.html(Pages.care(tasks, now: current, done: done, who: who, context: context))
        }
        // Several tasks at once: those ticked, or every task due today (or overdue); today or yesterday.
        router.post("/care/done") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            let care = try require()
            var ids = form.fields.filter { $0.name == "task" }.map(\.value)
            if form["all"] == "1" {
                let endOfToday = Self.endOfToday(from: now())
                ids = try await care.due(endOfToday).filter { $0.due < endOfToday }.map(\.id)
            }
            guard !ids.isEmpty else { throw ServerError.badRequest("Tick the tasks you did, or choose all that are due today.") }
            guard ids.count <= 500 else { throw ServerError.badRequest("Log at most 500 tasks at once.") }
            let daysAgo = switch form["day"] ?? "today" {
            case "today": 0
            case "yesterday": 1
            default: throw ServerError.badRequest("Say whether it was done today or yesterday.")
            }
            let count = try await care.markDoneMany(Array(Set(ids)).sorted(), daysAgo)
            return Response.redirect(to: "/care?done=\(count)", type: .normal)
        }
        router.post("/care/:id/done") { _, context in
            try await require().markDone(try Self.id(context))
            return Response.redirect(to: Self.back(context.form), type: .normal)
        }
        router.post("/care/:id/snooze") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            try await require().snooze(try Self.id(context), try Self.days(form["days"]))
            return Response.redirect(to: Self.back(form), type: .normal)
        }
        router.post("/care/:id/check") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            try await require().checkSoil(try Self.id(context), form["soil"] ?? "")
            return Response.redirect(to: Self.back(form), type: .normal)
        }
        // Where a plant lives, from its page's form: every field is sent; an empty one says nothing.
        router.post("/care/conditions/:plant") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            try await require().setConditions(context.parameters.get("plant") ?? "", try Self.conditions(form))
            return Response.redirect(to: Self.back(form), type: .normal)
        }
        router.post("/care/undo/:plant") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            _ = try await require().undoLast(context.parameters.get("plant") ?? "")
            return Response.redirect(to: Self.back(form), type: .normal)
        }
        router.get("/care/calendar.ics") { request, _ in
            let text = try await require().calendar(try await alarmMinute(request))
            return Response(
                status: .ok, headers: [.contentType: "text/calendar; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        // The same calendar at its secret address (Settings makes one), for phone calendars that cannot log in.
        // A wrong or revoked token is simply not found.
        router.get("/care/feed/:file") { request, context in
            guard let file = context.parameters.get("file"), file.hasSuffix(".ics"), let feed,
                  let household = await feed.household(for: String(file.dropLast(4)))
            else { throw ServerError.notFound("That calendar address (it may have been replaced in Settings)") }
            // The address is a household's: its care tasks, nobody else's.
            let care = try require()
            let text = try await HouseholdScope.$current.withValue(HouseholdScope(household: household)) {
                try await care.calendar(try await alarmMinute(request))
            }
            return Response(
                status: .ok, headers: [.contentType: "text/calendar; charset=utf-8", .cacheControl: "private, no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        router.get("/api/care") { request, _ in
            let days = try Self.days(request.queryValue("days") ?? "7", maximum: 366)
            let tasks = try await require().due(now().addingTimeInterval(Double(days) * 86400))
            return JSONResponse.make(tasks)
        }
        router.post("/api/care/:id/done") { _, context in
            try await require().markDone(try Self.id(context))
            return Response(status: .noContent)
        }
        router.post("/api/care/:id/check") { request, context in
            try await require().checkSoil(try Self.id(context), request.queryValue("soil") ?? "")
            return Response(status: .noContent)
        }
        router.post("/api/care/undo/:plant") { _, context in
            guard let removed = try await require().undoLast(context.parameters.get("plant") ?? "") else {
                throw ServerError.notFound("A care entry to undo")
            }
            return JSONResponse.make(UndoneEntry(removed: removed))
        }
        router.post("/api/care/:id/snooze") { request, context in
            let days = try Self.days(request.queryValue("days") ?? "1")
            try await require().snooze(try Self.id(context), days)
            return Response(status: .noContent)
        }
    }

    /// The conditions a plant page's form says.
    static func conditions(_ form: FormData) throws -> PlantConditions {
        var conditions = PlantConditions()
        if let text = form["pot"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let pot = Int(text), PlantConditions.potRange.contains(pot) else {
                throw ServerError.badRequest(
                    "A pot is \(PlantConditions.potRange.lowerBound) to \(PlantConditions.potRange.upperBound) cm across, not \(text)."
                )
            }
            conditions.potCentimetres = pot
        }
        if let text = form["material"], !text.isEmpty {
            guard let material = PotMaterial(rawValue: text) else { throw ServerError.badRequest("Choose the pot's material from the list.") }
            conditions.potMaterial = material
        }
        if let text = form["light"], !text.isEmpty {
            guard let light = LightLevel(rawValue: text) else { throw ServerError.badRequest("Choose the spot's light from the list.") }
            conditions.light = light
        }
        conditions.nearHeater = form["heater"] == "1"
        conditions.outdoorsInSummer = form["outdoors"] == "1"
        return conditions
    }

    /// What `POST /api/care/undo/{plant}` answers.
    private struct UndoneEntry: Encodable {
        var removed: String
    }

    private func require() throws -> CareCapability {
        guard let care else { throw ServerError.capabilityMissing("Care schedules are not available in this build yet.") }
        return care
    }

    /// Where a form sent from another page (a plant's page) goes back to: its `back` field when that is a path of this
    /// site, else the Care page.
    private static func back(_ form: FormData?) -> String {
        form?["back"].map { AuthRoutes.safeNext($0) } ?? "/care"
    }

    private static func id(_ context: AppRequestContext) throws -> String {
        guard let id = context.parameters.get("id"), !id.isEmpty else { throw ServerError.badRequest("Which task?") }
        return id
    }

    private static func days(_ text: String?, maximum: Int = 30) throws -> Int {
        guard let text, let days = Int(text), (1...maximum).contains(days) else {
            throw ServerError.badRequest("Days must be a whole number from 1 to \(maximum).")
        }
        return days
    }

    /// The end of today: what the Care page lists as due today.
    static func endOfToday(from date: Date) -> Date {
        let calendar = Calendar(identifier: .gregorian)
        return calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: date)) ?? date.addingTimeInterval(86400)
    }

    /// The end of the seventh day from now: "this week" on the Care page.
    static func endOfWeek(from date: Date) -> Date {
        let calendar = Calendar(identifier: .gregorian)
        let startOfToday = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: 7, to: startOfToday) ?? date.addingTimeInterval(7 * 86400)
    }
}
