import Foundation
import PlantGuideCore
import PlantNetAPI

extension Pages {
    /// The calendar subscription as Settings shows it: its address when it is on.
    struct CalendarFeedState {
        var address: String?
    }

    static func settings(_ facts: SettingsBody, saved: Bool, feed: CalendarFeedState? = nil, context: AppRequestContext) -> HTML {
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
                    \(identification)
                    \(Layout.unavailable("Changing settings", how: "<p>This build cannot store an API key or show quota and cache figures yet. Set <code>PLANTNET_API_KEY</code> in the server's environment meanwhile.</p>"))
                    \(feed.map { calendarFeedSection($0, context: context) } ?? "")
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
                <section class="card" aria-labelledby="key"><h2 id="key">Pl@ntNet API key</h2>
                \(keyState)
                <form method="post" action="/settings/api-key">
                \(Layout.csrfField(context))
                <label for="apiKey">\(facts.apiKeySet == true ? "Replace the key" : "API key")</label>
                <input id="apiKey" name="apiKey" type="password" autocomplete="new-password" required minlength="8" maxlength="200">
                <p><button type="submit">Save key</button></p>
                </form></section>
                \(feed.map { calendarFeedSection($0, context: context) } ?? "")
                <section class="card" aria-labelledby="quota"><h2 id="quota">Quota</h2>\(quota)</section>
                <section class="card" aria-labelledby="cache"><h2 id="cache">Identification cache</h2>\(table(facts.cache, empty: "No cache figures."))</section>
                <section class="card" aria-labelledby="model"><h2 id="model">On-device model</h2>\(table(facts.model, empty: "No on-device model is installed."))</section>
                \(identification)
                """
        )
    }

    /// "Calendar subscription": a secret address a phone calendar can poll without logging in, renewed or turned off
    /// here.
    static func calendarFeedSection(_ feed: CalendarFeedState, context: AppRequestContext) -> HTML {
        let body: HTML
        if let address = feed.address {
            let webcal = address.replacingOccurrences(of: "https://", with: "webcals://").replacingOccurrences(of: "http://", with: "webcal://")
            body = """
                <p>Subscribe to this address in your phone's calendar to see care tasks there. Anyone with the address can \
                read your care tasks (nothing else), so keep it to yourself.</p>
                <label for="feed-address">Calendar address</label>
                <input id="feed-address" type="text" readonly value="\(address)">
                <p class="row"><a class="button secondary" href="\(webcal)">Open in calendar app</a></p>
                <form method="post" action="/settings/calendar-feed" class="row">
                \(Layout.csrfField(context))
                <button type="submit" name="action" value="renew" class="secondary">Make a new address</button>
                <button type="submit" name="action" value="revoke" class="secondary">Turn off</button>
                </form>
                <p class="meta">A new address stops the old one at once; so does turning it off.</p>
                """
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
}
