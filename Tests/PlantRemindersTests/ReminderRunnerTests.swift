import Crypto
import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStoreSQLite
import Testing
@testable import PlantReminders

/// The daily digest end to end: a real SQLite file, the real HTTP client, a receiver on 127.0.0.1 standing for ntfy or
/// a webhook, and a pinned clock moved across the send time, days without a run and a daylight-saving change.
@Suite struct ReminderRunnerTests {
    /// A collection with a Boston fern (watered 4 days before `today`, so due then) and a snake plant (not due), its
    /// household in Paris, and a runner that may send to loopback.
    private struct Setup {
        let directory: DataDirectory
        let database: CollectionDatabase
        let runner: ReminderRunner

        init(today: CalendarDay, timeZone: String = "Europe/Paris") async throws {
            directory = DataDirectory(url: FileManager.default.temporaryDirectory.appendingPathComponent("reminders-\(UUID())"))
            try directory.create()
            database = try CollectionDatabase.open(in: directory)
            let guide = try CareGuide.bundled()
            // Added at the start of the day: tasks never done (feeding, misting) first fall due an interval later.
            let added = today.start(in: try #require(TimeZone(identifier: timeZone)))
            let fern = try database.addPlant(
                NewPlant(name: "Boston fern", species: "Nephrolepis exaltata", room: "Bathroom"),
                profile: guide.profile(genus: "Nephrolepis", category: nil), photo: nil, now: added
            )
            let snake = try database.addPlant(
                NewPlant(name: "Snake plant", species: "Dracaena trifasciata", room: "Hall"),
                profile: guide.profile(genus: "Dracaena", category: nil), photo: nil, now: added
            )
            let profile = guide.profile(genus: "Nephrolepis", category: nil)
            let interval = CareSeason(of: today, hemisphere: .north) == .growing ? profile.waterGrowingDays : profile.waterWinterDays
            try database.logCare(plantId: fern.id, task: .water, day: today.adding(days: -interval), note: nil, soil: nil, now: added)
            try database.logCare(plantId: snake.id, task: .water, day: today.adding(days: -1), note: nil, soil: nil, now: added)
            try database.setHouseholdSetting(.careTimeZone, to: timeZone, household: 1, now: added)
            runner = ReminderRunner(
                store: database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
                targets: ReminderTargets(allowLocal: true), publicURL: URL(string: "https://plants.example.org")
            )
        }

        func cleanUp() { try? FileManager.default.removeItem(at: directory.url) }
    }

    private static func instant(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    @Test func eachChannelGetsOneDigestADayAtItsHourInTheHouseholdsTimeZone() async throws {
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let ntfy = try LoopbackReceiver(), hook = try LoopbackReceiver()
        let store = setup.database
        let topic = try store.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: ntfy.url("/plants-7f3a"), token: "tk_secret", minuteOfDay: 480),
            household: 1, now: Date()
        )
        _ = try store.addReminderChannel(
            NewReminderChannel(kind: .webhook, target: hook.url("/hook"), minuteOfDay: 1_140), household: 1, now: Date()
        )
        // 07:59 in Paris (CEST, UTC+2): not yet.
        let early = try await setup.runner.run(now: try Self.instant("2026-06-10T05:59:00Z"))
        #expect(early.map(\.state) == [.notYet, .notYet])
        #expect(ntfy.requests.isEmpty)
        // 08:00 in Paris: the ntfy digest goes, the webhook's (19:00) not yet.
        let first = try await setup.runner.run(now: try Self.instant("2026-06-10T06:00:00Z"))
        #expect(first.map(\.state) == [.sent, .notYet], "\(first.map(\.error))")
        #expect(first.first?.tasks == 1)
        let request = try #require(ntfy.requests.first)
        #expect(request.method == "POST" && request.path == "/plants-7f3a")
        #expect(request.headers["title"] == "PlantGuide: 1 plant task today")
        #expect(request.headers["authorization"] == "Bearer tk_secret")
        #expect(request.headers["click"] == "https://plants.example.org/care")
        #expect(request.headers["tags"] == "seedling" && request.headers["priority"] == "default")
        #expect(request.text.contains("Bathroom\n- Water Boston fern"))
        #expect(!request.text.contains("Snake plant"))
        // Later the same day, and from a second runner on the same file: nothing more.
        let again = try await setup.runner.run(now: try Self.instant("2026-06-10T09:00:00Z"))
        #expect(again.first?.state == .handled)
        #expect(ntfy.requests.count == 1)
        // 19:00: the webhook's digest, as JSON.
        let evening = try await setup.runner.run(now: try Self.instant("2026-06-10T17:00:00Z"))
        #expect(evening.map(\.state) == [.handled, .sent])
        let json = try #require(hook.requests.first)
        #expect(json.headers["content-type"] == "application/json")
        let digest = try JSONDecoder().decode(ReminderDigest.self, from: json.body)
        #expect(digest.items.map(\.plant) == ["Boston fern"] && digest.items.first?.task == "water")
        #expect(digest.day == CalendarDay("2026-06-10") && digest.link == "https://plants.example.org/care")
        // The token never leaves the store in the channel's encoding, and the topic is shortened.
        let encoded = String(decoding: try JSONEncoder().encode(topic), as: UTF8.self)
        #expect(!encoded.contains("tk_secret") && !encoded.contains("7f3a") && encoded.contains("\"tokenIsSet\":true"))
    }

    @Test func aTaskDoneBeforeTheHourIsNotInTheDigestAndAnEmptyDayIsNotSent() async throws {
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let ntfy = try LoopbackReceiver()
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: ntfy.url("/t"), minuteOfDay: 480), household: 1, now: Date()
        )
        try setup.database.logCare(plantId: 1, task: .water, day: try #require(CalendarDay("2026-06-10")), note: nil, soil: nil, now: Date())
        let results = try await setup.runner.run(now: try Self.instant("2026-06-10T06:30:00Z"))
        #expect(results.first?.state == .nothingDue)
        #expect(ntfy.requests.isEmpty)
        let records = try setup.database.reminderDigests(channel: 1, limit: 5)
        #expect(records.count == 1 && records.first?.tasks == 0 && records.first?.sentAt != nil)
    }

    @Test func afterDaysWithoutARunOneDigestCatchesUp() async throws {
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let ntfy = try LoopbackReceiver()
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: ntfy.url("/t"), minuteOfDay: 480), household: 1, now: Date()
        )
        // Down from the 10th to the 13th at noon: one digest, for the 13th, listing the fern 3 days overdue.
        let results = try await setup.runner.run(now: try Self.instant("2026-06-13T10:00:00Z"))
        #expect(results.first?.state == .sent, "\(results.map(\.error))")
        #expect(ntfy.requests.count == 1)
        #expect(ntfy.requests.first?.text.contains("Water Boston fern (3 days overdue)") == true)
        #expect(ntfy.requests.first?.headers["priority"] == "high")
        #expect(try setup.database.reminderDigests(channel: 1, limit: 10).map(\.day) == [CalendarDay("2026-06-13")])
    }

    @Test func theHourHoldsAcrossADaylightSavingChange() async throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        // 25 October 2026: clocks go back at 03:00 CEST; 08:00 is 06:00 UTC the day before and 07:00 UTC that day.
        let before = ReminderRunner.sendTime(of: try #require(CalendarDay("2026-10-24")), minuteOfDay: 480, in: paris)
        let after = ReminderRunner.sendTime(of: try #require(CalendarDay("2026-10-25")), minuteOfDay: 480, in: paris)
        #expect(before == (try Self.instant("2026-10-24T06:00:00Z")))
        #expect(after == (try Self.instant("2026-10-25T07:00:00Z")))
        // 29 March 2026: 02:30 does not exist in Paris; the digest goes at the first moment after.
        let skipped = ReminderRunner.sendTime(of: try #require(CalendarDay("2026-03-29")), minuteOfDay: 150, in: paris)
        let (earliest, latest) = (try Self.instant("2026-03-29T01:00:00Z"), try Self.instant("2026-03-29T01:30:00Z"))
        #expect(skipped >= earliest && skipped <= latest)

        let setup = try await Setup(today: try #require(CalendarDay("2026-10-25")))
        defer { setup.cleanUp() }
        let ntfy = try LoopbackReceiver()
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: ntfy.url("/t"), minuteOfDay: 480), household: 1, now: Date()
        )
        #expect(try await setup.runner.run(now: try Self.instant("2026-10-25T06:30:00Z")).first?.state == .notYet)
        let afterChange = try await setup.runner.run(now: try Self.instant("2026-10-25T07:00:00Z"))
        #expect(afterChange.first?.state == .sent, "\(afterChange.map(\.error))")
        #expect(try await setup.runner.nextSendTime(after: try Self.instant("2026-10-25T07:00:00Z"))
            == (try Self.instant("2026-10-26T07:00:00Z")))
    }

    @Test func aFailedSendIsRetriedWithBackoffAndAGoneTargetIsTurnedOff() async throws {
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let ntfy = try LoopbackReceiver(statuses: [503])
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: ntfy.url("/t"), minuteOfDay: 480), household: 1, now: Date()
        )
        let eight = try Self.instant("2026-06-10T06:00:00Z")
        let failed = try await setup.runner.run(now: eight)
        #expect(failed.first?.state == .failed && failed.first?.error == "the target answered 503", "\(failed.map(\.error))")
        #expect(try setup.database.reminderChannels(household: 1).first?.note == "Last attempt failed: the target answered 503.")
        // Not before a minute has passed; then the second attempt goes through.
        #expect(try await setup.runner.run(now: eight.addingTimeInterval(30)).first?.state == .handled)
        #expect(try await setup.runner.run(now: eight.addingTimeInterval(61)).first?.state == .sent)
        #expect(ntfy.requests.count == 2)
        let record = try #require(try setup.database.reminderDigests(channel: 1, limit: 1).first)
        #expect(record.attempts == 2 && record.sentAt != nil && record.lastError == nil)
        #expect(try setup.database.reminderChannels(household: 1).first?.note == nil)

        // The next day the topic is gone (410): the channel is turned off, with why, and nothing is tried again.
        ntfy.answer([410])
        let gone = try await setup.runner.run(now: eight.addingTimeInterval(86_400))
        #expect(gone.first?.state == .failed)
        let channel = try #require(try setup.database.reminderChannels(household: 1).first)
        #expect(!channel.enabled && channel.note == "Turned off: the target answered 410 (it is gone).")
        #expect(try await setup.runner.run(now: eight.addingTimeInterval(90_000)).isEmpty)
        #expect(ntfy.requests.count == 3)
    }

    @Test func aLoopbackTargetIsRefusedUnlessLocalTargetsAreAllowed() async throws {
        let refusing = ReminderTargets(allowLocal: false), allowing = ReminderTargets(allowLocal: true)
        for target in ["http://127.0.0.1:8080/t", "https://127.0.0.1/t", "https://10.1.2.3/t", "https://192.168.1.5/t",
                       "https://[::1]/t", "https://169.254.169.254/latest", "ftp://example.org/t", "https:///t"] {
            #expect(refusing.problem(with: target) != nil, "\(target)")
        }
        #expect(refusing.problem(with: "http://93.184.215.14/t")?.contains("only https") == true)
        #expect(refusing.problem(with: "https://93.184.215.14/t") == nil)
        #expect(allowing.problem(with: "http://127.0.0.1:8080/t") == nil)
        #expect(ReminderTargets.isLocal("100.64.0.1") && ReminderTargets.isLocal("::ffff:127.0.0.1"))
        #expect(!ReminderTargets.isLocal("8.8.8.8") && !ReminderTargets.isLocal("2001:4860:4860::8888"))
        for local in ["fec0::1", "64:ff9b::a00:1", "198.18.0.1", "198.19.255.254", "192.0.0.8", "fd12::1", "ff02::1"] {
            #expect(ReminderTargets.isLocal(local), "\(local)")
        }
        #expect(!ReminderTargets.isLocal("198.20.0.1") && !ReminderTargets.isLocal("192.0.2.1"))
        // A host that does not resolve may resolve later: not refused for good (a resolver that finds nothing stands for
        // a DNS outage; the tests have no DNS to ask).
        let offline = ReminderTargets(allowLocal: false, lookUp: { _, _ in [] })
        let nowhere = await offline.check("https://plants.example.org/t")
        guard case .unresolved = nowhere else {
            Issue.record("an unresolvable host gave \(nowhere)")
            return
        }

        // A runner that may not send to loopback turns such a channel off without sending anything.
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let ntfy = try LoopbackReceiver()
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: ntfy.url("/t"), minuteOfDay: 480), household: 1, now: Date()
        )
        let strict = ReminderRunner(
            store: setup.database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt), targets: refusing
        )
        let result = try await strict.run(now: try Self.instant("2026-06-10T06:00:00Z"))
        #expect(result.first?.state == .failed)
        #expect(ntfy.requests.isEmpty)
        #expect(try setup.database.reminderChannels(household: 1).first?.enabled == false)
    }

    @Test func aHostThatDoesNotResolveOrASendThatNeverEndsIsRetriedNotTurnedOff() async throws {
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let channel = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: "https://ntfy.example.org/t", minuteOfDay: 480), household: 1, now: Date()
        )
        // A resolver that finds nothing: the DNS is down (the tests have none to ask).
        let strict = ReminderRunner(
            store: setup.database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
            targets: ReminderTargets(allowLocal: false, lookUp: { _, _ in [] })
        )
        let eight = try Self.instant("2026-06-10T08:00:00Z")
        let result = try await strict.run(now: eight)
        #expect(result.first?.state == .failed && result.first?.error?.contains("does not resolve") == true)
        let kept = try #require(try setup.database.reminderChannels(household: 1).first)
        #expect(kept.enabled && kept.note?.hasPrefix("Last attempt failed") == true)
        let record = try #require(try setup.database.reminderDigests(channel: channel.id, limit: 1).first)
        #expect(record.retryAt == eight.addingTimeInterval(ReminderRunner.backoff[0]))

        // A target that accepts the request and never answers is cut off at the deadline and tried again later.
        let hanging = ReminderRunner(
            store: setup.database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
            targets: ReminderTargets(allowLocal: true),
            transport: ReminderTransport { _, _, _ in
                try await Task.sleep(for: .seconds(3_600))
                return 200
            },
            sendDeadline: .milliseconds(200)
        )
        let late = try await hanging.run(now: eight.addingTimeInterval(ReminderRunner.backoff[0]))
        #expect(late.first?.state == .failed && late.first?.error?.hasPrefix("no answer within") == true)
        #expect(try setup.database.reminderDigests(channel: channel.id, limit: 1).first?.attempts == 2)

        // An answer that was already in when the deadline woke (every thread of the process was busy: the send blocks
        // one here) counts: the target has the digest, and a retry would send it twice.
        let stalled = ReminderRunner(
            store: setup.database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
            targets: ReminderTargets(allowLocal: true),
            transport: ReminderTransport { _, _, _ in
                usleep(500_000)
                return 200
            },
            sendDeadline: .milliseconds(50)
        )
        let answered = try await stalled.run(now: eight.addingTimeInterval(ReminderRunner.backoff[1] + 60))
        #expect(answered.first?.state == .sent, "\(answered.map(\.error))")
        #expect(try setup.database.reminderDigests(channel: channel.id, limit: 1).first?.attempts == 3)
    }

    @Test func aNotificationsButtonsMarkTheDigestsTasksDoneOnceOrPutThemOffWithASignedToken() async throws {
        let today = try #require(CalendarDay("2026-06-10"))
        let setup = try await Setup(today: today)
        defer { setup.cleanUp() }
        let keys = VAPIDKeys(privateKey: P256.Signing.PrivateKey())
        let runner = ReminderRunner(
            store: setup.database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
            targets: ReminderTargets(allowLocal: true), webPush: .success(WebPushSigner(keys: keys, subject: "mailto:a@b.c"))
        )
        let now = try Self.instant("2026-06-10T06:00:00Z")
        var digest = ReminderDigest(household: 1, day: today, due: DueList(today: today, through: today, rooms: []), publicURL: nil)
        digest.items = [ReminderDigest.Item(
            plantId: 1, plant: "Boston fern", room: "Bathroom", task: "water", action: "Water", dueOn: today, overdueDays: 0
        )]
        let tokens = try #require(ReminderActionToken.tokens(for: digest, key: keys.actionKey, now: now))
        let done = try #require(tokens["done"]), tomorrow = try #require(tokens["tomorrow"])

        // Refused: changed, signed by another server, expired, not a token at all.
        let doneParts = done.split(separator: "."), tomorrowParts = tomorrow.split(separator: ".")
        let payload = String(doneParts[0])
        let otherKey = VAPIDKeys(privateKey: P256.Signing.PrivateKey()).actionKey
        let refusals: [(String, Date, ReminderActionError)] = [
            // Tomorrow's payload under Done's tag: the payload was changed.
            ("\(tomorrowParts[0]).\(doneParts[1])", now, .forged),
            (try #require(ReminderActionToken.tokens(for: digest, key: otherKey, now: now)?["done"]), now, .forged),
            (done, now.addingTimeInterval(ReminderActionToken.lifetime + 1), .expired),
            (payload, now, .malformed), ("not.base64!", now, .malformed),
        ]
        for (text, at, expected) in refusals {
            await #expect(throws: expected) { try await runner.perform(text, now: at) }
        }
        #expect(try setup.database.events(plantId: 1).filter { $0.task == .water }.count == 1)
        // A digest's buttons act on its day or the morning after, not on a later day's care (still within 36 hours).
        let evening = try Self.instant("2026-06-10T23:00:00Z")
        let lateDone = try #require(ReminderActionToken.tokens(for: digest, key: keys.actionKey, now: evening)?["done"])
        let twoDaysOn = try Self.instant("2026-06-12T01:00:00Z")
        await #expect(throws: ReminderActionError.expired) { try await runner.perform(lateDone, now: twoDaysOn) }

        // Done: logged today in the household's time zone; a second tap changes nothing.
        let first = try await runner.perform(done, now: now)
        #expect(first.changed == 1 && first.unchanged == 0)
        let again = try await runner.perform(done, now: now.addingTimeInterval(60))
        #expect(again.changed == 0 && again.unchanged == 1)
        let events = try setup.database.events(plantId: 1).filter { $0.task == .water }
        #expect(events.count == 2 && events.map(\.day).contains(today))

        // Tomorrow: the task is not due before tomorrow.
        let snoozed = try await runner.perform(tomorrow, now: now)
        #expect(snoozed.changed == 1)
        let planner = CarePlanner(store: setup.database, hemisphere: .north, timeZone: .gmt, now: { now })
        let water = try await HouseholdScope.$current.withValue(HouseholdScope(household: 1)) {
            try await planner.schedule(forPlant: 1).first { $0.task == .water }
        }
        #expect(water?.snoozedUntil == today.adding(days: 1))

        // A digest of more tasks than a token covers offers no buttons.
        digest.items = Array(repeating: digest.items[0], count: ReminderActionToken.maximumItems + 1)
        #expect(ReminderActionToken.tokens(for: digest, key: keys.actionKey, now: now) == nil)
    }

    @Test func aDryRunSaysWhatWouldGoAndChangesNothing() async throws {
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let ntfy = try LoopbackReceiver()
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .ntfy, target: ntfy.url("/t"), minuteOfDay: 480), household: 1, now: Date()
        )
        let dry = try await setup.runner.run(now: try Self.instant("2026-06-10T06:00:00Z"), dryRun: true)
        #expect(dry.first?.state == .wouldSend && dry.first?.tasks == 1)
        #expect(ntfy.requests.isEmpty)
        #expect(try setup.database.reminderDigests(channel: 1, limit: 5).isEmpty)
        // A test message goes now and records nothing.
        let channel = try #require(try setup.database.reminderChannels(household: 1).first)
        let testFailure = await setup.runner.test(channel, now: Date())
        #expect(testFailure == nil, "\(testFailure ?? "")")
        #expect(ntfy.requests.first?.text.contains("daily care reminders will come at 08:00") == true)
        #expect(try setup.database.reminderDigests(channel: 1, limit: 5).isEmpty)
    }

    @Test func eachMemberGetsTheirOwnTasksAndTheirDoneButtonIsRecordedAsTheirs() async throws {
        let today = try #require(CalendarDay("2026-06-10"))
        let setup = try await Setup(today: today)
        defer { setup.cleanUp() }
        let database = setup.database
        let hash = "pbkdf2-sha256$600000$c2FsdA$aGFzaA"
        let alice = try await database.addUser(name: "alice", role: .owner, passwordHash: hash, now: Date())
        let bob = try await database.addUser(name: "bob", role: .member, passwordHash: hash, now: Date())
        let receivers = try (0..<3).map { _ in try LoopbackReceiver() }
        for (index, member) in [alice.id, bob.id, nil].enumerated() {
            _ = try database.addReminderChannel(
                NewReminderChannel(kind: .webhook, target: receivers[index].url("/hook"), member: member), household: 1, now: Date()
            )
        }
        // The fern (due today) is bob's: alice's digest has nothing, bob's and the household's list it.
        try database.setCareAssignment(plant: 1, household: 1, to: .member(bob.id))
        let keys = VAPIDKeys(privateKey: P256.Signing.PrivateKey())
        let runner = ReminderRunner(
            store: database, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
            targets: ReminderTargets(allowLocal: true), webPush: .success(WebPushSigner(keys: keys, subject: "mailto:a@b.c"))
        )
        let now = try Self.instant("2026-06-10T06:00:00Z")
        let results = try await runner.run(now: now)
        #expect(results.map(\.state) == [.nothingDue, .sent, .sent])
        #expect(receivers[0].requests.isEmpty)
        let bobs = try JSONDecoder().decode(ReminderDigest.self, from: try #require(receivers[1].requests.first).body)
        let everyones = try JSONDecoder().decode(ReminderDigest.self, from: try #require(receivers[2].requests.first).body)
        #expect(bobs.member == "bob" && bobs.items.map(\.plant) == ["Boston fern"])
        #expect(everyones.member == nil && everyones.items.map(\.plant) == ["Boston fern"])
        // Bob's "Done" is kept in the care log as done by bob.
        let done = try #require(ReminderActionToken.tokens(for: bobs, key: keys.actionKey, now: now)?["done"])
        #expect(try await runner.perform(done, now: now).changed == 1)
        let logged = try #require(try database.events(plantId: 1).first { $0.task == .water && $0.day == today })
        #expect(logged.recordedBy == "bob")
        // Taking turns: after bob watered it, the next watering is alice's.
        try database.setCareAssignment(plant: 1, household: 1, to: .turns)
        #expect(try database.careAssignments(household: 1).member(for: 1, task: .water)?.name == "alice")
    }

    @Test func quietHoursHoldASendUntilTheirEndAndACatchUpInThemWaitsForTheNextDay() async throws {
        let setup = try await Setup(today: try #require(CalendarDay("2026-06-10")))
        defer { setup.cleanUp() }
        let early = try LoopbackReceiver(), night = try LoopbackReceiver()
        // 08:00 in quiet hours 07:00-09:00 (Paris, UTC+2): it goes at 09:00.
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .webhook, target: early.url("/a"), minuteOfDay: 480, quietHours: QuietHours(parsing: "07:00-09:00")),
            household: 1, now: Date()
        )
        // Quiet 22:00-07:00 and the server down from before 08:00 until 23:00.
        _ = try setup.database.addReminderChannel(
            NewReminderChannel(kind: .webhook, target: night.url("/b"), minuteOfDay: 480, quietHours: QuietHours(parsing: "22:00-07:00")),
            household: 1, now: Date()
        )
        let eightOClock = try Self.instant("2026-06-10T06:00:00Z"), nineOClock = try Self.instant("2026-06-10T07:00:00Z")
        let eight = try await setup.runner.run(now: eightOClock)
        #expect(eight.map(\.state) == [.quiet, .sent], "\(eight.map(\.error))")
        #expect(eight.first?.sendAt == nineOClock)
        let next = try await setup.runner.nextSendTime(after: eightOClock)
        #expect(next == nineOClock)
        #expect(early.requests.isEmpty && night.requests.count == 1)
        let nine = try await setup.runner.run(now: nineOClock)
        #expect(nine.map(\.state) == [.sent, .handled])
        #expect(early.requests.count == 1)

        // The next day: down until 23:00, in the second channel's quiet hours: it waits for 07:00, the next day,
        // whose 08:00 digest then says it (one digest, never one per missed day).
        let late = try await setup.runner.run(now: try Self.instant("2026-06-11T21:00:00Z"))
        let quietEnd = try Self.instant("2026-06-12T05:00:00Z")
        #expect(late.last?.state == .quiet && late.last?.sendAt == quietEnd)
        #expect(late.first?.state == .sent)
        let morning = try await setup.runner.run(now: try Self.instant("2026-06-12T05:30:00Z"))
        #expect(morning.last?.state == .notYet)
        let eightAgain = try await setup.runner.run(now: try Self.instant("2026-06-12T06:00:00Z"))
        #expect(eightAgain.last?.state == .sent)
        #expect(try setup.database.reminderDigests(channel: 2, limit: 5).map(\.day.description) == ["2026-06-12", "2026-06-10"])
        #expect(night.requests.count == 2)
    }
}
