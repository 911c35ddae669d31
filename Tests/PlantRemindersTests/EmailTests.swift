import Foundation
import PlantGuideCore
import PlantStore
import Testing
@testable import PlantReminders

/// Email settings and the message's shape (Tests/Reminders/email_check.py sends real ones to a real SMTP server).
@Suite struct EmailTests {
    private let base = ["PLANTGUIDE_SMTP_HOST": "smtp.example.org", "PLANTGUIDE_SMTP_FROM": "plants@example.org"]

    @Test func settingsComeFromTheEnvironmentAndUnsafeOnesAreRefused() throws {
        #expect(try SMTPSettings.from(environment: [:]) == nil)
        let plain = try #require(try SMTPSettings.from(environment: base))
        #expect(plain.security == .starttls && plain.port == 587 && plain.user == nil)
        let tls = try #require(try SMTPSettings.from(environment: base.merging(["PLANTGUIDE_SMTP_SECURITY": "TLS"]) { $1 }))
        #expect(tls.security == .tls && tls.port == 465)
        let relay = try #require(try SMTPSettings.from(environment: base.merging([
            "PLANTGUIDE_SMTP_HOST": "localhost", "PLANTGUIDE_SMTP_SECURITY": "none",
        ]) { $1 }))
        #expect(relay.port == 25)
        for bad in [
            ["PLANTGUIDE_SMTP_SECURITY": "none"],  // in the clear to another machine
            ["PLANTGUIDE_SMTP_SECURITY": "ssl3"],
            ["PLANTGUIDE_SMTP_PORT": "70000"],
            ["PLANTGUIDE_SMTP_FROM": "not an address"],
            ["PLANTGUIDE_SMTP_USER": "gardener"],  // a user without a password
        ] {
            #expect(throws: SMTPError.self, "\(bad)") { try SMTPSettings.from(environment: base.merging(bad) { $1 }) }
        }
        #expect(ReminderRules.isEmailAddress("a.b+plants@example.org"))
        for bad in ["a@b", "@example.org", "a b@example.org", "a@example.org.", "<a@example.org>", "a@@example.org"] {
            #expect(!ReminderRules.isEmailAddress(bad), "\(bad)")
        }
    }

    @Test func theMessageIsMIMEWithBothPartsAndEscapesWhatPeopleTyped() throws {
        let day = try #require(CalendarDay("2026-06-01"))
        var digest = ReminderDigest(household: 1, day: day, due: DueList(today: day, through: day, rooms: []), publicURL: nil)
        digest.items = [ReminderDigest.Item(
            plantId: 1, plant: "<script>Fern</script>", room: "Büro & Bad", task: "water", action: "Water", dueOn: day,
            overdueDays: 2
        )]
        digest.title = "1 plant task today — Büro"
        let message = EmailMessage(
            digest: digest, to: "alice@example.org", from: "plants@example.org", publicURL: nil, actionKey: nil,
            now: Date(timeIntervalSince1970: 1_780_300_000)
        )
        let rendered = message.rendered()
        #expect(!rendered.contains("\n") || rendered.components(separatedBy: "\n").dropLast().allSatisfy { $0.hasSuffix("\r") })
        #expect(rendered.contains("Subject: =?utf-8?b?"))
        #expect(rendered.contains("List-Unsubscribe: <mailto:plants@example.org?subject=Stop%20plant%20reminders>"))
        #expect(rendered.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 998 })
        #expect(message.html.contains("&lt;script&gt;Fern&lt;/script&gt;") && !message.html.contains("<script>"))
        #expect(message.html.contains("Büro &amp; Bad") && message.text.contains("(2 days overdue)"))
        // Without a public address there is nothing to link to.
        #expect(!message.text.contains("/reminders/act"))
    }
}
