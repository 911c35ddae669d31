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
}
