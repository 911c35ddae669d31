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

    func register(on router: Router<AppRequestContext>) {
        router.get("/care") { _, context in
            guard let care else { return Response.html(Pages.careUnavailable(context: context)) }
            let current = now()
            let tasks = try await care.due(Self.endOfWeek(from: current))
            return Response.html(Pages.care(tasks, now: current, context: context))
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
        router.post("/care/undo/:plant") { request, context in
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            _ = try await require().undoLast(context.parameters.get("plant") ?? "")
            return Response.redirect(to: Self.back(form), type: .normal)
        }
        router.get("/care/calendar.ics") { _, _ in
            let text = try await require().calendar()
            return Response(
                status: .ok, headers: [.contentType: "text/calendar; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
        // The same calendar at its secret address (Settings makes one), for phone calendars that cannot log in.
        // A wrong or revoked token is simply not found.
        router.get("/care/feed/:file") { _, context in
            guard let file = context.parameters.get("file"), file.hasSuffix(".ics"), let feed,
                  let household = await feed.household(for: String(file.dropLast(4)))
            else { throw ServerError.notFound("That calendar address (it may have been replaced in Settings)") }
            // The address is a household's: its care tasks, nobody else's.
            let care = try require()
            let text = try await HouseholdScope.$current.withValue(HouseholdScope(household: household)) { try await care.calendar() }
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

    /// The end of the seventh day from now: "this week" on the Care page.
    static func endOfWeek(from date: Date) -> Date {
        let calendar = Calendar(identifier: .gregorian)
        let startOfToday = calendar.startOfDay(for: date)
        return calendar.date(byAdding: .day, value: 7, to: startOfToday) ?? date.addingTimeInterval(7 * 86400)
    }
}
