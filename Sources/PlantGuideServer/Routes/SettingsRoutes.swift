import Foundation
import Hummingbird
import PlantForms
import PlantGuideCore
import PlantNetAPI
import PlantReminders
import PlantStore

/// The Settings page and API: key status (never the key), quota, cache and model facts.
struct SettingsRoutes {
    let settings: SettingsCapability?
    /// Installing on-device models; no install buttons when `nil`.
    var modelInstalls: ModelInstallCapability?
    let calendarFeed: CalendarFeed?
    let currentIdentification: CurrentIdentification
    let recheck: RecheckCapability?
    /// The identification log behind the statistics panel; no panel when `nil`.
    var statistics: StatisticsCapability?
    /// Care schedules, for the household's hemisphere and time zone; no Care section when `nil`.
    var care: CareCapability?
    /// The household's care reminder channels; no Reminders section when `nil`.
    var reminders: ReminderCapability?

    /// How many of the latest identifications the statistics panel sums up.
    static let statisticsWindow = 100

    /// Read per request: saving a key replaces it.
    private var identification: IdentificationCapability? { currentIdentification.capability }

    /// What the reminders section says after an action, and whether it is a failure.
    static func reminderMessage(_ code: String?, why: String?) -> (String?, Bool) {
        switch code {
        case "added": ("Added. The first digest goes at its time of day when something is due; send a test to check.", false)
        case "removed": ("Removed.", false)
        case "scheduled": ("Saved: your reminders come at the new hour.", false)
        case "tested": ("Test message sent: look for it where the reminders go.", false)
        case "test-failed": ("The test message was not delivered: \(why?.prefix(300) ?? "unknown error").", true)
        default: (nil, false)
        }
    }

    func register(on router: Router<AppRequestContext>) {
        router.get("/settings") { request, context in
            let saved = request.queryValue("saved") == "1"
            var feed: Pages.CalendarFeedState?
            if let calendarFeed {
                let token = try? await calendarFeed.current()
                feed = Pages.CalendarFeedState(address: token.map { Self.feedAddress($0, request: request, context: context) })
            }
            var choices: Pages.IdentificationChoices?
            if let settings, let preferences = await settings.preferences?() {
                let models = await settings.models()
                choices = Pages.IdentificationChoices(
                    preferences: preferences, strategies: identification?.strategies ?? [.auto], models: models.names,
                    currentModel: models.current, saved: request.queryValue("preferences") == "1"
                )
            }
            var recheckState: Pages.RecheckState?
            if let recheck {
                recheckState = Pages.RecheckState(
                    summary: try await recheck.summary(), online: identification?.recheck != nil,
                    rescoreModel: identification?.rescoreModel?.name, message: Self.recheckMessage(request.queryValue("recheck"))
                )
            }
            let modelFiles = await settings?.models() ?? ([], nil)
            var place: Pages.CarePlaceState?
            // No section where the server keeps no care settings per household.
            if let care, let settings = try? await care.settings() {
                place = Pages.CarePlaceState(
                    settings: settings, saved: request.queryValue("care") == "1",
                    mayChange: context.user == nil || context.user?.role == .owner
                )
            }
            var reminderState: Pages.RemindersState?
            if let reminders {
                let (message, failed) = Self.reminderMessage(request.queryValue("reminders"), why: request.queryValue("why"))
                reminderState = Pages.RemindersState(
                    channels: try await reminders.channels(), message: message, failed: failed,
                    timeZone: (try? await care?.settings())?.timeZone.identifier ?? TimeZone.current.identifier,
                    webPushKey: reminders.webPushKey, emailReady: reminders.emailReady, member: context.user?.userId,
                    canSchedule: reminders.schedule != nil
                )
            }
            // The calendar's alarms at the member's reminder hour: the address says it, as a phone calendar cannot log in.
            if let minute = reminderState.map(\.minuteOfDay), minute != 480, let address = feed?.address {
                feed?.address = address + "?alarm=" + ReminderRules.timeOfDay(minute)
            }
            return Response.html(Pages.settings(
                try await facts(), saved: saved, feed: feed, choices: choices, recheck: recheckState,
                statistics: await statisticsPanel(context: context), modelProblem: settings?.modelProblem(),
                models: modelInstalls.map { installs in
                    Pages.ModelInstallState(
                        choices: installs.choices(), status: installs.status(), files: modelFiles, mayChange: context.mayChangeInstallation
                    )
                },
                care: place, reminders: reminderState, preferencesSaved: request.queryValue("me") == "1", context: context
            ))
        }
        // Care reminders: add a channel, send it a test, remove it (any member of the household).
        router.post("/settings/reminders") { request, context in
            guard let reminders else { throw ServerError.capabilityMissing("Care reminders need the collection.") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            guard let kind = form["kind"].flatMap(ReminderChannelKind.init(rawValue:)), kind != .webpush else {
                throw ServerError.badRequest("Choose where to send reminders: an ntfy topic, a webhook or an email address.")
            }
            guard var url = form["url"]?.trimmingCharacters(in: .whitespaces), !url.isEmpty else {
                throw ServerError.badRequest("Give the address to send reminders to, e.g. https://ntfy.sh/a-long-random-topic.")
            }
            if kind == .email {
                guard reminders.emailReady else { throw ServerError.badRequest("Email needs an SMTP server set up on this server.") }
                if !url.hasPrefix("mailto:") { url = "mailto:" + url }
            }
            guard let minute = form["time"].flatMap(ReminderRules.minuteOfDay(parsing:)) else {
                throw ServerError.badRequest("Give the time of day as HH:MM, e.g. 08:00.")
            }
            let token = kind == .email ? nil : form["token"].flatMap { $0.isEmpty ? nil : $0 }
            _ = try await reminders.add(kind, url, token, minute)
            return Response.redirect(to: "/settings?reminders=added#reminders", type: .normal)
        }
        // The hour and quiet hours of the member's channels (on an open server, the household's own).
        router.post("/settings/reminders/schedule") { request, context in
            guard let schedule = reminders?.schedule else { throw ServerError.capabilityMissing("Care reminders need the collection.") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            guard let minute = form["time"].flatMap(ReminderRules.minuteOfDay(parsing:)) else {
                throw ServerError.badRequest("Give the time of day as HH:MM, e.g. 08:00.")
            }
            let from = form["quiet_from"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let until = form["quiet_until"]?.trimmingCharacters(in: .whitespaces) ?? ""
            var quiet: QuietHours?
            if !from.isEmpty || !until.isEmpty {
                guard let start = ReminderRules.minuteOfDay(parsing: from), let end = ReminderRules.minuteOfDay(parsing: until),
                      start != end else {
                    throw ServerError.badRequest("Give quiet hours as two different times, e.g. from 22:00 until 07:00, or leave both empty.")
                }
                quiet = QuietHours(from: start, until: end)
            }
            try await schedule(minute, quiet)
            return Response.redirect(to: "/settings?reminders=scheduled#reminders", type: .normal)
        }
        // The browser's push subscription, sent by the page's script once the person allowed notifications:
        // `{"subscription": PushSubscription.toJSON(), "time": "08:00"}`.
        router.post("/settings/reminders/push") { request, context in
            guard let reminders else { throw ServerError.capabilityMissing("Care reminders need the collection.") }
            guard reminders.webPushKey != nil else {
                throw ServerError.capabilityMissing("Web Push is not available on this server (its key could not be made).")
            }
            let body = try await request.body.collect(upTo: InputLimits.formBodyBytes)
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                  let inner = object["subscription"], JSONSerialization.isValidJSONObject(inner),
                  let subscriptionJSON = try? JSONSerialization.data(withJSONObject: inner) else {
                throw ServerError.badRequest("Send {\"subscription\": …, \"time\": \"08:00\"} as JSON.")
            }
            let subscription: WebPushSubscription
            do {
                subscription = try WebPushSubscription(json: subscriptionJSON)
            } catch {
                throw ServerError.badRequest("That push subscription cannot be used: \(error).")
            }
            guard let minute = ReminderRules.minuteOfDay(parsing: object["time"] as? String ?? "08:00") else {
                throw ServerError.badRequest("Give the time of day as HH:MM, e.g. 08:00.")
            }
            let channel = try await reminders.add(.webpush, subscription.endpoint, subscription.token, minute)
            struct Added: Encodable { var id: Int64 }
            return JSONResponse.make(Added(id: channel.id), status: .created)
        }
        // A notification's "Done" or "Tomorrow": `{"token": …}`, the token signed when the reminder was sent. It is the
        // whole authority (the service worker acts without a log-in or a form), so this path skips both (RequestGate).
        router.post("/reminders/act") { request, context in
            guard let act = reminders?.act else { throw ServerError.capabilityMissing("Reminder actions are not available here.") }
            // Bounded in size and time: this path is open to anyone (RequestGate's own checks are skipped for it).
            var request = request
            let body = Data(buffer: try await request.collectBody(upTo: InputLimits.formBodyBytes, within: RequestGate.bodyTimeout))
            // The service worker sends JSON; the page an email's link opens sends its form.
            let isForm = request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
            let token: String?
            if isForm {
                token = (try? FormData.parse(.urlEncoded, body: body))?["token"]
            } else {
                token = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["token"] as? String
            }
            guard let token else {
                throw ServerError.badRequest("Send {\"token\": …} as JSON, the token a reminder came with.")
            }
            let outcome: ReminderActionOutcome
            do {
                outcome = try await act(token)
            } catch let error as ReminderActionError {
                throw ServerError.forbidden(error.description)
            }
            return isForm
                ? Response.html(Pages.reminderAction(token: nil, outcome: outcome, context: context))
                : JSONResponse.make(outcome)
        }
        // An email's "Mark done" link: a page with a button, since opening a link must change nothing (mail scanners
        // open links to check them).
        router.get("/reminders/act") { request, context in
            guard let token = request.queryValue("token"), !token.isEmpty, token.utf8.count <= 4_096 else {
                throw ServerError.badRequest("This link has no reminder action in it.")
            }
            return Response.html(Pages.reminderAction(token: token, outcome: nil, context: context))
        }
        router.post("/settings/reminders/:id/:action") { _, context in
            guard let reminders else { throw ServerError.capabilityMissing("Care reminders need the collection.") }
            guard let id = context.parameters.get("id").flatMap(Int64.init) else { throw ServerError.notFound("That reminder channel") }
            switch context.parameters.get("action") {
            case "remove":
                guard try await reminders.remove(id) else { throw ServerError.notFound("That reminder channel") }
                return Response.redirect(to: "/settings?reminders=removed#reminders", type: .normal)
            case "test":
                guard let problem = try await reminders.test(id) else {
                    return Response.redirect(to: "/settings?reminders=tested#reminders", type: .normal)
                }
                return Response.redirect(
                    to: "/settings?reminders=test-failed&why=\(urlComponent(problem))#reminders", type: .normal
                )
            default:
                throw ServerError.notFound("That page")
            }
        }
        // Send the re-check queue now, or re-score saved identifications with the loaded model.
        router.post("/settings/recheck") { request, context in
            try RequestGate.requireOwner(context)
            guard let recheck else { throw ServerError.capabilityMissing("The re-check queue needs the collection.") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            let query: String
            switch form["action"] {
            case "send":
                guard let run = try await recheck.drain() else {
                    throw ServerError.capabilityMissing("Pl@ntNet is not set up: add an API key above first.")
                }
                query = "sent-\(run.sent)-\(run.changed)-\(run.skipped)"
            case "rescore":
                guard let run = try await recheck.rescore() else {
                    throw ServerError.capabilityMissing("No on-device model is loaded to re-score with.")
                }
                query = "rescored-\(run.rescored)-\(run.changed)-\(run.failed)"
            default:
                throw ServerError.badRequest("Say whether to send the queue or to re-score.")
            }
            return Response.redirect(to: "/settings?recheck=\(query)#recheck", type: .normal)
        }
        // How identification behaves: the preselected strategy, the confidence threshold and the on-device model.
        router.post("/settings/identification") { request, context in
            try RequestGate.requireInstallationOwner(context)
            guard let settings else { throw ServerError.capabilityMissing("This server cannot change its identification settings.") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            guard let strategy = form["defaultStrategy"].flatMap(IdentifyStrategy.init(rawValue:)),
                IdentifyStrategy.formChoices.contains(strategy)
            else {
                throw ServerError.badRequest("Choose the strategy the Identify page starts with: auto, on-device or plantnet.")
            }
            guard let percent = form["threshold"].flatMap(Int.init), let threshold = ServerPreferences.thresholds.first(where: {
                Int(($0 * 100).rounded()) == percent
            }) else {
                throw ServerError.badRequest("Choose a threshold between 50 and 95 percent, in steps of 5.")
            }
            let model = form["model"].flatMap { $0.isEmpty ? nil : $0 }
            try await settings.savePreferences(ServerPreferences(defaultStrategy: strategy, threshold: threshold), model)
            return Response.redirect(to: "/settings?preferences=1#identification", type: .normal)
        }
        // The household's hemisphere and time zone, for its care schedules: applied from the next page on.
        router.post("/settings/care") { request, context in
            try RequestGate.requireOwner(context)
            guard let care else { throw ServerError.capabilityMissing("Care schedules are not available in this build yet.") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            guard form["hemisphere"] != nil || form["timeZone"] != nil else {
                throw ServerError.badRequest("Choose a hemisphere or a time zone.")
            }
            try await care.changeSettings(form["hemisphere"], form["timeZone"])
            return Response.redirect(to: "/settings?care=1#care", type: .normal)
        }
        // Make a new secret calendar address (the old one stops working) or turn it off.
        router.post("/settings/calendar-feed") { request, context in
            try RequestGate.requireOwner(context)
            guard let calendarFeed else { throw ServerError.capabilityMissing("This server offers no calendar address.") }
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            switch form["action"] {
            case "renew":
                do { try await calendarFeed.renew() } catch { throw ServerError.failed("The calendar address could not be stored: \(error)") }
            case "revoke":
                do { try await calendarFeed.revoke() } catch { throw ServerError.failed("The calendar address could not be removed: \(error)") }
            default:
                throw ServerError.badRequest("Say whether to renew or revoke the calendar address.")
            }
            return Response.redirect(to: "/settings#calendar", type: .normal)
        }
        router.post("/settings/api-key") { request, context in
            try RequestGate.requireInstallationOwner(context)
            let form = try await request.formData(context: context, limit: InputLimits.formBodyBytes)
            try await replace(form["apiKey"], trimming: true)
            return Response.redirect(to: "/settings?saved=1", type: .normal)
        }
        router.get("/api/settings") { _, _ in JSONResponse.make(try await facts()) }
        router.put("/api/settings/api-key") { request, context in
            try RequestGate.requireInstallationOwner(context)
            let body = try await request.decodeJSON(as: APIKeyBody.self, context: context)
            try await replace(body.apiKey, trimming: false)
            return Response(status: .noContent)
        }
    }

    /// The sentence a finished "Send now" or "Re-score" shows, from its redirect's query (`sent-3-1-0`,
    /// `rescored-4-2-0`); `nil` for anything else.
    static func recheckMessage(_ query: String?) -> String? {
        guard let parts = query?.split(separator: "-"), parts.count == 4 else { return nil }
        let numbers = parts.dropFirst().compactMap { Int($0) }
        guard numbers.count == 3 else { return nil }
        switch parts[0] {
        case "sent":
            return "Sent \(numbers[0]) to Pl@ntNet: \(counted(numbers[1], "plant")) flagged, \(numbers[2]) still waiting."
        case "rescored":
            return "Re-scored \(counted(numbers[0], "identification")): \(counted(numbers[1], "plant")) flagged, \(numbers[2]) failed."
        default:
            return nil
        }
    }

    /// The statistics panel's figures; a log that cannot be read shows as such, never fails the page.
    private func statisticsPanel(context: AppRequestContext) async -> Pages.StatisticsPanel? {
        guard let statistics else { return nil }
        do {
            return .figures(try await statistics.summary(Self.statisticsWindow))
        } catch {
            context.logger.warning("identification statistics not read", metadata: ["error": "\(error)"])
            return .unreadable
        }
    }

    /// The feed's full address as this browser reaches the server (through a TLS proxy: https).
    static func feedAddress(_ token: String, request: Request, context: AppRequestContext) -> String {
        let host = request.head.authority ?? "127.0.0.1"
        let safeHost = host.unicodeScalars.allSatisfy { $0.isASCII && !CharacterSet.whitespacesAndNewlines.contains($0) && $0 != "/" }
            ? host : "127.0.0.1"
        return "\(context.isHTTPS ? "https" : "http")://\(safeHost)/care/feed/\(token).ics"
    }

    /// The lengths of a Pl@ntNet API key, as the OpenAPI document states them.
    static let apiKeyLengths = 8...200

    /// Whether `key` looks like a Pl@ntNet API key: ASCII letters, digits, `-` and `_`, of ``apiKeyLengths``
    /// (the `apiKey` pattern of the OpenAPI document, so both judge a key alike).
    static func isAPIKey(_ key: String) -> Bool {
        apiKeyLengths.contains(key.utf8.count)
            && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// Stores the key. The settings form drops the spaces a paste brings along; the API takes the key as sent,
    /// as its schema says.
    private func replace(_ key: String?, trimming: Bool) async throws {
        guard let settings else { throw ServerError.capabilityMissing("Storing an API key is not available in this build yet.") }
        var key = key ?? ""
        if trimming { key = key.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard Self.isAPIKey(key) else {
            throw ServerError.badRequest("That does not look like a Pl@ntNet API key (letters and digits, as shown on my.plantnet.org).")
        }
        try await settings.replaceAPIKey(key)
    }

    private func facts() async throws -> SettingsBody {
        guard let settings else {
            return SettingsBody(
                available: false, apiKeySet: nil, apiKeySource: nil, quota: nil, cache: [], model: [],
                identification: identification?.summary
            )
        }
        let source = await settings.apiKeySource()
        return SettingsBody(
            available: true, apiKeySet: source != nil, apiKeySource: source, quota: await settings.quota(),
            cache: await settings.cacheStatistics().map { SettingsBody.Row(label: $0.label, value: $0.value) },
            model: await settings.modelInfo().map { SettingsBody.Row(label: $0.label, value: $0.value) },
            identification: identification?.summary
        )
    }
}

/// `GET /api/settings`.
struct SettingsBody: Codable, Sendable {
    struct Row: Codable, Sendable {
        var label: String
        var value: String
    }

    var available: Bool
    var apiKeySet: Bool?
    /// Where the key in use comes from (never the key itself).
    var apiKeySource: APIKeySource?
    var quota: QuotaStatus?
    var cache: [Row]
    var model: [Row]
    var identification: String?
}

/// `PUT /api/settings/api-key`.
struct APIKeyBody: Codable, Sendable {
    var apiKey: String
}
