import Foundation
import PlantGuideCore
import PlantGuideTestSupport
import PlantStore
import PlantStorePostgres
import Testing
import PlantReminders

/// Two replicas on one PostgreSQL database, each with its own connection pool and runner, run at the same pinned
/// moments across the send time: each day's digest reaches the receiver once. Run with the PostgreSQL suites.
@Suite struct ReminderReplicaTests {
    @Test func twoReplicasSendEachDigestOnce() async throws {
        let receiver = try LoopbackReceiver()
        try await TestPostgres.withSchema { location, options in
            try await PostgresStore.withStore(location, options: options) { first in
                try await PostgresStore.withStore(location, options: options) { second in
                    let guide = try CareGuide.bundled()
                    let added = try #require(ISO8601DateFormatter().date(from: "2026-06-01T00:00:00Z"))
                    let day = try #require(CalendarDay("2026-06-10"))
                    try await HouseholdScope.$current.withValue(.home) {
                        let fern = try await first.addPlant(
                            NewPlant(name: "Boston fern", room: "Bathroom"),
                            profile: guide.profile(genus: "Nephrolepis", category: nil), photo: nil, now: added
                        )
                        _ = try await first.logCare(
                            plantId: fern.id, task: .water, day: try #require(CalendarDay("2026-06-01")), note: nil, soil: nil,
                            now: added
                        )
                    }
                    _ = try await second.addReminderChannel(
                        NewReminderChannel(kind: .webhook, target: receiver.url("/hook"), minuteOfDay: 480), household: 1,
                        now: added
                    )
                    let runners = [first, second].map { store in
                        ReminderRunner(
                            store: store, careDefaults: CareSettings(hemisphere: .north, timeZone: .gmt),
                            targets: ReminderTargets(allowLocal: true)
                        )
                    }
                    // Both replicas wake at the same moments: before, at and after 08:00 UTC.
                    var states: [ReminderRunResult.State] = []
                    for minute in [-1, 0, 1, 30] {
                        let now = ReminderRunner.sendTime(of: day, minuteOfDay: 480, in: .gmt).addingTimeInterval(Double(minute) * 60)
                        let round = try await withThrowingTaskGroup(of: [ReminderRunResult].self) { group in
                            for runner in runners { group.addTask { try await runner.run(now: now) } }
                            return try await group.reduce(into: []) { $0 += $1 }
                        }
                        states += round.map(\.state)
                    }
                    #expect(receiver.requests.count == 1)
                    #expect(states.filter { $0 == .sent }.count == 1)
                    #expect(states.filter { $0 == .notYet }.count == 2)
                    let record = try #require(try await first.reminderDigests(channel: 1, limit: 5).first)
                    #expect(record.day == day && record.attempts == 1 && record.sentAt != nil && record.tasks >= 1)
                }
            }
        }
    }
}
