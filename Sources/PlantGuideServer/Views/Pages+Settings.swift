import Foundation
import PlantGuideCore
import PlantNetAPI
import PlantReminders
import PlantStore

extension Pages {
    /// The household's hemisphere and time zone as Settings shows them.
    struct CarePlaceState {
        var settings: CareSettings
        /// The page comes back after a change.
        var saved: Bool
        /// Whether this user may change them (an owner, or anyone on a server without accounts).
        var mayChange: Bool
    }

    /// "Seasons and time zone": which months are winter and which day is today, for this household's care schedules.
    static func carePlaceSection(_ state: CarePlaceState, context: AppRequestContext) -> HTML {
        let settings = state.settings
        let half = settings.hemisphere == .north ? "Northern" : "Southern"
        let winter = settings.hemisphere == .north ? "October to March" : "April to September"
        let whose: (Bool) -> String = { $0 ? "chosen for this household" : "this server's default" }
        let zoneName = settings.timeZone.identifier
        let facts: HTML = """
            <p>\(half) hemisphere (\(whose(settings.hemisphereIsSet))): winter, when plants rest and are watered less and not fed, \
            is \(winter). Time zone \(zoneName) (\(whose(settings.timeZoneIsSet))): it decides which day is today.</p>
            """
        let saved: HTML = state.saved ? "<div class=\"notice ok\" role=\"status\">Saved: every schedule follows it from now on.</div>" : ""
        guard state.mayChange else {
            return "<section class=\"card\" aria-labelledby=\"care\"><h2 id=\"care\">Seasons and time zone</h2>\(facts)<p class=\"meta\">Only an owner can change them.</p></section>"
        }
        func option(_ value: String, _ label: String, selected: Bool) -> HTML {
            "<option value=\"\(value)\"\(selected ? " selected" : "")>\(label)</option>"
        }
        let hemispheres: [HTML] = [
            option("north", "Northern (winter October–March)", selected: settings.hemisphere == .north),
            option("south", "Southern (winter April–September)", selected: settings.hemisphere == .south),
        ]
        // The zone in use is always offered, even when the system's list names it otherwise (Etc/UTC).
        let zones = (["UTC", zoneName] + TimeZone.knownTimeZoneIdentifiers.sorted()).reduce(into: [String]()) { list, name in
            if !list.contains(name) { list.append(name) }
        }
        let zoneOptions: [HTML] = zones.map { option($0, $0, selected: $0 == zoneName) }
        return """
            <section class="card" aria-labelledby="care"><h2 id="care">Seasons and time zone</h2>
            \(saved)
            \(facts)
            <form method="post" action="/settings/care">\(Layout.csrfField(context))
            <label for="care-hemisphere">Hemisphere</label>
            <select id="care-hemisphere" name="hemisphere">\(hemispheres)</select>
            <label for="care-time-zone">Time zone</label>
            <select id="care-time-zone" name="timeZone">\(zoneOptions)</select>
            <p><button type="submit">Save seasons and time zone</button></p>
            </form>
            </section>
            """
    }

    /// The household's reminder channels as Settings shows them.
    struct RemindersState {
        var channels: [ReminderChannel]
        /// What the last action did, to say at the top of the section.
        var message: String?
        /// Whether that was a failure.
        var failed: Bool
        /// The household's time zone, in which the times of day are.
        var timeZone: String
        /// The server's Web Push key, when this browser may subscribe.
        var webPushKey: String?
        /// Whether an SMTP server is set up, so email can be chosen.
        var emailReady = false
        /// The logged-in member (their channels are theirs), or `nil` on an open server (the household's).
        var member: Int64? = nil
        /// Whether the server can set an hour and quiet hours for the member's channels.
        var canSchedule = false

        /// The channels of the member (or, on an open server, the household's own).
        var own: [ReminderChannel] { channels.filter { $0.member == member } }
        /// Their reminder hour (of their first channel; 08:00 before they have one).
        var minuteOfDay: Int { ReminderRules.schedule(of: member, in: channels)?.minuteOfDay ?? ReminderRules.standardMinuteOfDay }
        /// Their quiet hours.
        var quietHours: QuietHours? { ReminderRules.schedule(of: member, in: channels)?.quietHours }
    }

    /// A reminder's action from an email link: the button that does it (`token`), or what it did (`outcome`).
    static func reminderAction(token: String?, outcome: ReminderActionOutcome?, context: AppRequestContext) -> HTML {
        let body: HTML
        if let outcome {
            let what = outcome.action == .done ? "marked done" : "put off to tomorrow"
            let count = outcome.changed == 1 ? "1 task" : "\(outcome.changed) tasks"
            let same: HTML = outcome.unchanged > 0
                ? " \(outcome.unchanged == 1 ? "1 task was" : "\(outcome.unchanged) tasks were") already done or gone." : ""
            body = """
                <h1>Care reminder</h1>
                <div class="notice ok" role="status"><p>\(count) \(what).\(same)</p></div>
                <p><a href="/care">Open the Care page</a></p>
                """
        } else {
            body = """
                <h1>Care reminder</h1>
                <p>Mark this reminder's care as done today?</p>
                <form method="post" action="/reminders/act"><input type="hidden" name="token" value="\(token ?? "")">
                <p><button type="submit">Mark done</button></p></form>
                <p><a href="/care">Open the Care page instead</a></p>
                """
        }
        return Layout.page(title: "Care reminder", tab: nil, context: context, body: body)
    }

    /// "Send reminders to this browser": shown by the page's script only where the browser can take push messages.
    static func pushBlock(key: String, context: AppRequestContext, minuteOfDay: Int = 480) -> HTML {
        """
        <div data-push-subscribe data-key="\(key)" hidden>\(Layout.csrfField(context))
        <h3>This browser</h3>
        <p>Get the digest as a notification on this phone or computer, even with PlantGuide closed (on an iPhone, add \
        PlantGuide to the Home Screen first).</p>
        <label for="push-time">Time of day</label>
        <input id="push-time" type="time" value="\(ReminderRules.timeOfDay(minuteOfDay))" required>
        <p><button type="button" data-push-button>Send reminders to this browser</button></p>
        <p class="meta" role="status" data-push-status></p>
        </div>
        """
    }

    /// "Your reminder hour": the hour and quiet hours of all the member's channels (the household's on an open server).
    static func scheduleForm(_ state: RemindersState, context: AppRequestContext) -> HTML {
        let quiet = state.quietHours
        let whose: HTML = state.member == nil ? "The reminders' hour" : "Your reminders' hour"
        return """
            <form method="post" action="/settings/reminders/schedule">\(Layout.csrfField(context))
            <h3>\(whose)</h3>
            <label for="schedule-time">Time of day</label>
            <input id="schedule-time" name="time" type="time" value="\(ReminderRules.timeOfDay(state.minuteOfDay))" required>
            <fieldset><legend>Quiet hours (optional): nothing is sent between these times, not even a late retry</legend>
            <label for="quiet-from">From</label>
            <input id="quiet-from" name="quiet_from" type="time" value="\(quiet.map { ReminderRules.timeOfDay($0.from) } ?? "")">
            <label for="quiet-until">Until</label>
            <input id="quiet-until" name="quiet_until" type="time" value="\(quiet.map { ReminderRules.timeOfDay($0.until) } ?? "")">
            </fieldset>
            <p><button type="submit" class="secondary">Save the hour</button></p>
            </form>
            """
    }

    /// "Care reminders": the channels the day's digest goes to, a test for each, and a form to add one.
    static func remindersSection(_ state: RemindersState, context: AppRequestContext) -> HTML {
        let notice: HTML = state.message.map { message in
            let kind = state.failed ? "error" : "ok"
            return "<div class=\"notice \(kind)\" role=\"status\">\(message)</div>"
        } ?? ""
        let items: [HTML] = state.channels.map { channel in
            let name = switch channel.kind {
            case .ntfy: "ntfy"
            case .webhook: "Webhook"
            case .webpush: "Browser"
            case .email: "Email"
            }
            let token: HTML = channel.token == nil || channel.kind == .webpush ? "" : " <span class=\"meta\">(access token set)</span>"
            let off: HTML = channel.enabled ? "" : " <span class=\"badge\">off</span>"
            let note: HTML = channel.note.map { "<p class=\"meta\">\($0)</p>" } ?? ""
            let label = "\(name) \(channel.shownTarget)"
            let whose: HTML = state.member == nil && channel.member == nil ? ""
                : channel.member == state.member ? " <span class=\"meta\">(yours)</span>"
                : " <span class=\"meta\">(\(channel.memberName ?? "everyone"))</span>"
            let quiet: HTML = channel.quietHours.map { " <span class=\"meta\">quiet \($0.description)</span>" } ?? ""
            return """
                <li class="card"><strong>\(name)</strong> <code>\(channel.shownTarget)</code> at \(channel.timeOfDay)\(quiet)\(whose)\(token)\(off)\(note)
                <div class="row">
                <form method="post" action="/settings/reminders/\(Int(channel.id))/test">\(Layout.csrfField(context))\
                <button type="submit" class="secondary">Send a test<span class="visually-hidden">: \(label)</span></button></form>
                <form method="post" action="/settings/reminders/\(Int(channel.id))/remove">\(Layout.csrfField(context))\
                <button type="submit" class="secondary">Remove<span class="visually-hidden">: \(label)</span></button></form>
                </div></li>
                """
        }
        let list: HTML = state.channels.isEmpty ? "<p>No reminders yet.</p>" : "<ul class=\"plants\">\(items)</ul>"
        return """
            <section class="card" aria-labelledby="reminders"><h2 id="reminders">Care reminders</h2>
            \(notice)
            <p>Once a day, at the time you choose (\(state.timeZone) time), the care due that day and anything overdue is \
            shown as a notification in this browser, sent to an <a href="https://ntfy.sh">ntfy</a> topic (its phone app \
            shows it as a notification) or to a webhook as JSON. Nothing is sent on a day with nothing due. Use a long, random ntfy topic: anyone who knows it can read it.</p>
            \(list)
            \(state.canSchedule && !state.own.isEmpty ? scheduleForm(state, context: context) : "")
            \(state.webPushKey.map { pushBlock(key: $0, context: context, minuteOfDay: state.minuteOfDay) } ?? "")
            <form method="post" action="/settings/reminders">\(Layout.csrfField(context))
            <label for="reminder-kind">Send to</label>
            <select id="reminder-kind" name="kind"><option value="ntfy">an ntfy topic</option>\
            <option value="webhook">a webhook (JSON)</option>\
            \(state.emailReady ? "<option value=\"email\">an email address</option>" : "" as HTML)</select>
            <label for="reminder-url">Address</label>
            <input id="reminder-url" name="url" type="text" inputmode="url" autocomplete="off" required \
            maxlength="\(ReminderRules.maximumTargetCharacters)" placeholder="https://ntfy.sh/a-long-random-topic or you@example.org">
            <label for="reminder-time">Time of day</label>
            <input id="reminder-time" name="time" type="time" value="\(ReminderRules.timeOfDay(state.minuteOfDay))" required>
            <label for="reminder-token">Access token (optional)</label>
            <input id="reminder-token" name="token" type="password" autocomplete="new-password" maxlength="\(ReminderRules.maximumTargetCharacters)">
            <p><button type="submit">Add the reminder</button></p>
            </form>
            </section>
            """
    }

    /// The calendar subscription as Settings shows it: its address when it is on.
    struct CalendarFeedState {
        var address: String?
    }

    /// The identification settings as Settings shows them.
    struct IdentificationChoices {
        var preferences: ServerPreferences
        var strategies: [IdentifyStrategy]
        var models: [String]
        var currentModel: String?
        var saved: Bool
    }

    /// The re-check queue as Settings shows it.
    struct RecheckState {
        var summary: RecheckSummary
        /// Whether Pl@ntNet is set up to send it.
        var online: Bool
        /// The loaded on-device model that "Re-score" uses, if any.
        var rescoreModel: String?
        /// What the last action did.
        var message: String?
    }

    /// The identification statistics as Settings shows them.
    enum StatisticsPanel {
        case figures(IdentificationStatistics)
        /// The log could not be read.
        case unreadable
    }

    static func settings(
        _ facts: SettingsBody, saved: Bool, feed: CalendarFeedState? = nil, choices: IdentificationChoices? = nil,
        recheck: RecheckState? = nil, statistics: StatisticsPanel? = nil, modelProblem: String? = nil,
        models: ModelInstallState? = nil, care: CarePlaceState? = nil, reminders: RemindersState? = nil,
        preferencesSaved: Bool = false, context: AppRequestContext
    ) -> HTML {
        let preferences: HTML = context.user.map {
            preferencesSection($0, saved: preferencesSaved, browser: context.browserLanguage, context: context)
        } ?? ""
        func table(_ rows: [SettingsBody.Row], empty: String) -> HTML {
            guard !rows.isEmpty else { return "<p>\(empty)</p>" }
            let items: [HTML] = rows.map { "<tr><th scope=\"row\">\($0.label)</th><td>\($0.value)</td></tr>" }
            return "<table>\(items)</table>"
        }
        let identification: HTML = "<p>Identification: \(facts.identification ?? "not set up yet")</p>"
        guard facts.available else {
            return Layout.page(
                title: "Settings", tab: .settings, context: context,
                body: """
                    <h1>Settings</h1>
                    \(preferences)
                    \(identification)
                    \(care.map { carePlaceSection($0, context: context) } ?? "")
                    \(reminders.map { remindersSection($0, context: context) } ?? "")
                    \(Layout.unavailable("Changing settings", how: "<p>This build cannot store an API key or show quota and cache figures yet. Set <code>PLANTNET_API_KEY</code> in the server's environment meanwhile.</p>"))
                    \(feed.map { calendarFeedSection($0, context: context) } ?? "")
                    \(statistics.map(statisticsSection) ?? "")
                    """
            )
        }
        let keyState: HTML =
            switch facts.apiKeySource {
            case .environment?:
                """
                <p><span class="badge db">Set</span> The Pl@ntNet API key comes from the <code>PLANTNET_API_KEY</code> \
                environment variable of the server; while it is set, a key saved here is not used. The key is never shown.</p>
                """
            case .dataDirectory?:
                """
                <p><span class="badge db">Set</span> A Pl@ntNet API key is stored in the data directory. \
                It is never shown again; paste a new one to replace it.</p>
                """
            case nil:
                "<p><span class=\"badge source\">Not set</span> No Pl@ntNet API key yet. Get one free at my.plantnet.org.</p>"
            }
        let quota: HTML = facts.quota.map { quota in
            let left = quota.limit.map { "\(quota.remaining) of \(counted($0, "identification"))" }
                ?? counted(quota.remaining, "identification")
            return "<p>\(left) left today (resets at midnight UTC).</p>"
        } ?? "<p>Not known yet: it is read from Pl@ntNet's answers.</p>"
        let savedNotice: HTML =
            switch (saved, facts.apiKeySource) {
            case (false, _): ""
            case (true, .environment?):
                "<div class=\"notice\" role=\"status\">The API key was saved, but <code>PLANTNET_API_KEY</code> is used while it is set.</div>"
            case (true, _): "<div class=\"notice ok\" role=\"status\">The API key was saved and is used from now on.</div>"
            }
        return Layout.page(
            title: "Settings", tab: .settings, context: context,
            body: """
                <h1>Settings</h1>
                \(savedNotice)
                \(preferences)
                \(context.user?.role == .owner ? "<p><a href=\"/settings/users\">Users</a>: add, remove and reset the accounts.</p>" as HTML : "")
                \(context.user?.role == .member ? "<div class=\"notice\" role=\"note\">You are a member: only an owner can change the calendar address, send the re-check queue, and manage the accounts.</div>" as HTML : "")
                \(context.mayChangeInstallation ? "" : "<div class=\"notice\" role=\"note\">The Pl@ntNet key and the identification settings are shared by every household of this PlantGuide: only an owner of the household that runs it can change them.</div>" as HTML)
                <section class="card" aria-labelledby="key"><h2 id="key">Pl@ntNet API key</h2>
                \(keyState)
                \(!context.mayChangeInstallation ? "" as HTML : """
                    <form method="post" action="/settings/api-key">
                    \(Layout.csrfField(context))
                    <label for="apiKey">\(facts.apiKeySet == true ? "Replace the key" : "API key")</label>
                    <input id="apiKey" name="apiKey" type="password" autocomplete="new-password" required minlength="8" maxlength="200">
                    <p><button type="submit">Save key</button></p>
                    </form>
                    """)
                </section>
                \(choices.map { identificationSection($0, context: context) } ?? "")
                \(recheck.map { recheckSection($0, context: context) } ?? "")
                \(care.map { carePlaceSection($0, context: context) } ?? "")
                \(reminders.map { remindersSection($0, context: context) } ?? "")
                \(feed.map { calendarFeedSection($0, context: context) } ?? "")
                <section class="card" aria-labelledby="quota"><h2 id="quota">Quota</h2>\(quota)</section>
                <section class="card" aria-labelledby="cache"><h2 id="cache">Identification cache</h2>\(table(facts.cache, empty: "No cache figures."))</section>
                <section class="card" aria-labelledby="model"><h2 id="model">On-device model</h2>\(table(facts.model, empty: "No on-device model is installed."))\(modelProblem.map { "<p class=\"error\" role=\"status\">\($0)</p>" as HTML } ?? "")\(models.map { modelInstallSection($0, context: context) } ?? "")</section>
                \(statistics.map(statisticsSection) ?? "")
                \(identification)
                """
        )
    }

    /// "Re-checks": answers the device gave in Pl@ntNet's place wait here; PlantGuide sends them by itself when Pl@ntNet
    /// can be reached, or now; and saved identifications can be re-scored with the model loaded now.
    static func recheckSection(_ state: RecheckState, context: AppRequestContext) -> HTML {
        let summary = state.summary
        let rows: [HTML] = [
            "<tr><th scope=\"row\">Waiting</th><td>\(summary.queued)</td></tr>",
            "<tr><th scope=\"row\">Re-checked</th><td>\(summary.done)</td></tr>",
            "<tr><th scope=\"row\">Failed</th><td>\(summary.failed)</td></tr>",
            "<tr><th scope=\"row\">Expired (not saved, 30 days)</th><td>\(summary.expired)</td></tr>",
            "<tr><th scope=\"row\">Suggestions waiting for you</th><td>\(summary.openSuggestions)</td></tr>",
        ]
        let send: HTML = state.online
            ? "<button type=\"submit\" name=\"action\" value=\"send\">Send now</button>"
            : "<span class=\"meta\">Add a Pl@ntNet API key to send them.</span>"
        let rescore: HTML = state.rescoreModel.map { model in
            "<button type=\"submit\" name=\"action\" value=\"rescore\" class=\"secondary\">Re-score saved plants with \(model)</button>"
        } ?? ""
        return """
            <section class="card" aria-labelledby="recheck"><h2 id="recheck">Re-checks</h2>
            \(state.message.map { "<div class=\"notice ok\" role=\"status\">\($0)</div>" as HTML } ?? "")
            <p>Answers this device gave because Pl@ntNet could not be reached, was out of quota, or the device was not sure \
            wait here with their photos. PlantGuide sends them by itself when Pl@ntNet can be reached, keeping part of the \
            daily quota for identifications you ask for. When Pl@ntNet names another species, the plant's page asks you.</p>
            <table><caption>Re-check queue</caption>\(rows)</table>
            \(context.user?.role == .member
                ? "<p class=\"meta\">An owner can send them now or re-score them.</p>" as HTML
                : "<form method=\"post\" action=\"/settings/recheck\" class=\"row\">\(Layout.csrfField(context))\(send) \(rescore)</form>")
            </section>
            """
    }

    /// "Identification statistics": time per stage (count, p50, p95), where answers came from, what the cache saved,
    /// and Pl@ntNet use per UTC day.
    static func statisticsSection(_ panel: StatisticsPanel) -> HTML {
        let body: HTML
        switch panel {
        case .unreadable:
            body = "<p>The log of identifications cannot be read just now; the server's log says why.</p>"
        case .figures(let statistics) where statistics.identifications == 0:
            body = "<p>No identifications yet. Every identification, saved or not, is counted here (without its photos).</p>"
        case .figures(let statistics):
            body = statisticsFigures(statistics)
        }
        return """
            <section class="card" aria-labelledby="statistics"><h2 id="statistics">Identification statistics</h2>
            \(body)
            </section>
            """
    }

    private static func statisticsFigures(_ statistics: IdentificationStatistics) -> HTML {
        func milliseconds(_ value: Double) -> String {
            if value >= 1000 { return String(format: "%.1f s", value / 1000) }
            return value < 10 ? String(format: "%.1f ms", value) : String(format: "%.0f ms", value)
        }
        let shown = statistics.identifications < statistics.last
            ? "\(counted(statistics.identifications, "identification")) so far"
            : "the last \(counted(statistics.identifications, "identification"))"
        let stages: [HTML] = statistics.stages.map { figures in
            """
            <tr><th scope="row">\(figures.stage.label)</th><td>\(figures.count)</td>\
            <td>\(milliseconds(figures.p50Milliseconds))</td><td>\(milliseconds(figures.p95Milliseconds))</td></tr>
            """
        }
        let sources = statistics.sources
        let answers = "Answers: \(sources["onDevice"] ?? 0) on the device, \(sources["plantNetAPI"] ?? 0) from Pl@ntNet, "
            + "\(sources["cache"] ?? 0) from the cache."
        let cache = statistics.cacheHitRate.map { rate in
            "The cache answered \(statistics.cacheHits) of \(statistics.cacheHits + statistics.apiCalls) Pl@ntNet identifications "
                + "(\(Int((rate * 100).rounded())) %), saving \(counted(statistics.apiCallsSaved, "request"))."
        } ?? "Pl@ntNet was not asked, so the cache was not used."
        let days: [HTML] = statistics.quotaPerDay.map { day in
            """
            <tr><th scope="row">\(day.day)</th><td>\(day.apiCalls)</td><td>\(day.cacheHits)</td>\
            <td>\(day.lowestRemaining.map(String.init) ?? "not known")</td></tr>
            """
        }
        let perDay: HTML = days.isEmpty ? "<p>No identifications in the last 30 days.</p>" : """
            <table>
            <caption>Pl@ntNet use per day (UTC), last 30 days</caption>
            <thead><tr><th scope="col">Day</th><th scope="col">Answered by Pl@ntNet</th><th scope="col">From the cache</th>\
            <th scope="col">Fewest left</th></tr></thead>
            <tbody>\(days)</tbody>
            </table>
            """
        return """
            <table>
            <caption>Time per stage over \(shown)</caption>
            <thead><tr><th scope="col">Stage</th><th scope="col">Count</th><th scope="col">Median (p50)</th>\
            <th scope="col">p95</th></tr></thead>
            <tbody>\(stages)</tbody>
            </table>
            <p class="meta">Percentiles by nearest rank: each is a time one identification really took.</p>
            <p>\(answers) \(cache)</p>
            \(perDay)
            <p class="meta">“Fewest left” is what Pl@ntNet reported, counting every use of the key.</p>
            """
    }

    /// "Calendar subscription": a secret address a phone calendar can poll without logging in, renewed or turned off
    /// here.
    static func calendarFeedSection(_ feed: CalendarFeedState, context: AppRequestContext) -> HTML {
        let body: HTML
        let isMember = context.user?.role == .member
        if let address = feed.address {
            let webcal = address.replacingOccurrences(of: "https://", with: "webcals://").replacingOccurrences(of: "http://", with: "webcal://")
            let controls: HTML = isMember
                ? "<p class=\"meta\">Only an owner can make a new address or turn it off.</p>"
                : """
                    <form method="post" action="/settings/calendar-feed" class="row">
                    \(Layout.csrfField(context))
                    <button type="submit" name="action" value="renew" class="secondary">Make a new address</button>
                    <button type="submit" name="action" value="revoke" class="secondary">Turn off</button>
                    </form>
                    <p class="meta">A new address stops the old one at once; so does turning it off.</p>
                    """
            body = """
                <p>Subscribe to this address in your phone's calendar to see care tasks there. Anyone with the address can \
                read your care tasks (nothing else), so keep it to yourself.</p>
                <label for="feed-address">Calendar address</label>
                <input id="feed-address" type="text" readonly value="\(address)">
                <p class="row"><a class="button secondary" href="\(webcal)">Open in calendar app</a></p>
                \(controls)
                """
        } else if isMember {
            body = "<p>Phone calendars cannot log in. An owner can make a secret address for them here.</p>"
        } else {
            body = """
                <p>Phone calendars cannot log in. Make a secret address for them, and your care tasks show up in your calendar.</p>
                <form method="post" action="/settings/calendar-feed">
                \(Layout.csrfField(context))
                <button type="submit" name="action" value="renew">Make a calendar address</button>
                </form>
                """
        }
        return """
            <section class="card" aria-labelledby="calendar"><h2 id="calendar">Calendar subscription</h2>
            \(body)
            </section>
            """
    }

    /// "Identification": the strategy the Identify page preselects, the confidence threshold, the on-device model.
    static func identificationSection(_ choices: IdentificationChoices, context: AppRequestContext) -> HTML {
        let strategies: [HTML] = IdentifyStrategy.formChoices.filter { choices.strategies.contains($0) || $0 == choices.preferences.defaultStrategy }
            .map { strategy in
                let selected = strategy == choices.preferences.defaultStrategy ? " selected" : ""
                return "<option value=\"\(strategy.rawValue)\"\(selected)>\(strategy.label)</option>"
            }
        let thresholds: [HTML] = ServerPreferences.thresholds.map { value in
            let percent = Int((value * 100).rounded())
            let selected = abs(value - choices.preferences.threshold) < 0.001 ? " selected" : ""
            return "<option value=\"\(percent)\"\(selected)>\(percent) %</option>"
        }
        let models: HTML = choices.models.isEmpty ? "" : """
            <label for="onDeviceModel">On-device model</label>
            <select id="onDeviceModel" name="model">\(choices.models.map { name -> HTML in
                "<option value=\"\(name)\"\(name == choices.currentModel ? " selected" : "")>\(name)</option>"
            })</select>
            """
        let notice: HTML = choices.saved
            ? "<div class=\"notice ok\" role=\"status\">Saved; identifications use these settings from now on.</div>" : ""
        // A member reads the settings an owner chose; only an owner gets the form.
        guard context.mayChangeInstallation else {
            let percent = Int((choices.preferences.threshold * 100).rounded())
            let model: HTML = choices.currentModel.map { "<tr><th scope=\"row\">On-device model</th><td>\($0)</td></tr>" } ?? ""
            return """
                <section class="card" aria-labelledby="identification"><h2 id="identification">Identification</h2>
                <table><tbody>
                <tr><th scope="row">The Identify page starts with</th><td>\(choices.preferences.defaultStrategy.label)</td></tr>
                <tr><th scope="row">Confident from</th><td>\(percent) %</td></tr>
                \(model)
                </tbody></table></section>
                """
        }
        return """
            <section class="card" aria-labelledby="identification"><h2 id="identification">Identification</h2>
            \(notice)
            <form method="post" action="/settings/identification">
            \(Layout.csrfField(context))
            <label for="defaultStrategy">The Identify page starts with</label>
            <select id="defaultStrategy" name="defaultStrategy">\(strategies)</select>
            <label for="threshold">Confident from</label>
            <select id="threshold" name="threshold" aria-describedby="threshold-help">\(thresholds)</select>
            <p id="threshold-help" class="meta">Below this, an answer is shown as “not sure”, and “best available” also asks \
            Pl@ntNet after the device.</p>
            \(models)
            <p><button type="submit">Save identification settings</button></p>
            </form></section>
            """
    }
}
