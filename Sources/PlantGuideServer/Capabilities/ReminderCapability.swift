import Foundation
import PlantReminders
import PlantStore

/// The household's care reminder channels, for Settings.
public struct ReminderCapability: Sendable {
    /// The household's channels, oldest first.
    public var channels: @Sendable () async throws -> [ReminderChannel]
    /// Adds a channel (`ntfy` or `webhook`, a URL, an optional access token, a time of day in minutes).
    public var add: @Sendable (_ kind: ReminderChannelKind, _ target: String, _ token: String?, _ minuteOfDay: Int) async throws
        -> ReminderChannel
    /// Removes one of the household's channels; `false` when it has none with this id.
    public var remove: @Sendable (_ id: Int64) async throws -> Bool
    /// Sends a test message to one of the household's channels now; why it failed, `nil` when it went.
    public var test: @Sendable (_ id: Int64) async throws -> String?
    /// The server's Web Push public key (base64url) browsers subscribe with; `nil` when Web Push cannot work here.
    public var webPushKey: String?
    /// Whether email reminders can be sent (an SMTP server is set up).
    public var emailReady: Bool
    /// Applies a reminder's signed action token ("Done", "Tomorrow"); throws ``ReminderActionError`` for a bad one.
    public var act: (@Sendable (_ token: String) async throws -> ReminderActionOutcome)?
    /// Sets the reminder hour and quiet hours of the request's member (on an open server, of the household's own
    /// channels) on all their channels.
    public var schedule: (@Sendable (_ minuteOfDay: Int, _ quietHours: QuietHours?) async throws -> Void)?
    /// Who looks after the household's plants.
    public var assignments: (@Sendable () async throws -> CareAssignments)?
    /// Assigns a plant to a member, to turns, or (`nil`) back to everyone.
    public var assign: (@Sendable (_ plant: Int64, _ assignee: CareAssignee?) async throws -> Void)?

    /// Creates the capability.
    public init(
        channels: @escaping @Sendable () async throws -> [ReminderChannel],
        add: @escaping @Sendable (_ kind: ReminderChannelKind, _ target: String, _ token: String?, _ minuteOfDay: Int) async throws
            -> ReminderChannel,
        remove: @escaping @Sendable (_ id: Int64) async throws -> Bool,
        test: @escaping @Sendable (_ id: Int64) async throws -> String?,
        webPushKey: String? = nil,
        act: (@Sendable (_ token: String) async throws -> ReminderActionOutcome)? = nil,
        emailReady: Bool = false
    ) {
        self.emailReady = emailReady
        self.webPushKey = webPushKey
        self.act = act
        self.channels = channels
        self.add = add
        self.remove = remove
        self.test = test
    }

    /// The live capability over a runner's store, for the household of the request's scope.
    public static func live(_ runner: ReminderRunner, now: @escaping @Sendable () -> Date = { Date() }) -> ReminderCapability {
        let store = runner.store
        let household: @Sendable () -> Int64 = { HouseholdScope.current?.household ?? HouseholdScope.home.household }
        // The logged-in member's channels are theirs; on an open server they are the household's.
        let member: @Sendable () -> Int64? = { HouseholdScope.current?.user }
        var capability = ReminderCapability(
            channels: { try await store.reminderChannels(household: household()) },
            add: { kind, target, token, minute in
                let targets = runner.targets
                if kind != .email, let problem = await targets.check(target).problem {
                    throw ServerError.badRequest("That address cannot be used: \(problem).")
                }
                do {
                    // A member's channels share one hour and quiet hours: the new one's hour becomes theirs.
                    let channels = try await store.reminderChannels(household: household())
                    let quiet = ReminderRules.schedule(of: member(), in: channels)?.quietHours
                    let added = try await store.addReminderChannel(
                        NewReminderChannel(
                            kind: kind, target: target, token: token, minuteOfDay: minute, member: member(), quietHours: quiet
                        ),
                        household: household(), now: now()
                    )
                    try await store.setReminderSchedule(
                        member: member(), household: household(), minuteOfDay: minute, quietHours: quiet
                    )
                    return added
                } catch StoreError.invalid(let message) {
                    throw ServerError.badRequest(message)
                }
            },
            remove: { id in try await store.removeReminderChannel(id: id, household: household()) },
            test: { id in
                guard let channel = try await store.reminderChannels(household: household()).first(where: { $0.id == id }) else {
                    throw ServerError.notFound("That reminder channel")
                }
                return await runner.test(channel, now: now())
            },
            webPushKey: try? runner.webPush.get().keys.publicKey,
            act: { token in try await runner.perform(token, now: now()) },
            emailReady: (try? runner.email?.get()) != nil
        )
        capability.schedule = { minute, quiet in
            do {
                try await store.setReminderSchedule(member: member(), household: household(), minuteOfDay: minute, quietHours: quiet)
            } catch StoreError.invalid(let message) {
                throw ServerError.badRequest(message)
            }
        }
        capability.assignments = { try await store.careAssignments(household: household()) }
        capability.assign = { plant, assignee in
            do {
                try await store.setCareAssignment(plant: plant, household: household(), to: assignee)
            } catch StoreError.invalid(let message) {
                throw ServerError.badRequest(message)
            } catch StoreError.plantNotFound {
                throw ServerError.notFound("That plant in your collection")
            }
        }
        return capability
    }
}
