import Foundation
import PlantGuideCore
import PlantStore
import Testing

extension TestStore {
    /// Reminder channels and their digests' claim rows.
    var reminders: any ReminderStore {
        switch self {
        case .sqlite(let database): database
        case .postgres(let store): store
        }
    }
}

/// Reminder channels and the exactly-once claim of each digest, through the store protocol, on every backend: several
/// connections stand for several replicas sending at the same moment. Run with the other PostgreSQL suites, one test at
/// a time (scripts/test).
@Suite struct SharedReminderStoreTests {
    static let backends: [StateBackend] = StateBackend.allCases

    private let now = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24 00:00 UTC
    private let day = CalendarDay(year: 2026, month: 11, day: 24)!

    @Test(arguments: Self.backends)
    func ofManySendersClaimingADigestAtOnceExactlyOneSends(_ backend: StateBackend) async throws {
        let now = now, day = day
        try await backend.withTestStores(3) { stores in
            let reminders = stores.map(\.reminders)
            let channel = try await reminders[0].addReminderChannel(
                NewReminderChannel(kind: .ntfy, target: "https://ntfy.sh/plants-7f3a", token: "tk_1", minuteOfDay: 450),
                household: 1, now: now
            )
            #expect(channel.timeOfDay == "07:30" && channel.enabled && channel.token == "tk_1")
            let claims = try await withThrowingTaskGroup(of: Int?.self) { group in
                for sender in 0..<12 {
                    let store = reminders[sender % 3]
                    group.addTask { try await store.claimReminderDigest(channel: channel.id, day: day, now: now, lease: 300) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(claims.compactMap { $0 } == [1])
            // Sent: never claimed again, that day; the next day is a claim of its own.
            #expect(try await reminders[1].finishReminderDigest(channel: channel.id, day: day, attempt: 1, outcome: .sent(tasks: 3), now: now))
            #expect(try await reminders[2].claimReminderDigest(channel: channel.id, day: day, now: now + 3_600, lease: 300) == nil)
            #expect(try await reminders[2].claimReminderDigest(channel: channel.id, day: day.adding(days: 1), now: now, lease: 300) == 1)
            let records = try await reminders[0].reminderDigests(channel: channel.id, limit: 10)
            #expect(records.map(\.day) == [day.adding(days: 1), day])
            #expect(records.last?.tasks == 3 && records.last?.sentAt != nil && records.last?.retryAt == nil)
        }
    }

    @Test(arguments: Self.backends)
    func aSenderKilledMidSendIsReplacedAfterItsLeaseAndAFailureWaitsForItsRetry(_ backend: StateBackend) async throws {
        let now = now, day = day
        try await backend.withTestStores(2) { stores in
            let first = stores[0].reminders, second = stores[1].reminders
            let channel = try await first.addReminderChannel(
                NewReminderChannel(kind: .webhook, target: "https://example.org/hook"), household: 1, now: now
            )
            #expect(channel.minuteOfDay == 480)
            #expect(try await first.claimReminderDigest(channel: channel.id, day: day, now: now, lease: 300) == 1)
            // The first sender dies without a word: within its lease nobody else sends, after it the second does.
            #expect(try await second.claimReminderDigest(channel: channel.id, day: day, now: now + 299, lease: 300) == nil)
            #expect(try await second.claimReminderDigest(channel: channel.id, day: day, now: now + 301, lease: 300) == 2)
            // The first sender wakes up late: its outcome no longer counts, the replacement's does.
            #expect(try await first.finishReminderDigest(channel: channel.id, day: day, attempt: 1, outcome: .sent(tasks: 2), now: now + 302) == false)
            // A failure says when to try again; given up (no retry time), never again that day.
            #expect(try await second.finishReminderDigest(
                channel: channel.id, day: day, attempt: 2, outcome: .failed("the target answered 503", retryAt: now + 1_000), now: now + 302
            ))
            #expect(try await first.claimReminderDigest(channel: channel.id, day: day, now: now + 999, lease: 300) == nil)
            #expect(try await first.claimReminderDigest(channel: channel.id, day: day, now: now + 1_000, lease: 300) == 3)
            try await first.finishReminderDigest(
                channel: channel.id, day: day, attempt: 3, outcome: .failed("the target answered 503", retryAt: nil), now: now + 1_001
            )
            #expect(try await second.claimReminderDigest(channel: channel.id, day: day, now: now + 90_000, lease: 300) == nil)
            let record = try #require(try await second.reminderDigests(channel: channel.id, limit: 1).first)
            #expect(record.attempts == 3 && record.sentAt == nil && record.retryAt == nil)
            #expect(record.lastError == "the target answered 503")
        }
    }

    @Test(arguments: Self.backends)
    func channelsAreAHouseholdsOwnAndBadOnesAreRefused(_ backend: StateBackend) async throws {
        let now = now
        try await backend.withTestStores(1) { stores in
            let reminders = stores[0].reminders
            for bad in [
                NewReminderChannel(kind: .ntfy, target: "ntfy.sh/plants"),
                NewReminderChannel(kind: .ntfy, target: "ftp://example.org/plants"),
                NewReminderChannel(kind: .ntfy, target: "https://user:pass@example.org/plants"),
                NewReminderChannel(kind: .ntfy, target: "https://example.org/" + String(repeating: "a", count: 2_000)),
                NewReminderChannel(kind: .ntfy, target: "https://example.org/plants", token: "has space"),
                NewReminderChannel(kind: .ntfy, target: "https://example.org/plants", minuteOfDay: 1_440),
                NewReminderChannel(kind: .webhook, target: "https://example.org/plants", minuteOfDay: -1),
            ] {
                await #expect(throws: StoreError.self, "\(bad.target.prefix(40))") {
                    try await reminders.addReminderChannel(bad, household: 1, now: now)
                }
            }
            #expect(try await reminders.reminderChannels(household: 1).isEmpty)
            let added = try await reminders.addReminderChannel(
                NewReminderChannel(kind: .ntfy, target: "https://ntfy.sh/plants"), household: 1, now: now
            )
            #expect(try await reminders.removeReminderChannel(id: added.id, household: 2) == false)
            try await reminders.setReminderChannel(id: added.id, enabled: false, note: String(repeating: "x", count: 900))
            let off = try #require(try await reminders.reminderChannels(household: 1).first)
            #expect(!off.enabled && off.note?.count == ReminderRules.maximumNoteCharacters)
            #expect(try await reminders.enabledReminderChannels().isEmpty)
            for index in 1..<ReminderRules.maximumChannels {
                _ = try await reminders.addReminderChannel(
                    NewReminderChannel(kind: .webhook, target: "https://example.org/\(index)"), household: 1, now: now
                )
            }
            await #expect(throws: StoreError.self) {
                try await reminders.addReminderChannel(
                    NewReminderChannel(kind: .webhook, target: "https://example.org/one-too-many"), household: 1, now: now
                )
            }
            #expect(try await reminders.removeReminderChannel(id: added.id, household: 1))
            #expect(try await reminders.reminderChannels(household: 1).count == ReminderRules.maximumChannels - 1)
        }
    }

    @Test(arguments: Self.backends)
    func aMembersChannelsShareTheirHourAndPlantsGoToAMemberOrToTurns(_ backend: StateBackend) async throws {
        let now = now, hash = "pbkdf2-sha256$600000$c2FsdA$aGFzaA"
        try await backend.withTestStores(2) { stores in
            let reminders = stores[0].reminders, other = stores[1].reminders
            let accounts = stores[0].householdAccounts
            let alice = try await accounts.addUser(name: "alice", role: .owner, passwordHash: hash, now: now)
            let bob = try await accounts.addUser(name: "bob", role: .member, passwordHash: hash, now: now)
            let joneses = try await accounts.createHousehold(named: "Joneses", now: now)
            let carol = try await accounts.addUser(
                name: "carol", role: .owner, passwordHash: hash, householdId: joneses.id, now: now
            )
            // A member's channel: theirs, with their quiet hours; a member of another household is refused.
            let quiet = try #require(QuietHours(parsing: "22:00-07:00"))
            let mine = try await reminders.addReminderChannel(
                NewReminderChannel(kind: .ntfy, target: "https://ntfy.sh/alice", member: alice.id, quietHours: quiet),
                household: 1, now: now
            )
            #expect(mine.member == alice.id && mine.memberName == "alice" && mine.quietHours == quiet)
            let second = try await reminders.addReminderChannel(
                NewReminderChannel(kind: .webhook, target: "https://example.org/alice", member: alice.id), household: 1, now: now
            )
            let household = try await reminders.addReminderChannel(
                NewReminderChannel(kind: .webhook, target: "https://example.org/all"), household: 1, now: now
            )
            await #expect(throws: StoreError.self) {
                try await reminders.addReminderChannel(
                    NewReminderChannel(kind: .ntfy, target: "https://ntfy.sh/carol", member: carol.id), household: 1, now: now
                )
            }
            await #expect(throws: StoreError.self) {
                try await reminders.setReminderSchedule(
                    member: alice.id, household: 1, minuteOfDay: 450, quietHours: QuietHours(from: 60, until: 60)
                )
            }
            // Her hour and quiet hours move on all her channels, and on nobody else's.
            #expect(try await other.setReminderSchedule(member: alice.id, household: 1, minuteOfDay: 450, quietHours: nil) == 2)
            #expect(try await other.setReminderSchedule(member: alice.id, household: joneses.id, minuteOfDay: 0, quietHours: nil) == 0)
            let channels = try await reminders.reminderChannels(household: 1)
            #expect(channels.map(\.id) == [mine.id, second.id, household.id])
            #expect(channels.map(\.minuteOfDay) == [450, 450, 480])
            #expect(channels.map(\.quietHours) == [nil, nil, nil])
            #expect(try await other.setReminderSchedule(member: nil, household: 1, minuteOfDay: 420, quietHours: quiet) == 1)
            #expect(try await reminders.reminderChannels(household: 1).last?.quietHours == quiet)
            #expect(try await reminders.enabledReminderChannels().first { $0.id == second.id }?.memberName == "alice")

            // Plants: one for bob, one taking turns; the turn follows who did it last.
            let fern = try await stores[0].plants.addPlant(NewPlant(name: "Fern"), profile: .fixture(), photo: nil, now: now)
            let ivy = try await stores[0].plants.addPlant(NewPlant(name: "Ivy"), profile: .fixture(), photo: nil, now: now)
            let palm = try await stores[0].plants.addPlant(NewPlant(name: "Palm"), profile: .fixture(), photo: nil, now: now)
            try await reminders.setCareAssignment(plant: fern.id, household: 1, to: .member(bob.id))
            try await other.setCareAssignment(plant: ivy.id, household: 1, to: .turns)
            await #expect(throws: StoreError.self) {
                try await reminders.setCareAssignment(plant: palm.id, household: 1, to: .member(carol.id))
            }
            await #expect(throws: StoreError.self) {
                try await reminders.setCareAssignment(plant: palm.id, household: joneses.id, to: .turns)
            }
            var assignments = try await other.careAssignments(household: 1)
            #expect(assignments.members.map(\.name) == ["alice", "bob"])
            #expect(assignments.plants == [fern.id: .member(bob.id), ivy.id: .turns])
            #expect(assignments.member(for: fern.id, task: .water)?.name == "bob")
            #expect(assignments.member(for: ivy.id, task: .water)?.name == "alice")
            #expect(assignments.member(for: palm.id, task: .water) == nil)
            #expect(!assignments.isFor(member: alice.id, plant: fern.id, task: .mist))
            #expect(assignments.isFor(member: alice.id, plant: palm.id, task: .mist))
            try await HouseholdScope.$current.withValue(HouseholdScope(household: 1, user: alice.id, userName: "alice")) {
                _ = try await stores[0].care.logCare(plantId: ivy.id, task: .water, day: day, note: nil, soil: nil, now: now)
            }
            assignments = try await reminders.careAssignments(household: 1)
            #expect(assignments.lastDoneBy[ivy.id] == [.water: "alice"])
            #expect(assignments.member(for: ivy.id, task: .water)?.name == "bob")
            #expect(assignments.member(for: ivy.id, task: .mist)?.name == "alice")
            #expect(try await reminders.careAssignments(household: joneses.id).plants.isEmpty)
            // Back to everyone; a removed account's plants are everyone's again, and its channels go with it.
            try await reminders.setCareAssignment(plant: ivy.id, household: 1, to: nil)
            _ = try await reminders.addReminderChannel(
                NewReminderChannel(kind: .ntfy, target: "https://ntfy.sh/bob", member: bob.id), household: 1, now: now
            )
            try await accounts.removeUser(named: "bob")
            #expect(try await other.careAssignments(household: 1).plants.isEmpty)
            #expect(try await reminders.reminderChannels(household: 1).map(\.id) == [mine.id, second.id, household.id])
        }
    }
}
